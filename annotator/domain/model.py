"""The domain model: items, item-languages, candidates with provenance, users.

Plain frozen dataclasses with no framework imports, so statistics, export and the UI can share them and
tests can build them by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from annotator.domain.candidates import Candidate, key_string


class Status(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"
    DISCUSS = "discuss"
    DISCARDED = "discarded"


class DiscardReason(StrEnum):
    IDIOM = "idiom"
    PROPER_NOUN = "proper_noun"
    INSUFFICIENT_CONTEXT = "insufficient_context"
    OTHER = "other"


class Role(StrEnum):
    TRANSLATOR = "translator"
    LEAD = "lead"


class Side(StrEnum):
    GOOD = "good"
    BAD = "bad"


class Origin(StrEnum):
    LEXICON = "lexicon"
    TRANSLATOR = "translator"


#: Universal POS tags an item's target word may have.
TARGET_POS = ("NOUN", "VERB", "ADJ", "ADV")
#: The longest text each of an item's fields holds: the store sizes its columns from these, an import refuses longer.
ITEM_FIELD_MAX = {"id": 200, "target": 200, "lemma": 200, "synset": 64, "source": 200, "domain": 200}


@dataclass(frozen=True)
class Target:
    """The target word ``w``: its span in the sentence and its λ = (lemma, POS)."""

    text: str
    start: int
    end: int
    lemma: str
    pos: str


@dataclass(frozen=True)
class SenseEntry:
    """One synset of Ω(λ): ``rank`` is its 1-based position (μ), ``wordnet_sense_number`` where it came from."""

    synset: str
    rank: int
    gloss: str = ""
    wordnet_sense_number: int | None = None


@dataclass(frozen=True)
class Item:
    """An initial item X = (s, w, σ) plus what pre-population learnt about λ."""

    id: str
    sentence: str
    target: Target
    synset: str
    source: str = ""
    gloss: str = ""
    senses: tuple[SenseEntry, ...] = ()
    filter_failures: tuple[str, ...] = ()
    excluded: bool = False
    #: The text's domain when the source says (WSD-framework ``<text domain>``, an item file's ``domain`` column).
    domain: str = ""

    @property
    def polysemy_degree(self) -> int | None:
        """δ(λ); None until pre-population has fetched Ω(λ)."""
        return len(self.senses) if self.senses else None

    @property
    def sense_rank(self) -> int | None:
        """μ(σ); None when σ is not (or not yet) in Ω(λ)."""
        for sense in self.senses:
            if sense.synset == self.synset:
                return sense.rank
        return None

    def rank_of(self, synset: str) -> int | None:
        for sense in self.senses:
            if sense.synset == synset:
                return sense.rank
        return None


class SuggestedFrom(NamedTuple):
    """The suggestion a candidate was accepted from (SPEC §5.2): its source (team, related, mt), the relation
    (hypernym, same sense, MISS translation: …) and the synset it was found on ("" for a machine translation)."""

    source: str
    relation: str
    synset: str = ""

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "relation": self.relation, "synset": self.synset}

    @classmethod
    def from_json(cls, data: object) -> SuggestedFrom | None:
        """The stored object, or None for anything else (a candidate added by hand has none)."""
        if not isinstance(data, dict):
            return None
        return cls(str(data.get("source", "")), str(data.get("relation", "")), str(data.get("synset", "")))


@dataclass(frozen=True)
class CandidateEntry:
    """A candidate as stored in G or B: text and tag, where it came from, and the synsets it stands for;
    ``suggested``: the suggestion it was accepted from (None when typed, imported or pre-populated)."""

    text: str
    pos: str | None = None
    origin: Origin = Origin.TRANSLATOR
    synsets: tuple[str, ...] = ()
    suggested: SuggestedFrom | None = None

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.text, self.pos)

    @property
    def key(self) -> str:
        return key_string(self.text, self.pos)

    def format(self) -> str:
        return self.candidate.format()


@dataclass(frozen=True)
class ItemLanguage:
    """The curation state of one item in one language; ``version`` guards against stale saves."""

    item_id: str
    lang: str
    status: Status = Status.PENDING
    version: int = 0
    good: tuple[CandidateEntry, ...] = ()
    bad: tuple[CandidateEntry, ...] = ()
    initial_good: tuple[CandidateEntry, ...] = ()
    initial_bad: tuple[CandidateEntry, ...] = ()
    overlaps: tuple[str, ...] = ()
    prepopulated: bool = False
    discuss_note: str = ""
    discard_reason: DiscardReason | None = None
    discard_note: str = ""
    status_by: str | None = None
    updated_by: str | None = None
    updated_at: str | None = None

    def side(self, side: Side) -> tuple[CandidateEntry, ...]:
        return self.good if side is Side.GOOD else self.bad

    def find(self, key: str) -> tuple[Side, CandidateEntry] | None:
        for side in (Side.GOOD, Side.BAD):
            for entry in self.side(side):
                if entry.key == key:
                    return side, entry
        return None


@dataclass(frozen=True)
class User:
    name: str
    role: Role
    languages: tuple[str, ...] = ()
    display_name: str = ""
    disabled: bool = False
    #: The (lower-case) address a single sign-on login is matched by; None for a local-only account.
    email: str | None = None
    #: The password was set by someone else (a reset, or a new account from the People page): it works once, to
    #: log in and choose a new one; nothing else is served until then.
    must_change_password: bool = False

    @property
    def is_lead(self) -> bool:
        return self.role is Role.LEAD

    def may_edit(self, lang: str) -> bool:
        return not self.disabled and (self.is_lead or lang.upper() in self.languages)


@dataclass(frozen=True)
class HistoryEntry:
    item_id: str
    lang: str
    user: str
    at: str
    action: str
    detail: dict = field(default_factory=dict)
    version: int = 0


@dataclass(frozen=True)
class Comment:
    item_id: str
    lang: str
    user: str
    at: str
    text: str
