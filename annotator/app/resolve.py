"""A lead's Resolve form for a DISCUSS item (Curate and Review): done or discarded, with a comment.

The form is Streamlit widgets below the work area; its button runs ``commands.Resolve`` through the one action runner
and says a refusal right under the button, where the click was.
"""

from __future__ import annotations

import streamlit as st

from annotator.app import actions, components, messages
from annotator.domain import commands
from annotator.domain.commands import Address
from annotator.domain.model import DiscardReason, Status
from annotator.services.curation import ItemView

#: Session key suffix: the refusal of the last Resolve click, shown beside the button.
REFUSAL = "resolve_refusal"


def _resolve(item_id: str, lang: str, version: int, keys: dict[str, str]) -> None:
    to = Status(st.session_state.get(keys["to"]) or Status.DONE)
    comment = st.session_state.get(keys["comment"]) or ""
    reason = st.session_state.get(keys["reason"])
    outcome = actions.run(
        Address(item_id, lang), commands.Resolve(to, comment, DiscardReason(reason) if reason else None), version
    )
    if outcome.ok:
        st.session_state[keys["comment"]] = ""
        st.session_state[keys["reason"]] = None
        st.session_state.pop(keys["refusal"], None)
        messages.flash("success", f"Resolved as {components.STATUS_LABEL[to]}.")
    else:
        st.session_state[keys["refusal"]] = outcome.error


def render_resolve_form(view: ItemView, prefix: str) -> None:
    """A lead closes a DISCUSS item as done (after any edits above) or discarded, with a comment."""
    item, il = view.item, view.state
    keys = {
        "to": f"{prefix}resolve_to",
        "comment": f"{prefix}resolve_comment",
        "reason": f"{prefix}resolve_reason",
        "refusal": f"{prefix}{REFUSAL}",
    }
    with st.container(border=True):
        st.markdown("**Resolve this DISCUSS item**")
        to = st.radio(
            "Resolve as",
            [Status.DONE, Status.DISCARDED],
            format_func=lambda s: components.STATUS_LABEL[Status(s)],
            key=keys["to"],
            horizontal=True,
        )
        if to == Status.DISCARDED:
            st.selectbox(
                "Discard reason",
                list(DiscardReason),
                index=None,
                format_func=lambda r: components.REASON_LABEL[DiscardReason(r)],
                key=keys["reason"],
                placeholder="other (the comment is the note)",
            )
        st.text_area("Comment (required; goes into the thread)", key=keys["comment"], height=80)
        st.button(
            "Resolve",
            key=f"{prefix}resolve",
            type="primary",
            on_click=_resolve,
            args=(item.id, il.lang, il.version, keys),
        )
        refusal = st.session_state.pop(keys["refusal"], None)
        if refusal:  # right under the button, where the click was
            st.error(components.md(refusal), icon=":material/block:")
