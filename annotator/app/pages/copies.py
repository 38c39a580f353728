"""Double curation page (translators): the queue of one's own copies and the work area on one copy.

A translator given an item-language for double curation edits a private copy here in the same work area as Curate
(``annotator.app.work_area``): GOOD/BAD lists, Done, DISCUSS, Discard, Reopen while the others are still working —
each a command to the one curation service, addressed to the user's copy. Only the user's own copies are ever
read: the service refuses anything else. Untrusted text is shown as text, never as raw Markdown.
"""

from __future__ import annotations

import functools

import streamlit as st

from annotator.app import components, project_cache, session, work_area
from annotator.domain import queue_navigation, workflow
from annotator.domain.commands import Address
from annotator.domain.model import ItemLanguage
from annotator.errors import UserError
from annotator.services.double_curation import DoubleCurationService

PICK_KEY = "copies_pick"


def service() -> DoubleCurationService:
    user = session.current_user()
    if user is None:
        raise UserError("Please log in again: your session has ended.")
    return DoubleCurationService(project_cache.get_project(), user)


def _step(labels: list[str], delta: int) -> None:
    """Next / Previous in the work area: the neighbouring copy of the list."""
    target = queue_navigation.step(labels, st.session_state.get(PICK_KEY), delta)
    if target is not None:
        st.session_state[PICK_KEY] = target


def _next_open(labels: list[str], _saved: ItemLanguage) -> None:
    """After Done / DISCUSS / Discard on a copy: on to the next copy of the list, if there is one."""
    _step(labels, +1)


def render() -> None:
    user = session.current_user()
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
        todo = [label for label, c in zip(labels, copies, strict=True) if c.status not in workflow.COPY_FINISHED]
        st.session_state[PICK_KEY] = (todo or labels)[0]
    picked = st.selectbox("Copy", labels, key=PICK_KEY)
    where = queue_navigation.position(labels, picked)
    chosen = copies[where.at]
    address = Address(chosen.item_id, chosen.lang, user.name)
    try:
        view = session.service(user).view_of(address)
    except UserError as error:
        st.error(components.md(str(error)))
        return
    nav = {
        "position": f"Copy {where.at + 1} of {where.total} · {picked}",
        "progress": f"{sum(c.status in workflow.COPY_FINISHED for c in copies)} of {len(copies)} finished",
        "previous": where.has_previous,
        "next": where.has_next,
    }
    hooks = work_area.Hooks(
        left=functools.partial(_next_open, labels),
        step=functools.partial(_step, labels),
        current=lambda: (st.session_state.get(PICK_KEY) or "").split(" [")[0] or None,
    )
    prefix = f"copy|{chosen.item_id}|{chosen.lang}|"
    work_area.render(view, user, work_area.Place(address, prefix, nav, hooks))


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
