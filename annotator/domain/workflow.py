"""Curation workflow (SPEC §5): who may do what to an item-language, and the state each action leaves.

Pure functions from (user, current state, request) to the new state, so the rules hold whether the change
comes from the browser, the spreadsheet import or the command line; the service layer only persists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

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

#: States whose candidate lists may change (DISCUSS only for its flagger and leads: ``may_edit_lists``).
EDITABLE = (Status.PENDING, Status.IN_PROGRESS, Status.DISCUSS)
#: States a status action (Done, DISCUSS, Discard) starts from.
OPEN = (Status.PENDING, Status.IN_PROGRESS)
#: An item-language is finished when its curation is closed: done or discarded. A DISCUSS item still waits for a
#: lead's resolution, so it is not finished (the Curate progress line, the Review progress table).
FINISHED = (Status.DONE, Status.DISCARDED)
#: A double-curation copy is finished when its translator's decision is made: done, discarded, or DISCUSS — on a
#: copy DISCUSS is the translator's answer ("unsure"), which the lead weighs when adjudicating, not a request that
#: a lead resolve the copy. Every copy finished puts the item-language with a lead for adjudication.
COPY_FINISHED = (Status.DONE, Status.DISCUSS, Status.DISCARDED)

SIDE_LABEL = {Side.GOOD: "GOOD", Side.BAD: "BAD"}


def status_word(status: Status) -> str:
    """A status as people read it in messages: "in progress", never the stored ``in_progress``."""
    return status.value.replace("_", " ")


class WorkflowError(UserError):
    """The action is not possible in the item-language's current state."""


class Verdict(NamedTuple):
    """A right's answer: allowed, or why not in a translator's words (no key hints: the page adds those) and the
    error a refused command raises."""

    allowed: bool
    reason: str = ""
    refusal: type[UserError] = WorkflowError

    def check(self) -> None:
        """Raise the refusal when not allowed (what ``decide`` does with a verdict)."""
        if not self.allowed:
            raise self.refusal(self.reason)


ALLOWED = Verdict(True)


def _where(il: ItemLanguage) -> str:
    return f"{il.item_id} [{il.lang}]"


def shown_status(status: Status) -> str:
    """A status inside a sentence: "done", "in progress", but "DISCUSS" (the name translators know it by)."""
    return "DISCUSS" if status is Status.DISCUSS else status_word(status)


# --- rights: each answered by one predicate, used by the rules below (``decide``) and by ``capabilities`` ---------


def may_change_language(user: User, lang: str) -> Verdict:
    """An enabled lead changes every language, a translator only their own."""
    if user.disabled:
        return Verdict(False, f"User {user.name!r} is disabled.", PermissionDenied)
    if not user.may_edit(lang):
        langs = ", ".join(user.languages) or "none"
        return Verdict(False, f"{user.name} may not change {lang} items (their languages: {langs}).", PermissionDenied)
    return ALLOWED


def may_edit_lists(user: User, il: ItemLanguage) -> Verdict:
    """The candidate lists change while the item is open, or DISCUSS for its flagger and the leads."""
    if il.status not in EDITABLE:
        return Verdict(False, f"{_where(il)} is {status_word(il.status)}: reopen it before editing.")
    if il.status is Status.DISCUSS and not user.is_lead and il.status_by != user.name:
        return Verdict(False, f"{_where(il)} is waiting for a lead (DISCUSS).")
    return ALLOWED


def may_set_status(il: ItemLanguage) -> Verdict:
    """Done, DISCUSS and Discard start from an open item (a DISCUSS item is closed by a lead's resolution)."""
    if il.status is Status.DISCUSS:
        return Verdict(
            False, f"{_where(il)} is DISCUSS: a lead resolves it with a comment (Review page, or 'resolve')."
        )
    if il.status not in OPEN:
        return Verdict(False, f"{_where(il)} is {status_word(il.status)}: reopen it first.")
    return ALLOWED


def may_reopen(user: User, il: ItemLanguage) -> Verdict:
    """Translators reopen the done items they finished; leads reopen anything done or discarded (SPEC §5)."""
    if il.status is Status.DONE:
        if not user.is_lead and il.status_by != user.name:
            return Verdict(
                False, f"Only {il.status_by or 'its translator'} or a lead may reopen this done item.", PermissionDenied
            )
        return ALLOWED
    if il.status is Status.DISCARDED:
        if not user.is_lead:
            return Verdict(False, "Only a lead may reopen a discarded item.", PermissionDenied)
        return ALLOWED
    return Verdict(False, f"{_where(il)} is {status_word(il.status)}; only done or discarded items reopen.")


def may_resolve(user: User, il: ItemLanguage) -> Verdict:
    """A lead closes a DISCUSS item (done or discarded, with a comment)."""
    if user.disabled or not user.is_lead:
        return Verdict(False, "Only a lead may resolve a DISCUSS item.", PermissionDenied)
    if il.status is not Status.DISCUSS:
        return Verdict(False, f"{_where(il)} is {status_word(il.status)}, not DISCUSS.")
    return ALLOWED


def may_rewrite_discuss_note(user: User, il: ItemLanguage) -> Verdict:
    """The note is the flagger's question: only the translator who flagged the item (or a lead) changes it."""
    if il.status is not Status.DISCUSS:
        return Verdict(False, f"{_where(il)} is {status_word(il.status)}, not DISCUSS.")
    if not user.is_lead and il.status_by != user.name:
        who = f" ({il.status_by})" if il.status_by else ""
        return Verdict(
            False,
            f"Only the translator who flagged {_where(il)}{who} or a lead may rewrite its DISCUSS note; "
            "add a comment instead.",
            PermissionDenied,
        )
    return ALLOWED


def may_edit_copy(copy: ItemLanguage) -> Verdict:
    """A double-curation copy changes (lists and status) only while open: DISCUSS on a copy is a finished decision."""
    if copy.status not in OPEN:
        return Verdict(False, f"Your copy of {_where(copy)} is {shown_status(copy.status)}: reopen it before editing.")
    return ALLOWED


def may_reopen_copy(copy: ItemLanguage, copy_statuses: Sequence[Status]) -> Verdict:
    """A finished copy reopens until every copy is finished (then it is with a lead for adjudication)."""
    if copy.status not in COPY_FINISHED:
        return Verdict(False, f"Your copy of {_where(copy)} is not finished.")
    if copy_statuses and all(status in COPY_FINISHED for status in copy_statuses):
        return Verdict(False, f"Every copy of {_where(copy)} is finished: it is with a lead for adjudication.")
    return ALLOWED


def may_adjudicate(user: User, copy_statuses: Sequence[Status], waiting: Sequence[str] = ()) -> Verdict:
    """A lead adjudicates an assigned item-language once every copy is finished."""
    if user.disabled or not user.is_lead:
        return Verdict(False, "Only a lead may adjudicate double-curated items.", PermissionDenied)
    if not copy_statuses or not all(status in COPY_FINISHED for status in copy_statuses):
        who = f": waiting for {', '.join(waiting)}" if waiting else ""
        return Verdict(False, f"Not every copy is finished yet{who}.")
    return ALLOWED


def check_can_edit(user: User, lang: str) -> None:
    may_change_language(user, lang).check()


def check_lead(user: User, action: str) -> None:
    if user.disabled or not user.is_lead:
        raise PermissionDenied(f"Only a lead may {action}.")


def check_editable(il: ItemLanguage, user: User) -> None:
    may_edit_lists(user, il).check()


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


def mark_done(user: User, il: ItemLanguage, resolving: bool = False) -> ItemLanguage:
    check_can_edit(user, il.lang)
    (may_resolve(user, il) if resolving else may_set_status(il)).check()
    if not il.good:
        raise WorkflowError("An item needs at least one GOOD candidate to be done (or discard it with a reason).")
    return replace(il, status=Status.DONE, status_by=user.name)


def flag_discuss(user: User, il: ItemLanguage, note: str) -> ItemLanguage:
    check_can_edit(user, il.lang)
    if not note.strip():
        raise WorkflowError("DISCUSS needs a note saying what to discuss.")
    may_set_status(il).check()
    return replace(il, status=Status.DISCUSS, discuss_note=note.strip(), status_by=user.name)


def update_discuss_note(user: User, il: ItemLanguage, note: str) -> ItemLanguage:
    """Rewrite the note of a DISCUSS item (``may_rewrite_discuss_note``)."""
    check_can_edit(user, il.lang)
    may_rewrite_discuss_note(user, il).check()
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
    (may_resolve(user, il) if resolving else may_set_status(il)).check()
    return replace(il, status=Status.DISCARDED, discard_reason=reason, discard_note=note.strip(), status_by=user.name)


def reopen(user: User, il: ItemLanguage) -> ItemLanguage:
    """Back to in progress (``may_reopen``)."""
    check_can_edit(user, il.lang)
    may_reopen(user, il).check()
    return replace(il, status=Status.IN_PROGRESS, discard_reason=None, discard_note="", status_by=user.name)


def reopen_copy(copy: ItemLanguage, copy_statuses: Sequence[Status]) -> ItemLanguage:
    """A finished double-curation copy back to in progress (``may_reopen_copy``)."""
    may_reopen_copy(copy, copy_statuses).check()
    return replace(copy, status=Status.IN_PROGRESS, discard_reason=None, discard_note="", discuss_note="")


def resolve_discussion(
    user: User, il: ItemLanguage, to: Status, comment: str, reason: DiscardReason | str | None = None
) -> ItemLanguage:
    """A lead closes a DISCUSS item as done or discarded; the comment is required and kept in the thread."""
    may_resolve(user, il).check()
    if not comment.strip():
        raise WorkflowError("Resolving a DISCUSS item needs a comment.")
    if to is Status.DONE:
        return mark_done(user, il, resolving=True)
    if to is Status.DISCARDED:
        return discard(user, il, reason or DiscardReason.OTHER, comment, resolving=True)
    raise WorkflowError("A DISCUSS item resolves to done or discarded.")
