"""The rule each command applies: ``decide`` turns (who, the item, the state now, the command) into a ``Change``.

Pure, so the browser, the spreadsheet import and the command line get the same rules, and the one service
(``CurationService.handle``) only loads, checks the version, calls ``decide`` and saves. ``RULES`` maps every
kind of the ``commands.Command`` union to its rule (a test checks it covers the union exactly). The ``Change`` a
rule returns says what is written (state and history, a comment, the user's own view, the assignment closed), so
the service has no per-kind branch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from annotator.domain import undo, unicode_rules, workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.commands import (
    AcceptSuggestion,
    AddCandidate,
    AddCandidates,
    Address,
    Adjudicate,
    AdjudicateDiscard,
    Discard,
    DismissSuggestion,
    FlagDiscuss,
    MarkDone,
    MoveCandidate,
    PostComment,
    RemoveCandidate,
    Reopen,
    ReplaceCandidates,
    Resolve,
    RestoreSuggestion,
    Undo,
    UpdateDiscussNote,
)
from annotator.domain.edits import apply_candidate_sets
from annotator.domain.model import (
    CandidateEntry,
    HistoryEntry,
    Item,
    ItemLanguage,
    Side,
    Status,
    SuggestedFrom,
    User,
)
from annotator.domain.suggestions import Suggestion, candidate_key, valid_candidate
from annotator.errors import PermissionDenied, UserError


@dataclass(frozen=True)
class Situation:
    """What a rule sees: who acts, the item, the state now, and what the store read for it."""

    user: User
    item: Item
    current: ItemLanguage
    address: Address
    #: The item-language's history, oldest first (read only for the commands reading ``HISTORY``).
    history: Sequence[HistoryEntry] = ()
    #: For a copy: the statuses of every copy of the item-language (the owner's included).
    copy_statuses: Sequence[Status] = ()
    #: What the user is offered now on the item-language (read only for the commands reading ``SUGGESTIONS``).
    suggestions: Sequence[Suggestion] = ()
    #: The item-language's double-curation assignment: "" (none), "open" or "adjudicated".
    assignment: str = ""
    #: Every copy of an assigned item-language, each seen as an item-language (``status_by``: its translator).
    copies: Sequence[ItemLanguage] = ()


ASSIGNMENT_OPEN, ASSIGNMENT_ADJUDICATED = "open", "adjudicated"


@dataclass(frozen=True)
class Dismissal:
    """A change to what one user is offered: suggestion ``key`` dismissed (with the text, source and relation it was
    offered with) or, ``restore``, offered again."""

    key: str
    text: str = ""
    source: str = ""
    relation: str = ""
    restore: bool = False


@dataclass(frozen=True)
class Change:
    """A rule's outcome and what the service writes for it: the new state with its history row (action and detail)
    when ``records``; a comment for the thread; ``personal``, the acting user's own view instead of any state;
    ``closes_assignment``, the double-curation assignment closed (an adjudication)."""

    new: ItemLanguage
    action: str
    detail: dict[str, Any] = field(default_factory=dict)
    comment: str = ""
    records: bool = True
    personal: Dismissal | None = None
    closes_assignment: bool = False


Rule = Callable[[Situation, Any], Change]


def _check_copy_editable(s: Situation) -> None:
    """A copy is edited only while open (``workflow.may_edit_copy``)."""
    if s.address.is_copy:
        workflow.may_edit_copy(s.current).check()


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
    _check_copy_editable(s)
    return Change(workflow.mark_done(s.user, s.current), "done")


def _discuss(s: Situation, c: FlagDiscuss) -> Change:
    _check_copy_editable(s)
    new = workflow.flag_discuss(s.user, s.current, c.note)
    return Change(new, "discuss", {"note": c.note}, comment="" if s.address.is_copy else c.note)


def _discuss_note(s: Situation, c: UpdateDiscussNote) -> Change:
    _not_on_copies("DISCUSS thread")(s)
    new = workflow.update_discuss_note(s.user, s.current, c.note)
    return Change(new, "discuss_note", {"note": c.note}, comment=c.note)


def _discard(s: Situation, c: Discard) -> Change:
    _check_copy_editable(s)
    new = workflow.discard(s.user, s.current, c.reason, c.note)
    return Change(new, "discard", {"reason": str(c.reason or ""), "note": c.note})


def _reopen(s: Situation, _c: Reopen) -> Change:
    if s.address.is_copy:
        return Change(workflow.reopen_copy(s.current, s.copy_statuses), "reopen")
    return Change(workflow.reopen(s.user, s.current), "reopen")


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
    return Change(s.current, "comment", comment=c.text, records=False)


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


def _shown_key(text: str) -> tuple[str, str]:
    """A suggestion's text as shown and its key (a text that is no valid candidate: its words, spaces folded)."""
    shown = valid_candidate(text) or " ".join(text.split())
    return shown, candidate_key(shown)


def _dismiss(s: Situation, c: DismissSuggestion) -> Change:
    """Rights only (the user may edit the item-language now); the dismissal is kept for the user alone, with the
    suggestion's source and relation when it is one the user is offered (what acceptance rates per kind count)."""
    _not_on_copies("suggestions")(s)
    workflow.check_can_edit(s.user, s.current.lang)
    workflow.check_editable(s.current, s.user)
    parse_candidate(c.text, s.item.target.pos)  # a suggestion is a candidate: nonsense is refused, named
    shown, key = _shown_key(c.text)
    found = offered(s, key)
    dismissal = (
        Dismissal(key, found.text[:200], found.source, found.relation)
        if found is not None
        else Dismissal(key, shown[:200])
    )
    return Change(s.current, DISMISS_ACTION, {"side": Side(c.side).value, "candidate": c.text}, records=False,
                  personal=dismissal)  # fmt: skip


def _restore(s: Situation, c: RestoreSuggestion) -> Change:
    _not_on_copies("suggestions")(s)
    workflow.check_can_edit(s.user, s.current.lang)
    _shown, key = _shown_key(c.text)
    return Change(s.current, "restore_suggestion", {"candidate": c.text}, records=False,
                  personal=Dismissal(key, restore=True))  # fmt: skip


def _check_adjudicable(s: Situation) -> None:
    _not_on_copies("adjudication (a lead adjudicates the item-language)")(s)
    where = f"{s.current.item_id} [{s.current.lang}]"
    if s.assignment == ASSIGNMENT_ADJUDICATED:
        raise workflow.WorkflowError(f"{where} has already been adjudicated.")
    if s.assignment != ASSIGNMENT_OPEN:
        raise UserError(f"{where} is not assigned for double curation.")
    waiting = [c.status_by or "?" for c in s.copies if c.status not in workflow.COPY_FINISHED]
    verdict = workflow.may_adjudicate(s.user, [c.status for c in s.copies], waiting)
    if not verdict.allowed and verdict.refusal is not PermissionDenied:
        raise workflow.WorkflowError(f"{where} cannot be adjudicated yet: {verdict.reason}")
    verdict.check()


def adjudication_detail(new: ItemLanguage, copies: Sequence[ItemLanguage]) -> dict[str, Any]:
    """The adjudication's history detail: which translators' copies each final candidate came from ("lead" when
    none), and every copy as it was decided."""
    return {
        "sources": {
            entry.key: [c.status_by or "" for c in copies if entry.key in {e.key for e in c.side(side)}] or ["lead"]
            for side, entries in ((Side.GOOD, new.good), (Side.BAD, new.bad))
            for entry in entries
        },
        "copies": {
            c.status_by or "": {
                "status": c.status.value,
                "good": [e.format() for e in c.good],
                "bad": [e.format() for e in c.bad],
            }
            for c in copies
        },
        "annotators": [c.status_by or "" for c in copies],
    }


def _adjudicate(s: Situation, c: Adjudicate) -> Change:
    chosen = apply_candidate_sets(s.user, s.item, replace(s.current, status=Status.IN_PROGRESS), list(c.good),
                                  list(c.bad))  # fmt: skip
    new = workflow.mark_done(s.user, chosen)
    return Change(new, "adjudicate", adjudication_detail(new, s.copies), closes_assignment=True)


def _adjudicate_discard(s: Situation, c: AdjudicateDiscard) -> Change:
    new = workflow.discard(s.user, s.current, c.reason, c.note)
    return Change(new, "adjudicate", adjudication_detail(new, s.copies), closes_assignment=True)


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
    Adjudicate: _adjudicate,
    AdjudicateDiscard: _adjudicate_discard,
}


def is_versioned(command: Any) -> bool:
    """Whether ``command`` carries the version the page showed (a kind outside ``CommandKind`` does)."""
    return bool(getattr(command, "versioned", True))


def reads(command: Any, what: str) -> bool:
    """Whether ``command``'s rule reads ``what`` (``HISTORY``, ``SUGGESTIONS``) besides the state."""
    return what in getattr(command, "reads", frozenset())


def check_storable(address: Address, command: Any) -> None:
    """Refuse, naming the field, any text of the address or the command no database can hold (a lone surrogate, a
    NUL: a forged event's), before anything is read or written (``unicode_rules.UnstorableTextError``). The command
    names its own text (``CommandKind.texts``)."""
    unicode_rules.check_storable("item id", address.item_id)
    unicode_rules.check_storable("language", address.lang)
    if address.copy_of is not None:
        unicode_rules.check_storable("translator", address.copy_of)
    texts = getattr(command, "texts", None)
    for label, text in texts() if texts is not None else ():
        unicode_rules.check_storable(label, text)


def admit(situation: Situation, command: Any) -> None:
    """Refuse what no version could make possible, before the version is compared: a user who may not change the
    language (``workflow.may_change_language``), an item-language an open
    double-curation assignment holds takes only the commands allowed then (its translators edit copies), a copy
    changes only while its assignment is open, and an adjudication needs a lead and every copy finished."""
    workflow.may_change_language(situation.user, situation.current.lang).check()
    where = f"{situation.current.item_id} [{situation.current.lang}]"
    if situation.address.is_copy:
        if situation.assignment != ASSIGNMENT_OPEN:
            raise workflow.WorkflowError(f"{where} has been adjudicated; the copies are closed.")
    elif getattr(command, "adjudicates", False):
        _check_adjudicable(situation)
    elif situation.assignment == ASSIGNMENT_OPEN and not getattr(command, "while_assigned", False):
        raise workflow.WorkflowError(
            f"{where} is assigned for double curation: its translators edit their own copies "
            "(Double curation page) and a lead adjudicates them."
        )


def decide(situation: Situation, command: Any) -> Change:
    """The change ``command`` makes in ``situation`` (``UserError`` and subclasses say why it cannot): ``admit``,
    then the kind's rule (``RULES``)."""
    rule = RULES.get(type(command))
    if rule is None:
        raise TypeError(f"not a command: {command!r}")
    admit(situation, command)
    return rule(situation, command)
