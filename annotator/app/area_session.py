"""What the work area keeps in the browser session between runs, and reads back for the next drawing.

``area_data`` is a pure function of what it is given; the reading (and the one-shot popping of the last feedback)
happens here, once per run, in ``remembered``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import streamlit as st

from annotator.app.area_data import Dismissed, Left, Place, Remembered
from annotator.app.curate_area.protocol import Check, Feedback
from annotator.app.session import login_session
from annotator.domain.model import Status
from annotator.services.curation import ItemView

#: Session keys: the feedback of the last event, the last event's id (the element's acknowledgement), the check of
#: the text last typed in an Add box, what the element shows (``Shown``), the item just left by Done / DISCUSS /
#: Discard (what ``u`` undoes there), and the Evaluate translation an item was opened from.
FEEDBACK_KEY = "cur_area_feedback"
ACK_KEY = "cur_area_ack"
CHECK_KEY = "cur_area_check"
SHOWN_KEY = "cur_area_shown"
LEFT_KEY = "cur_area_left"
#: The suggestion just dismissed (``u`` right after it takes the dismissal back).
DISMISSED_KEY = "cur_area_dismissed"
EVAL_KEY = "cur_eval_translation"


@dataclass(frozen=True)
class Shown:
    """What the element shows now: events are checked against it."""

    place: Place
    version: int
    status: Status
    #: What was drawn (the Add boxes' checks read it instead of the database).
    view: ItemView


def shown() -> Shown | None:
    value = st.session_state.get(SHOWN_KEY)
    return value if isinstance(value, Shown) else None


def left_behind() -> Left | None:
    value = st.session_state.get(LEFT_KEY)
    return value if isinstance(value, Left) else None


def just_dismissed(item_id: str, lang: str) -> Dismissed | None:
    value = st.session_state.get(DISMISSED_KEY)
    return value if isinstance(value, Dismissed) and (value.item_id, value.lang) == (item_id, lang) else None


def remembered(place: Place) -> Remembered:
    """What the session holds for the next drawing at ``place``; the last event's feedback is taken (shown once)."""
    check: Check | None = st.session_state.get(CHECK_KEY)
    feedback: Feedback | None = st.session_state.pop(FEEDBACK_KEY, None)
    advance_key = place.nav.get("advance_key")
    dismissed = st.session_state.get(DISMISSED_KEY)
    translation: Any = st.session_state.get(EVAL_KEY)
    return Remembered(
        login=_login_tag(),
        advance=bool(st.session_state.get(advance_key)) if advance_key else False,
        check=check if isinstance(check, dict) and check.get("scope") == place.prefix else None,
        feedback=feedback if isinstance(feedback, dict) else None,
        ack=st.session_state.get(ACK_KEY),
        left=left_behind(),
        dismissed=dismissed if isinstance(dismissed, Dismissed) else None,
        translation=translation if isinstance(translation, dict) else None,
    )


def _login_tag() -> str:
    """A non-secret tag of this log-in (the same in every tab it reaches through the cookie, another after the next
    log-in): the browser keeps drafts under it and drops other log-ins' drafts, so none come back."""
    session = login_session()
    if session is None:
        return "local"
    whole = f"{session.user}|{session.epoch}|{session.issued_at!r}"
    return hashlib.sha256(whole.encode("utf-8")).hexdigest()[:16]
