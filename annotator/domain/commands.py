"""Every change to an item-language as one typed command (issue 32), and the rule each command applies.

A command is a frozen dataclass saying *what* to do (add this candidate to GOOD, mark done…); ``Address`` says *to
what*: an item-language, or one translator's double-curation copy of it. ``decide`` turns (who, the item, the state
now, the command) into the new state plus the history row's action and detail — pure, so the browser, the
spreadsheet import and the command line get the same rules, and the one service (``CurationService.handle``) only
loads, checks the version, calls ``decide`` and saves. A new kind of change is one dataclass and one entry in
``RULES``; every page's action runner and the work area's events reach it through ``handle``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from annotator.domain import undo, unicode_rules, workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.edits import apply_candidate_sets
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    HistoryEntry,
    Item,
    ItemLanguage,
    Side,
    Status,
    SuggestedFrom,
    User,
)
from annotator.domain.suggestions import Suggestion
from annotator.errors import UserError

#: Copy states that count as finished: the translator's decision is made.
FINISHED = (Status.DONE, Status.DISCUSS, Status.DISCARDED)


@dataclass(frozen=True)
class Address:
    """Which state a command changes: the item-language itself, or ``copy_of``'s private double-curation copy."""

    item_id: str
    lang: str
    copy_of: str | None = None

    @property
    def is_copy(self) -> bool:
        return self.copy_of is not None

    def __str__(self) -> str:
        return f"{self.item_id} [{self.lang}]" + (f" (copy of {self.copy_of})" if self.copy_of else "")


# --- the commands ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddCandidate:
    side: Side
    text: str


@dataclass(frozen=True)
class AddCandidates:
    """A pasted list, one candidate per line, as one change: all or nothing, every bad line named."""

    side: Side
    lines: tuple[str, ...]


@dataclass(frozen=True)
class RemoveCandidate:
    key: str


@dataclass(frozen=True)
class MoveCandidate:
    """Move to ``to``; None moves it to the other list from the one it is in."""

    key: str
    to: Side | None = None


@dataclass(frozen=True)
class ReplaceCandidates:
    """Set G and B to exactly these lines (the sheet import's edit), keeping what is known of existing ones."""

    good: tuple[str, ...]
    bad: tuple[str, ...]
    action: str = "edit"


@dataclass(frozen=True)
class MarkDone:
    pass


@dataclass(frozen=True)
class FlagDiscuss:
    note: str


@dataclass(frozen=True)
class UpdateDiscussNote:
    note: str


@dataclass(frozen=True)
class Discard:
    reason: DiscardReason | None
    note: str = ""


@dataclass(frozen=True)
class Reopen:
    pass


@dataclass(frozen=True)
class Resolve:
    to: Status
    comment: str
    reason: DiscardReason | None = None


@dataclass(frozen=True)
class Undo:
    """Undo the user's last change (undoing an undo redoes it: ``annotator.domain.undo``)."""


@dataclass(frozen=True)
class PostComment:
    """A comment in the item-language's thread: no state change, so no version check."""

    text: str


@dataclass(frozen=True)
class AcceptSuggestion:
    """A suggested candidate (text, for ``side``) taken into the list: an add that names where it came from."""

    side: Side
    text: str


@dataclass(frozen=True)
class DismissSuggestion:
    """A suggested candidate turned down, for the user who dismisses it only: it is not offered to them there again.
    Personal (``PERSONAL``): no candidate, version or history row changes, so nobody's open page or undo is touched."""

    side: Side
    text: str


@dataclass(frozen=True)
class RestoreSuggestion:
    """The user's dismissal of ``text`` taken back (``u`` right after a dismissal): it is offered to them again."""

    text: str


Command = (
    AddCandidate
    | AddCandidates
    | RemoveCandidate
    | MoveCandidate
    | ReplaceCandidates
    | MarkDone
    | FlagDiscuss
    | UpdateDiscussNote
    | Discard
    | Reopen
    | Resolve
    | Undo
    | PostComment
    | AcceptSuggestion
    | DismissSuggestion
    | RestoreSuggestion
)


# --- deciding -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """What a rule sees: who acts, the item, the state now, and what the store read for it."""

    user: User
    item: Item
    current: ItemLanguage
    address: Address
    #: The item-language's history, oldest first (read only for the commands in ``NEEDS_HISTORY``).
    history: Sequence[HistoryEntry] = ()
    #: For a copy: the statuses of every copy of the item-language (the owner's included).
    copy_statuses: Sequence[Status] = ()
    #: What the user is offered now on the item-language (read only for the commands in ``NEEDS_SUGGESTIONS``).
    suggestions: Sequence[Suggestion] = ()


@dataclass(frozen=True)
class Change:
    """A rule's outcome: the new state, its history row (action and detail) and a comment for the thread."""

    new: ItemLanguage
    action: str
    detail: dict[str, Any] = field(default_factory=dict)
    comment: str = ""


Rule = Callable[[Situation, Any], Change]


def _check_copy_editable(s: Situation) -> None:
    """A copy is edited only while open: DISCUSS on a copy is the translator's finished decision."""
    if s.address.is_copy and s.current.status not in (Status.PENDING, Status.IN_PROGRESS):
        raise workflow.WorkflowError(
            f"Your copy of {s.current.item_id} [{s.current.lang}] is {workflow.status_word(s.current.status)}: "
            "reopen it before editing."
        )


def _not_on_copies(what: str) -> Callable[[Situation], None]:
    def check(s: Situation) -> None:
        if s.address.is_copy:
            raise workflow.WorkflowError(f"A double-curation copy has no {what}.")

    return check


def with_provenance(il: ItemLanguage, side: Side) -> ItemLanguage:
    """A candidate added back after its removal gets its pre-populated origin and synsets back (it is the lexicon's
    suggestion, not a translator's addition); ``workflow.add_candidate`` appends the new entry last."""
    added = il.side(side)[-1]
    original = next((e for e in (*il.initial_good, *il.initial_bad) if e.key == added.key), None)
    if original is None or (original.origin is added.origin and original.synsets == added.synsets):
        return il
    kept = (*il.side(side)[:-1], replace(added, origin=original.origin, synsets=original.synsets))
    return replace(il, good=kept) if side is Side.GOOD else replace(il, bad=kept)


def _add_one(s: Situation, il: ItemLanguage, side: Side, raw: str) -> ItemLanguage:
    added = workflow.add_candidate(s.user, il, side, parse_candidate(raw, s.item.target.pos))
    return added if s.address.is_copy else with_provenance(added, side)


def _add(s: Situation, c: AddCandidate) -> Change:
    _check_copy_editable(s)
    return Change(
        _add_one(s, s.current, Side(c.side), c.text), "add", {"side": Side(c.side).value, "candidate": c.text}
    )


def _add_many(s: Situation, c: AddCandidates) -> Change:
    _check_copy_editable(s)
    side = Side(c.side)
    entries = [(number, line.strip()) for number, line in enumerate(c.lines, 1) if line.strip()]
    if not entries:
        raise UserError("Nothing to add: write one candidate per line.")
    problems, new = [], s.current
    for number, raw in entries:
        try:
            new = _add_one(s, new, side, raw)
        except CandidateError as error:
            rule = f" (rule: {error.rule})" if s.user.is_lead else ""  # rule ids mean something to leads
            problems.append(f"line {number} {raw!r}: {error.message}{rule}")
        except UserError as error:
            problems.append(f"line {number} {raw!r}: {error}")
    if problems:
        raise UserError(f"Nothing added; {len(problems)} bad line(s): " + "; ".join(problems))
    return Change(new, "add", {"side": side.value, "candidates": [raw for _n, raw in entries]})


def _remove(s: Situation, c: RemoveCandidate) -> Change:
    _check_copy_editable(s)
    return Change(workflow.remove_candidate(s.user, s.current, c.key), "remove", {"candidate": c.key})


def _move(s: Situation, c: MoveCandidate) -> Change:
    _check_copy_editable(s)
    to = c.to
    if to is None:
        found = s.current.find(c.key)
        to = (Side.BAD if found[0] is Side.GOOD else Side.GOOD) if found else Side.GOOD
    to = Side(to)
    new = workflow.move_candidate(s.user, s.current, c.key, to)
    return Change(new, "move", {"candidate": c.key, "to": to.value})


def _replace(s: Situation, c: ReplaceCandidates) -> Change:
    _check_copy_editable(s)
    new = apply_candidate_sets(s.user, s.item, s.current, list(c.good), list(c.bad))
    return Change(new, c.action, {"good": list(c.good), "bad": list(c.bad)})


def _done(s: Situation, _c: MarkDone) -> Change:
    return Change(workflow.mark_done(s.user, s.current), "done")


def _discuss(s: Situation, c: FlagDiscuss) -> Change:
    new = workflow.flag_discuss(s.user, s.current, c.note)
    return Change(new, "discuss", {"note": c.note}, comment="" if s.address.is_copy else c.note)


def _discuss_note(s: Situation, c: UpdateDiscussNote) -> Change:
    _not_on_copies("DISCUSS thread")(s)
    new = workflow.update_discuss_note(s.user, s.current, c.note)
    return Change(new, "discuss_note", {"note": c.note}, comment=c.note)


def _discard(s: Situation, c: Discard) -> Change:
    new = workflow.discard(s.user, s.current, c.reason, c.note)
    return Change(new, "discard", {"reason": str(c.reason or ""), "note": c.note})


def _reopen(s: Situation, _c: Reopen) -> Change:
    il = s.current
    if not s.address.is_copy:
        return Change(workflow.reopen(s.user, il), "reopen")
    if il.status not in FINISHED:
        raise workflow.WorkflowError(f"Your copy of {il.item_id} [{il.lang}] is not finished.")
    if s.copy_statuses and all(status in FINISHED for status in s.copy_statuses):
        raise workflow.WorkflowError(
            f"Every copy of {il.item_id} [{il.lang}] is finished: it is with a lead for adjudication."
        )
    new = replace(il, status=Status.IN_PROGRESS, discard_reason=None, discard_note="", discuss_note="")
    return Change(new, "reopen")


def _resolve(s: Situation, c: Resolve) -> Change:
    _not_on_copies("resolution (a lead adjudicates the copies)")(s)
    to = Status(c.to)
    new = workflow.resolve_discussion(s.user, s.current, to, c.comment, c.reason)
    return Change(new, "resolve", {"to": to.value, "comment": c.comment}, comment=c.comment)


def _undo(s: Situation, _c: Undo) -> Change:
    _not_on_copies("undo: change it back by hand")(s)
    plan = undo.plan_undo(s.user, s.current, s.history)
    return Change(plan.restored, undo.UNDO_ACTION, plan.detail)


def _comment(s: Situation, c: PostComment) -> Change:
    _not_on_copies("discussion thread")(s)
    if not c.text.strip():
        raise UserError("A comment cannot be empty.")
    return Change(s.current, "comment", comment=c.text)


def offered(s: Situation, key: str) -> Suggestion | None:
    """The suggestion standing for candidate ``key`` among those the user is offered now, if any."""
    return next((suggestion for suggestion in s.suggestions if suggestion.key == key), None)


def _tagged(il: ItemLanguage, side: Side, key: str, origin: SuggestedFrom) -> ItemLanguage:
    """``il`` with the candidate ``key`` of ``side`` marked as accepted from ``origin``."""
    kept = tuple(replace(e, suggested=origin) if e.key == key else e for e in il.side(side))
    return replace(il, good=kept) if side is Side.GOOD else replace(il, bad=kept)


def _accept(s: Situation, c: AcceptSuggestion) -> Change:
    """Only a text the user is offered now is accepted as a suggestion: the candidate keeps where it came from
    (source, relation, synset: the card and the export show it) and the history row names them
    (``suggestion_source``, ``suggestion_relation``, ``suggestion_synset``). Any other text (a forged event, a
    suggestion gone since) is an ordinary add. A suggestion for the side other than the one the word stands in (a
    related-sense word pre-population put in BAD, proposed for GOOD) is the move of that candidate (SPEC §3)."""
    _check_copy_editable(s)
    side = Side(c.side)
    candidate = parse_candidate(c.text, s.item.target.pos)
    key = CandidateEntry(candidate.text, candidate.pos).key
    suggestion = offered(s, key)
    if suggestion is None or s.address.is_copy:
        return _add(s, AddCandidate(side, c.text))
    origin = SuggestedFrom(suggestion.source, suggestion.relation, suggestion.synset)
    detail: dict[str, Any] = {"side": side.value, "candidate": candidate.format()}
    found = s.current.find(key)
    if found is not None and found[0] is not side:
        new = workflow.move_candidate(s.user, s.current, key, side)
        detail["moved"] = True
    else:
        new = _add_one(s, s.current, side, c.text)
    detail |= {"suggestion_source": origin.source, "suggestion_relation": origin.relation,
               "suggestion_synset": origin.synset}  # fmt: skip
    return Change(_tagged(new, side, key, origin), ACCEPT_ACTION, detail)


def _dismiss(s: Situation, c: DismissSuggestion) -> Change:
    """Rights only (the user may edit the item-language now); the service keeps the dismissal for the user alone."""
    _not_on_copies("suggestions")(s)
    workflow.check_can_edit(s.user, s.current.lang)
    workflow.check_editable(s.current, s.user)
    parse_candidate(c.text, s.item.target.pos)  # a suggestion is a candidate: nonsense is refused, named
    return Change(s.current, DISMISS_ACTION, {"side": Side(c.side).value, "candidate": c.text})


def _restore(s: Situation, c: RestoreSuggestion) -> Change:
    _not_on_copies("suggestions")(s)
    workflow.check_can_edit(s.user, s.current.lang)
    return Change(s.current, "restore_suggestion", {"candidate": c.text})


#: The history action of an accepted suggestion; the action a dismissal is named by (it writes no history row).
ACCEPT_ACTION, DISMISS_ACTION = "accept_suggestion", "dismiss_suggestion"


#: The rule of every command kind: the one place a new kind is added.
RULES: dict[type, Rule] = {
    AddCandidate: _add,
    AddCandidates: _add_many,
    RemoveCandidate: _remove,
    MoveCandidate: _move,
    ReplaceCandidates: _replace,
    MarkDone: _done,
    FlagDiscuss: _discuss,
    UpdateDiscussNote: _discuss_note,
    Discard: _discard,
    Reopen: _reopen,
    Resolve: _resolve,
    Undo: _undo,
    PostComment: _comment,
    AcceptSuggestion: _accept,
    DismissSuggestion: _dismiss,
    RestoreSuggestion: _restore,
}
#: Commands whose rule reads the history (only these pay for reading it).
NEEDS_HISTORY: tuple[type, ...] = (Undo,)
#: Commands whose rule reads what the user is offered now (``Situation.suggestions``).
NEEDS_SUGGESTIONS: tuple[type, ...] = (AcceptSuggestion, DismissSuggestion)
#: Commands that change no state and carry no version (the thread only).
UNVERSIONED: tuple[type, ...] = (PostComment,)
#: Commands that change only what the acting user is offered: no version check, no version bump, no history row.
PERSONAL: tuple[type, ...] = (DismissSuggestion, RestoreSuggestion)


def check_storable(address: Address, command: Any) -> None:
    """Refuse, naming the field, any text of the address or the command no database can hold (a lone surrogate, a
    NUL: a forged event's), before anything is read or written (``unicode_rules.UnstorableTextError``)."""
    unicode_rules.check_storable("item id", address.item_id)
    unicode_rules.check_storable("language", address.lang)
    if address.copy_of is not None:
        unicode_rules.check_storable("translator", address.copy_of)
    if isinstance(command, (AddCandidate, AcceptSuggestion, DismissSuggestion, RestoreSuggestion)):
        unicode_rules.check_storable("candidate", command.text)
    elif isinstance(command, AddCandidates):
        for number, line in enumerate(command.lines, 1):
            if line.strip():
                unicode_rules.check_storable(f"candidate on line {number}", line)
    elif isinstance(command, (RemoveCandidate, MoveCandidate)):
        unicode_rules.check_storable("candidate", command.key)
    elif isinstance(command, ReplaceCandidates):
        unicode_rules.check_storable_lines("GOOD candidate", command.good)
        unicode_rules.check_storable_lines("BAD candidate", command.bad)
    elif isinstance(command, (FlagDiscuss, UpdateDiscussNote)):
        unicode_rules.check_storable("DISCUSS note", command.note)
    elif isinstance(command, Discard):
        unicode_rules.check_storable("discard note", command.note)
    elif isinstance(command, (Resolve, PostComment)):
        unicode_rules.check_storable("comment", command.comment if isinstance(command, Resolve) else command.text)


def decide(situation: Situation, command: Any) -> Change:
    """The change ``command`` makes in ``situation`` (``UserError`` and subclasses say why it cannot)."""
    rule = RULES.get(type(command))
    if rule is None:
        raise TypeError(f"not a command: {command!r}")
    return rule(situation, command)
