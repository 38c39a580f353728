"""Double curation page (translators): the queue of one's own copies and the editor for one copy (issue 11).

A translator given an item-language for double curation edits a private copy here with the usual actions
(GOOD/BAD sets, Done, DISCUSS, Discard, reopen while the others are still working). Only the user's own copies are
ever read: the service refuses anything else. Untrusted text (item ids, notes, candidates) is shown with
``st.text``/``st.dataframe`` or escaped, never as raw Markdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotator.app import components, state
from annotator.domain.candidates import CandidateError
from annotator.domain.model import DiscardReason, ItemLanguage
from annotator.errors import ConflictError, UserError
from annotator.services.curation import ItemView
from annotator.services.double_curation import FINISHED, DoubleCurationService

PICK_KEY = "copies_pick"


def service() -> DoubleCurationService:
    user = state.current_user()
    if user is None:
        raise UserError("Please log in again: your session has ended.")
    return DoubleCurationService(state.get_project(), user)


def run(method: Callable[..., Any], args: tuple[Any, ...], success: str, reset: dict[str, Any] | None = None) -> None:
    """Widget callback: ``method`` (a ``DoubleCurationService`` method) with the service acting for the user logged
    in now, its outcome as a one-shot message (escaped when shown)."""
    try:
        method(service(), *args)
    except CandidateError as error:
        user = state.current_user()  # a rule's id is for leads; a translator gets its message
        state.flash("error", components.candidate_error_message(error, user is not None and user.is_lead))
        return
    except (ConflictError, UserError) as error:
        state.flash("error", str(error))
        return
    for key, value in (reset or {}).items():
        st.session_state[key] = value
    state.flash("success", success)


def _save_sets(item_id: str, lang: str, version: int, prefix: str) -> None:
    good = st.session_state.get(prefix + "good", "").splitlines()
    bad = st.session_state.get(prefix + "bad", "").splitlines()
    run(DoubleCurationService.replace_candidates, (item_id, lang, good, bad, version), "Your copy was saved.")


def _discuss(item_id: str, lang: str, version: int, prefix: str) -> None:
    run(
        DoubleCurationService.flag_discuss,
        (item_id, lang, st.session_state.get(prefix + "note", ""), version),
        "Flagged DISCUSS.",
    )


def _discard(item_id: str, lang: str, version: int, prefix: str) -> None:
    reason = st.session_state.get(prefix + "reason")
    note = st.session_state.get(prefix + "discard_note", "")
    run(DoubleCurationService.discard, (item_id, lang, reason, note, version), "Your copy is discarded.")


def editor(item_id: str, lang: str, copy: ItemLanguage) -> None:
    """GOOD and BAD as one candidate per line (the usual §3 rules), and the status actions of the copy."""
    prefix = f"copy|{item_id}|{lang}|{copy.version}|"
    editable = copy.status not in FINISHED
    cols = st.columns(2)
    cols[0].text_area(
        "GOOD (one candidate per line)",
        value="\n".join(e.format() for e in copy.good),
        key=prefix + "good",
        height=200,
        disabled=not editable,
    )
    cols[1].text_area(
        "BAD (one candidate per line)",
        value="\n".join(e.format() for e in copy.bad),
        key=prefix + "bad",
        height=200,
        disabled=not editable,
    )
    if not editable:
        st.info(
            f"Your copy is {components.STATUS_LABEL[copy.status]}. "
            "Reopen it to change it (until every translator has finished)."
        )
        st.button(
            "Reopen my copy",
            key=prefix + "reopen",
            on_click=run,
            args=(DoubleCurationService.reopen, (item_id, lang, copy.version), "Reopened."),
        )
        return
    actions = st.columns(4)
    actions[0].button("Save sets", key=prefix + "save", on_click=_save_sets, args=(item_id, lang, copy.version, prefix))
    actions[1].button(
        "Done",
        key=prefix + "done",
        type="primary",
        on_click=run,
        args=(DoubleCurationService.mark_done, (item_id, lang, copy.version), "Your copy is done."),
        help="Save the sets first: Done keeps the saved sets.",
    )
    with actions[2].popover("DISCUSS"):
        st.text_input("What should a lead decide?", key=prefix + "note")
        st.button("Flag DISCUSS", key=prefix + "discuss", on_click=_discuss, args=(item_id, lang, copy.version, prefix))
    with actions[3].popover("Discard"):
        st.selectbox(
            "Reason",
            [r.value for r in DiscardReason],
            format_func=lambda r: components.REASON_LABEL.get(DiscardReason(r), r),
            key=prefix + "reason",
        )
        st.text_input("Note (needed for 'other')", key=prefix + "discard_note")
        st.button(
            "Discard my copy", key=prefix + "discard", on_click=_discard, args=(item_id, lang, copy.version, prefix)
        )


def render() -> None:
    user = state.current_user()
    if user is None:
        st.stop()
    st.header("Double curation")
    st.caption(
        "Items a lead gave to you and other translators to curate independently. Your copy is private: nobody "
        "else's copy is shown to you, and yours is shown to no other translator. When every copy is finished, a lead "
        "adjudicates them."
    )
    copies = service().my_copies()
    if not copies:
        st.info("No items are assigned to you for double curation.")
        return
    rows = [{"item": c.item_id, "language": c.lang, "status": components.STATUS_LABEL[c.status]} for c in copies]
    st.dataframe(rows, hide_index=True, key="copies_table")
    labels = [f"{c.item_id} [{c.lang}]" for c in copies]
    if st.session_state.get(PICK_KEY) not in labels:
        todo = [label for label, c in zip(labels, copies, strict=True) if c.status not in FINISHED]
        st.session_state[PICK_KEY] = (todo or labels)[0]
    picked = st.selectbox("Copy", labels, key=PICK_KEY)
    chosen = copies[labels.index(picked)]
    try:
        item, copy = service().copy(chosen.item_id, chosen.lang)
    except UserError as error:
        st.error(components.md(str(error)))
        return
    components.render_item_card(ItemView(item, copy, [], []))
    editor(item.id, copy.lang, copy)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
