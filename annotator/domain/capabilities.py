"""What a user may do to an item-language (or their double-curation copy) now: decided here, shown by every page.

The pages draw buttons enabled or not and say why an edit is locked from ``capabilities``; the rules themselves are
``annotator.domain.workflow``'s (and the copy rules in ``annotator.domain.commands``), which the service enforces on
every change anyway. Keeping the "may I?" answers next to those rules means no page restates a permission.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotator.domain import workflow
from annotator.domain.commands import FINISHED
from annotator.domain.model import ItemLanguage, Status, User

OPEN = (Status.PENDING, Status.IN_PROGRESS)


@dataclass(frozen=True)
class Capabilities:
    """Which actions the page offers; ``locked`` says in a translator's words why the lists cannot be edited."""

    edit: bool
    done: bool
    discuss: bool
    discard: bool
    reopen: bool
    resolve: bool
    undo: bool
    comment: bool
    locked: str = ""
    #: Why Reopen is not offered on a done/discarded item ("" when it is, or when it does not apply).
    reopen_refused: str = ""


def _status(il: ItemLanguage) -> str:
    return workflow.status_word(il.status) if il.status is not Status.DISCUSS else "DISCUSS"


def capabilities(user: User, il: ItemLanguage, copy_statuses: Sequence[Status] | None = None) -> Capabilities:
    """What ``user`` may do to ``il`` now. ``copy_statuses`` (every copy's status) makes ``il`` a double-curation
    copy owned by ``user``: edited while open, reopened until every copy is finished, no thread, no undo."""
    may = user.may_edit(il.lang)
    open_status = il.status in OPEN
    if copy_statuses is not None:
        all_finished = bool(copy_statuses) and all(s in FINISHED for s in copy_statuses)
        reopen = may and il.status in FINISHED and not all_finished
        locked = (
            ""
            if may and open_status
            else (
                f"Your copy is {_status(il)}: "
                + ("reopen it (o) to change it." if reopen else "every copy is finished; a lead adjudicates them.")
            )
        )
        if not may:
            locked = f"You may not change {il.lang} items."
        return Capabilities(
            edit=may and open_status, done=may and open_status, discuss=may and open_status,
            discard=may and open_status, reopen=reopen, resolve=False, undo=False, comment=False, locked=locked,
        )  # fmt: skip
    edit = may and il.status in workflow.EDITABLE
    if il.status is Status.DISCUSS and not user.is_lead and il.status_by != user.name:
        edit = False
    if il.status is Status.DONE:
        reopen = may and (user.is_lead or il.status_by == user.name)
    else:
        reopen = may and il.status is Status.DISCARDED and user.is_lead
    if not may:
        locked = f"You may not change {il.lang} items."
    elif il.status in (Status.DONE, Status.DISCARDED):
        locked = f"This item is {_status(il)}: " + (
            "reopen it (o) to edit." if reopen else "only a lead may reopen it."
        )
    elif not edit:
        locked = "Waiting for a lead (DISCUSS): only a lead can change it now."
    else:
        locked = ""
    refused = ""
    if il.status in (Status.DONE, Status.DISCARDED) and may and not reopen:
        refused = f"This item is {_status(il)}; only a lead may reopen it."
    return Capabilities(
        edit=edit,
        done=may and open_status,
        discuss=may and open_status,
        discard=may and open_status,
        reopen=reopen,
        resolve=may and user.is_lead and il.status is Status.DISCUSS,
        undo=may,
        comment=may,
        locked=locked,
        reopen_refused=refused,
    )
