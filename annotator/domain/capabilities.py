"""What a user may do to an item-language (or their double-curation copy) now: decided here, shown by every page.

Each answer is the ``workflow`` predicate the command's rule checks (``may_reopen``, ``may_edit_lists``…), asked
here without acting, so a button is enabled exactly when its command would be accepted and no page restates a
right. The texts carry no key hints: the page that draws a button adds its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotator.domain import workflow
from annotator.domain.model import ItemLanguage, Status, User


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
    #: Why Reopen is not offered on a finished item ("" when it is, or when it does not apply).
    reopen_refused: str = ""


def capabilities(user: User, il: ItemLanguage, copy_statuses: Sequence[Status] | None = None) -> Capabilities:
    """What ``user`` may do to ``il`` now. ``copy_statuses`` (every copy's status) makes ``il`` a double-curation
    copy owned by ``user``: edited while open, reopened until every copy is finished, no thread, no undo."""
    language = workflow.may_change_language(user, il.lang)
    may = language.allowed
    if copy_statuses is not None:
        return _copy_capabilities(il, copy_statuses, may)
    edit = may and workflow.may_edit_lists(user, il).allowed
    status_ok = may and workflow.may_set_status(il).allowed
    reopening = workflow.may_reopen(user, il)
    reopen = may and reopening.allowed
    finished = il.status in workflow.FINISHED
    shown = workflow.shown_status(il.status)
    if not may:
        locked = f"You may not change {il.lang} items."
    elif finished:
        locked = f"This item is {shown}: " + ("reopen it to edit." if reopen else "only a lead may reopen it.")
    elif not edit:
        locked = "Waiting for a lead (DISCUSS): only a lead can change it now."
    else:
        locked = ""
    refused = f"This item is {shown}; only a lead may reopen it." if finished and may and not reopen else ""
    return Capabilities(
        edit=edit,
        done=status_ok,
        discuss=status_ok,
        discard=status_ok,
        reopen=reopen,
        resolve=may and workflow.may_resolve(user, il).allowed,
        undo=may,
        comment=may,
        locked=locked,
        reopen_refused=refused,
    )


def _copy_capabilities(copy: ItemLanguage, copy_statuses: Sequence[Status], may: bool) -> Capabilities:
    edit = may and workflow.may_edit_copy(copy).allowed
    reopen = may and workflow.may_reopen_copy(copy, copy_statuses).allowed
    if not may:
        locked = f"You may not change {copy.lang} items."
    elif edit:
        locked = ""
    else:
        locked = f"Your copy is {workflow.shown_status(copy.status)}: " + (
            "reopen it to change it." if reopen else "every copy is finished; a lead adjudicates them."
        )
    return Capabilities(
        edit=edit, done=edit, discuss=edit, discard=edit, reopen=reopen,
        resolve=False, undo=False, comment=False, locked=locked,
    )  # fmt: skip
