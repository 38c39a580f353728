"""Every change to an item-language as one typed command: what to do, to what, and what the command carries.

A command is a frozen dataclass saying *what* to do (add this candidate to GOOD, mark done…); ``Address`` says *to
what*: an item-language, or one translator's double-curation copy of it. Each kind declares what it carries
(``texts``: its user text, named for refusals) and what it needs (``versioned``, ``reads``). The rule each command
applies is in ``domain.rules``; a new kind of change is one dataclass here and one entry in ``rules.RULES``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from annotator.domain.model import (
    DiscardReason,
    Side,
    Status,
)


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


#: What a command reads besides the state (only these kinds pay for reading it).
HISTORY, SUGGESTIONS = "history", "suggestions"


class CommandKind:
    """What every command declares about itself; the defaults are an ordinary versioned edit carrying no text."""

    #: The command carries the version the page showed, and a stale one is refused.
    versioned: ClassVar[bool] = True
    #: What the rule reads besides the state: ``HISTORY``, ``SUGGESTIONS``.
    reads: ClassVar[frozenset[str]] = frozenset()
    #: Allowed on an item-language while an open double-curation assignment holds it (its translators edit copies).
    while_assigned: ClassVar[bool] = False
    #: An adjudication: admitted only for a lead, on an open assignment whose copies are all finished.
    adjudicates: ClassVar[bool] = False

    def texts(self) -> Iterator[tuple[str, str]]:
        """The user text the command carries, each with the name a refusal gives it ("candidate", "comment")."""
        return iter(())


@dataclass(frozen=True)
class AddCandidate(CommandKind):
    side: Side
    text: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.text


@dataclass(frozen=True)
class AddCandidates(CommandKind):
    """A pasted list, one candidate per line, as one change: all or nothing, every bad line named."""

    side: Side
    lines: tuple[str, ...]

    def texts(self) -> Iterator[tuple[str, str]]:
        for number, line in enumerate(self.lines, 1):
            if line.strip():
                yield f"candidate on line {number}", line


@dataclass(frozen=True)
class RemoveCandidate(CommandKind):
    key: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.key


@dataclass(frozen=True)
class MoveCandidate(CommandKind):
    """Move to ``to``; None moves it to the other list from the one it is in."""

    key: str
    to: Side | None = None

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.key


def _lines(label: str, lines: Sequence[str]) -> Iterator[tuple[str, str]]:
    for number, line in enumerate(lines, 1):
        yield f"{label} on line {number}", line


@dataclass(frozen=True)
class ReplaceCandidates(CommandKind):
    """Set G and B to exactly these lines (the sheet import's edit), keeping what is known of existing ones."""

    good: tuple[str, ...]
    bad: tuple[str, ...]
    action: str = "edit"

    def texts(self) -> Iterator[tuple[str, str]]:
        yield from _lines("GOOD candidate", self.good)
        yield from _lines("BAD candidate", self.bad)


@dataclass(frozen=True)
class MarkDone(CommandKind):
    pass


@dataclass(frozen=True)
class FlagDiscuss(CommandKind):
    note: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "DISCUSS note", self.note


@dataclass(frozen=True)
class UpdateDiscussNote(CommandKind):
    note: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "DISCUSS note", self.note


@dataclass(frozen=True)
class Discard(CommandKind):
    reason: DiscardReason | None
    note: str = ""

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "discard note", self.note


@dataclass(frozen=True)
class Reopen(CommandKind):
    pass


@dataclass(frozen=True)
class Resolve(CommandKind):
    to: Status
    comment: str
    reason: DiscardReason | None = None

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "comment", self.comment


@dataclass(frozen=True)
class Undo(CommandKind):
    """Undo the user's last change (undoing an undo redoes it: ``annotator.domain.undo``)."""

    reads: ClassVar[frozenset[str]] = frozenset({HISTORY})


@dataclass(frozen=True)
class PostComment(CommandKind):
    """A comment in the item-language's thread: no state change, so no version check."""

    versioned: ClassVar[bool] = False
    while_assigned: ClassVar[bool] = True
    text: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "comment", self.text


@dataclass(frozen=True)
class AcceptSuggestion(CommandKind):
    """A suggested candidate (text, for ``side``) taken into the list: an add that names where it came from."""

    reads: ClassVar[frozenset[str]] = frozenset({SUGGESTIONS})
    side: Side
    text: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.text


@dataclass(frozen=True)
class DismissSuggestion(CommandKind):
    """A suggested candidate turned down, for the user who dismisses it only: it is not offered to them there again.
    Personal (``Change.personal``): no candidate, version or history row changes, so nobody's page or undo is
    touched."""

    versioned: ClassVar[bool] = False
    reads: ClassVar[frozenset[str]] = frozenset({SUGGESTIONS})
    side: Side
    text: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.text


@dataclass(frozen=True)
class RestoreSuggestion(CommandKind):
    """The user's dismissal of ``text`` taken back (``u`` right after a dismissal): it is offered to them again."""

    versioned: ClassVar[bool] = False
    text: str

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "candidate", self.text


@dataclass(frozen=True)
class Adjudicate(CommandKind):
    """A lead's adjudication of a double-curated item-language: these sets (taken from the copies or edited) become
    its curated sets, done, and the assignment closes."""

    while_assigned: ClassVar[bool] = True
    adjudicates: ClassVar[bool] = True
    good: tuple[str, ...]
    bad: tuple[str, ...]

    def texts(self) -> Iterator[tuple[str, str]]:
        yield from _lines("final GOOD candidate", self.good)
        yield from _lines("final BAD candidate", self.bad)


@dataclass(frozen=True)
class AdjudicateDiscard(CommandKind):
    """A lead's adjudication that discards the double-curated item-language; the assignment closes."""

    while_assigned: ClassVar[bool] = True
    adjudicates: ClassVar[bool] = True
    reason: DiscardReason | None
    note: str = ""

    def texts(self) -> Iterator[tuple[str, str]]:
        yield "discard note", self.note


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
    | Adjudicate
    | AdjudicateDiscard
)
