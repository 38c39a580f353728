"""The Undo button of the Curate page (issue 8; key ``u``, see ``annotator.app.keyboard``).

It undoes the user's own last change on the shown item-language through ``CurationService.undo`` — a new change in
the history, refused with the reason when someone changed the item since. The button stays enabled whenever the
user may edit the language, so a click or the key always answers (with the refusal if there is nothing to undo);
its tooltip says beforehand what it would undo, worked out from the history the page already read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotator.app import components
from annotator.app.safe_text import md
from annotator.domain import undo
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.services.curation import ItemView

KEY = "u"


def render(view: ItemView, user: User, prefix: str, after: Callable[[Any], None] | None = None) -> None:
    """``↶ Undo`` (key ``prefix + "undo"``); ``after`` runs once an undo is saved (e.g. re-read the queue)."""
    il = view.state
    if not user.may_edit(il.lang):
        return
    try:
        plan = undo.plan_undo(user, il, view.history)
    except UserError as error:
        tip, message = f"Undo is not possible now: {md(str(error))}", "Undone."
    else:
        what = undo.describe(plan.undone)
        tip = f"Undo your last change on this item: {md(what)} (v{plan.undone.version}). Undo again to redo it."
        message = f"Undone: {what}. Undo again to redo it."
    st.button(
        "Undo",
        key=f"{prefix}undo",
        icon=":material/undo:",
        on_click=components.run_action,
        args=("undo", (il.item_id, il.lang, il.version), message),
        kwargs={"after": after},
        help=f"{tip} (key {KEY})",
    )
