"""The Curate work area as one element (issue 21): item card, GOOD/BAD lists, Add boxes, actions, feedback.

One components v2 element whose HTML, CSS and script live in ``assets/`` (``area.html``, ``area.css``, ``area.js``;
Streamlit serves that folder as the element's own, outside the log-in, so it holds nothing else; the script is served
from there as a file, see ``_component``). Streamlit reruns replace a page's elements, taking the focus and the scroll
with them; this element keeps its DOM across runs (it is mounted under one constant key), so it owns where the focus
goes, what the keys do and what stays in view. Everything shown comes from ``area_data`` as JSON and reaches the page
through ``textContent`` only.

The script sends one typed event at a time as the ``event`` trigger, named and versioned as ``protocol`` says
(``parse_event`` checks every field: a forged, malformed or other-version event is ignored); ``annotator.app.work_area``
turns it into one command for the curation service with the version the element was drawn for, so a stale page is
refused by the service's version check. The element serves Curate, Review and Double curation alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from annotator.app.curate_area import protocol
from annotator.app.safe_text import synset_url, visible_controls
from annotator.domain.model import DiscardReason, Side

#: "<project>.<component>" as the package's manifest (``annotator/pyproject.toml``) declares it: the name under which
#: Streamlit finds the component's asset folder (this one) and serves its files.
COMPONENT_NAME = "annotator.curate_area"
KEY = "cur_area"
#: The trigger the script sets; the page's callback is ``on_event_change``.
EVENT = "event"
#: What the script may send, and the fields each needs beyond the envelope (``protocol``).
EVENT_FIELDS = protocol.EVENTS
PROTOCOL_VERSION = protocol.VERSION
MAX_EVENT_TEXT = 40_000


def _asset(name: str) -> str:
    return resources.files(__name__).joinpath("assets", name).read_text(encoding="utf-8")


HTML, CSS, JS = _asset("area.html"), _asset("area.css"), _asset("area.js")


def _component() -> Callable[..., Any]:
    """The element, its script served as a file of the asset folder when Streamlit found the package's manifest (an
    installed or editable package, inside a running app): each run's message then carries the data, the HTML and the
    style, not the 39 KB script as well (62 → 23 KB per run; the browser loads the script once and keeps it). The
    style stays inline: as a file it arrives after the first drawing on a page load, and the work area then shifts
    (test_e2e_curate_layout). Without the manifest (the module imported outside a running app, e.g. by a test, or a
    copy without it) the script is inline too."""
    try:
        return st.components.v2.component(COMPONENT_NAME, html=HTML, css=CSS, js="area.js", isolate_styles=False)
    except StreamlitAPIException:
        return st.components.v2.component(COMPONENT_NAME, html=HTML, css=CSS, js=JS, isolate_styles=False)


_mount = _component()


@dataclass(frozen=True)
class Event:
    """One checked event from the element: what to do, to which item-language, at which version."""

    type: str
    item: str
    lang: str
    version: int
    seq: str
    side: Side | None = None
    text: str = ""
    key: str = ""
    reason: str = ""
    on: bool = False


def parse_event(value: object) -> Event | None:
    """The event in the element's trigger value, or None when it is not one the script sends (of this protocol
    version, with every field of its kind well typed)."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        return None
    if value.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        return None  # a page drawn by another version of the app: reloading it sends the current protocol
    item, lang, version, seq = value.get("item"), value.get("lang"), value.get("version"), value.get("seq")
    if not isinstance(item, str) or not isinstance(lang, str) or type(version) is not int or not isinstance(seq, str):
        return None
    fields: dict[str, Any] = {}
    optional = protocol.OPTIONAL.get(kind, ())
    for name in EVENT_FIELDS[kind]:
        if name in optional and value.get(name) is None:
            continue
        raw = value.get(name)
        if name == "side":
            if raw not in (Side.GOOD.value, Side.BAD.value):
                return None
            fields["side"] = Side(raw)
        elif name == "on":
            if type(raw) is not bool:
                return None
            fields["on"] = raw
        elif name == "reason":
            if raw not in ("", *(r.value for r in DiscardReason)):
                return None
            fields["reason"] = raw
        else:
            if not isinstance(raw, str) or len(raw) > MAX_EVENT_TEXT:
                return None
            fields[name] = raw
    return Event(kind, item, lang, version, seq[:64], **fields)


def received() -> Event | None:
    """In the callback: the event the element sent (None for anything else)."""
    value = st.session_state.get(KEY)
    return parse_event(value.get(EVENT) if isinstance(value, Mapping) else None)


def received_seq() -> str | None:
    """The id of whatever the element sent (checked or not), to acknowledge it: the element waits for it."""
    value = st.session_state.get(KEY)
    event = value.get(EVENT) if isinstance(value, Mapping) else None
    seq = event.get("seq") if isinstance(event, Mapping) else None
    return seq[:64] if isinstance(seq, str) else None


def text(value: object) -> str:
    """Text for the element: invisible characters made visible (``safe_text.visible_controls``)."""
    return visible_controls(str(value))


def synset_link(synset: str) -> str | None:
    return synset_url(synset)


def encode(data: dict[str, Any]) -> bytes:
    """The data as the element receives it: one JSON document, in bytes. Streamlit forwards bytes as they are; a dict
    it would serialise twice (the message and its identity) and probe each of its ~20 fields for a data frame first
    (≈ 15 µs each): 0.41 → 0.03 ms of every run (``area.js`` decodes it with ``TextDecoder`` and ``JSON.parse``).
    Text with a lone surrogate (a forged or pasted ``\\ud800`` echoed back, say) has no UTF-8 form: that document
    goes with every non-ASCII character escaped, as JSON allows, instead of failing the page's run."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def render(data: dict[str, Any], on_event: Callable[[], None]) -> None:
    """Mount the element (one, under the constant ``KEY``); ``on_event`` runs before the next run on an event."""
    _mount(key=KEY, data=encode(data), on_event_change=on_event)
