"""What matching says of a translation: the verdict, the step, the candidates found, and what it reads of an
analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class Outcome(StrEnum):
    GOOD = "GOOD"
    BAD = "BAD"
    MISS = "MISS"


class Step(StrEnum):
    """Which step of SPEC §8 matched; the order is the order they are tried."""

    LEMMA = "lemma"
    WORD = "word"
    TOKEN = "token"
    SURFACE = "surface"
    #: last resort, reported apart: the candidate's Snowball stems against the translation's (``chupitos``)
    STEM = "stem"


_STEP_ORDER = {Step.LEMMA: 0, Step.WORD: 1, Step.TOKEN: 2, Step.SURFACE: 3, Step.STEM: 4}
GOOD = "good"
BAD = "bad"


class AnalysedText(Protocol):
    """What the matcher reads from an analysis (``annotator.analysis.base.Analysis`` has it)."""

    @property
    def text(self) -> str: ...
    @property
    def tokens(self) -> tuple[str, ...]: ...
    @property
    def token_spans(self) -> tuple[tuple[int, int], ...]: ...
    @property
    def words(self) -> tuple[str, ...]: ...
    @property
    def lemmas(self) -> tuple[str, ...]: ...
    @property
    def upos(self) -> tuple[str | None, ...]: ...
    @property
    def word_token(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class CandidateMatch:
    """One candidate found in the translation: at which step and where (character span, for highlighting)."""

    text: str
    side: str
    step: Step
    span: tuple[int, int] | None
    synsets: tuple[str, ...] = ()
    index: int = 0
    #: True when the candidate matched as typed; False when only its analysed form did (``sparo`` → ``sparare``).
    as_typed: bool = True
    specificity: int = field(default=1, compare=False)
    #: at the lemma step: ``primary`` (the word's first lemma) or ``alternative`` (another reading); else None
    reading: str | None = None
    #: True when it matched only through the analysis of the translation (a lemma or reading) on a span where a
    #: candidate of the other side matched the text as written: it does not count (SPEC §8 step 4, specificity)
    outranked: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "side": self.side,
            "step": str(self.step),
            "as_typed": self.as_typed,
            "reading": self.reading,
            "span": list(self.span) if self.span else None,
            "synsets": list(self.synsets),
            "outranked": self.outranked,
        }


@dataclass(frozen=True)
class MatchResult:
    """GOOD / BAD / MISS, the matched candidate ω, the step that matched it, and every candidate that matched."""

    outcome: Outcome
    omega: CandidateMatch | None
    both_matched: bool
    matches: tuple[CandidateMatch, ...] = ()

    @property
    def step(self) -> Step | None:
        return self.omega.step if self.omega else None

    @property
    def omega_text(self) -> str | None:
        return self.omega.text if self.omega else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": str(self.outcome),
            "omega": self.omega_text,
            "step": str(self.step) if self.step else None,
            "span": list(self.omega.span) if self.omega and self.omega.span else None,
            "both_matched": self.both_matched,
            "matches": [match.to_dict() for match in self.matches],
        }
