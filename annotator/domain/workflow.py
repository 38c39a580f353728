"""Curation workflow (SPEC §5): who may do what to an item-language, and the state each action leaves.

Pure functions from (user, current state, request) to the new state, so the rules hold whether the change
comes from the browser, the spreadsheet import or the command line; the service layer only persists.
"""

from __future__ import annotations

from dataclasses import replace

from annotator.domain.candidates import Candidate
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    ItemLanguage,
    Origin,
    Side,
    Status,
    User,
)
from annotator.errors import PermissionDenied, UserError

EDITABLE = (Status.PENDING, Status.IN_PROGRESS, Status.DISCUSS)

SIDE_LABEL = {Side.GOOD: "GOOD", Side.BAD: "BAD"}


def status_word(status: Status) -> str:
    """A status as people read it in messages: "in progress", never the stored ``in_progress``."""
    return status.value.replace("_", " ")


class WorkflowError(UserError):
    """The action is not possible in the item-language's current state."""


def check_can_edit(user: User, lang: str) -> None:
    if user.disabled:
        raise PermissionDenied(f"User {user.name!r} is disabled.")
    if not user.may_edit(lang):
        langs = ", ".join(user.languages) or "none"
        raise PermissionDenied(f"{user.name} may not change {lang} items (their languages: {langs}).")


def check_lead(user: User, action: str) -> None:
    if user.disabled or not user.is_lead:
        raise PermissionDenied(f"Only a lead may {action}.")


def check_editable(il: ItemLanguage, user: User) -> None:
    if il.status not in EDITABLE:
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}: reopen it before editing.")
    if il.status is Status.DISCUSS and not user.is_lead and il.status_by != user.name:
        raise WorkflowError(f"{il.item_id} [{il.lang}] is waiting for a lead (DISCUSS).")


def status_after_edit(il: ItemLanguage) -> Status:
    return Status.IN_PROGRESS if il.status is Status.PENDING else il.status


def add_candidate(user: User, il: ItemLanguage, side: Side, candidate: Candidate) -> ItemLanguage:
    """Add a translator candidate; refuses duplicates and a candidate already on the other side (move it)."""
    check_can_edit(user, il.lang)
    check_editable(il, user)
    found = il.find(CandidateEntry(candidate.text, candidate.pos).key)
    if found:
        where, existing = found
        if where is side:
            raise WorkflowError(f"{existing.format()!r} is already in {SIDE_LABEL[side]}.")
        raise WorkflowError(
            f"{existing.format()!r} is in {SIDE_LABEL[where]}; a candidate cannot be in both GOOD and BAD — move it."
        )
    entry = CandidateEntry(candidate.text, candidate.pos, Origin.TRANSLATOR, ())
    new_side = (*il.side(side), entry)
    status = status_after_edit(il)
    if side is Side.GOOD:
        return replace(il, status=status, good=new_side)
    return replace(il, status=status, bad=new_side)


def remove_candidate(user: User, il: ItemLanguage, key: str) -> ItemLanguage:
    check_can_edit(user, il.lang)
    check_editable(il, user)
    found = il.find(key)
    if not found:
        raise WorkflowError(f"No candidate {key!r} in {il.item_id} [{il.lang}].")
    side, _entry = found
    kept = tuple(e for e in il.side(side) if e.key != key)
    status = status_after_edit(il)
    if side is Side.GOOD:
        return replace(il, status=status, good=kept)
    return replace(il, status=status, bad=kept)


def move_candidate(user: User, il: ItemLanguage, key: str, to: Side) -> ItemLanguage:
    """Move a candidate between GOOD and BAD, keeping its origin and provenance."""
    check_can_edit(user, il.lang)
    check_editable(il, user)
    found = il.find(key)
    if not found:
        raise WorkflowError(f"No candidate {key!r} in {il.item_id} [{il.lang}].")
    side, entry = found
    if side is to:
        raise WorkflowError(f"{entry.format()!r} is already in {SIDE_LABEL[to]}.")
    source = tuple(e for e in il.side(side) if e.key != key)
    target = (*il.side(to), entry)
    good, bad = (target, source) if to is Side.GOOD else (source, target)
    return replace(il, good=good, bad=bad, status=status_after_edit(il))


def _refuse_unresolved_discussion(il: ItemLanguage) -> None:
    """SPEC §5: a DISCUSS item is closed only by a lead's resolution, which carries a comment."""
    raise WorkflowError(
        f"{il.item_id} [{il.lang}] is DISCUSS: a lead resolves it with a comment (Review page, or 'resolve')."
    )


def mark_done(user: User, il: ItemLanguage, resolving: bool = False) -> ItemLanguage:
    check_can_edit(user, il.lang)
    if il.status is Status.DISCUSS:
        if not resolving:
            _refuse_unresolved_discussion(il)
        check_lead(user, "resolve a DISCUSS item")
    elif il.status not in (Status.PENDING, Status.IN_PROGRESS):
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}; it cannot be marked done.")
    if not il.good:
        raise WorkflowError("An item needs at least one GOOD candidate to be done (or discard it with a reason).")
    return replace(il, status=Status.DONE, status_by=user.name)


def flag_discuss(user: User, il: ItemLanguage, note: str) -> ItemLanguage:
    check_can_edit(user, il.lang)
    if not note.strip():
        raise WorkflowError("DISCUSS needs a note saying what to discuss.")
    if il.status not in (Status.PENDING, Status.IN_PROGRESS):
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}; reopen it before flagging DISCUSS.")
    return replace(il, status=Status.DISCUSS, discuss_note=note.strip(), status_by=user.name)


def update_discuss_note(user: User, il: ItemLanguage, note: str) -> ItemLanguage:
    """Rewrite the note of a DISCUSS item: the note is the flagger's question, so only the translator who
    flagged it (or a lead) may change what it asks."""
    check_can_edit(user, il.lang)
    if il.status is not Status.DISCUSS:
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}, not DISCUSS.")
    if not user.is_lead and il.status_by != user.name:
        who = f" ({il.status_by})" if il.status_by else ""
        raise PermissionDenied(
            f"Only the translator who flagged {il.item_id} [{il.lang}]{who} or a lead may rewrite its DISCUSS note; "
            "add a comment instead."
        )
    if not note.strip():
        raise WorkflowError("DISCUSS needs a note saying what to discuss.")
    return replace(il, discuss_note=note.strip())


def discard(
    user: User, il: ItemLanguage, reason: DiscardReason | str | None, note: str = "", resolving: bool = False
) -> ItemLanguage:
    check_can_edit(user, il.lang)
    if not reason:
        raise WorkflowError(
            "Discarding needs a reason: idiom, proper noun, insufficient context, or other with a note."
        )
    try:
        reason = DiscardReason(reason)
    except ValueError:
        raise WorkflowError(f"Unknown discard reason {reason!r}.") from None
    if reason is DiscardReason.OTHER and not note.strip():
        raise WorkflowError("Discarding for 'other' needs a note.")
    if il.status is Status.DISCUSS:
        if not resolving:
            _refuse_unresolved_discussion(il)
        check_lead(user, "resolve a DISCUSS item")
    elif il.status not in (Status.PENDING, Status.IN_PROGRESS):
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}; reopen it before discarding.")
    return replace(il, status=Status.DISCARDED, discard_reason=reason, discard_note=note.strip(), status_by=user.name)


def reopen(user: User, il: ItemLanguage) -> ItemLanguage:
    """Translators reopen their own done items; leads reopen anything done or discarded."""
    check_can_edit(user, il.lang)
    if il.status is Status.DONE:
        if not user.is_lead and il.status_by != user.name:
            raise PermissionDenied(f"Only {il.status_by or 'its translator'} or a lead may reopen this done item.")
    elif il.status is Status.DISCARDED:
        check_lead(user, "reopen a discarded item")
    else:
        raise WorkflowError(
            f"{il.item_id} [{il.lang}] is {status_word(il.status)}; only done or discarded items reopen."
        )
    return replace(il, status=Status.IN_PROGRESS, discard_reason=None, discard_note="", status_by=user.name)


def resolve_discussion(
    user: User, il: ItemLanguage, to: Status, comment: str, reason: DiscardReason | str | None = None
) -> ItemLanguage:
    """A lead closes a DISCUSS item as done or discarded; the comment is required and kept in the thread."""
    check_lead(user, "resolve a DISCUSS item")
    if il.status is not Status.DISCUSS:
        raise WorkflowError(f"{il.item_id} [{il.lang}] is {status_word(il.status)}, not DISCUSS.")
    if not comment.strip():
        raise WorkflowError("Resolving a DISCUSS item needs a comment.")
    if to is Status.DONE:
        return mark_done(user, il, resolving=True)
    if to is Status.DISCARDED:
        return discard(user, il, reason or DiscardReason.OTHER, comment, resolving=True)
    raise WorkflowError("A DISCUSS item resolves to done or discarded.")
