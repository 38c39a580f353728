"""GOOD / BAD / MISS matching of one analysed translation against an item-language's candidates (SPEC §8, 2–4).

Pure functions over plain data. An item-language's candidates are compiled once (``compile_candidate`` /
``compile_candidates``, then indexed by ``candidate_set``) and reused for every system's translation of the item, so
matching costs a few dictionary look-ups per distinct word of the translation, whatever the number of candidates.

How a candidate's own tokens are analysed (the spec leaves it open): each wildcard-free segment of the candidate
(``prendersi`` and ``permesso`` in ``prendersi * permesso``) is run through the *same* analyser as the translations,
and a candidate matches a level when either its text as typed or its analysed form appears there:

- lemma level: the typed tokens (candidates are lemmas, as in DiBiMT) or the analysed segments' lemmas;
- word level: the typed tokens or the analysed segments' words (``della`` → ``di la``);
- token level: the typed tokens or the analysed segments' tokens (``dell'acqua`` → ``dell'`` ``acqua``).

Analysing both sides with one analyser keeps them consistent even where the lemmatiser is wrong (simplemma gives
``goccio`` → ``gocciare`` on both sides); keeping the typed form keeps DiBiMT's plain lemma comparison.

When GOOD and BAD candidates both match, specificity decides on each span: a candidate found in the translation as
written outranks one found there only through the translation's lemmas (``акра`` over ``акр``), MuCoW's token-first
order. In unspaced scripts the surface step finds a candidate anywhere (``门`` in ``门口``). ``docs/MATCHING.md``
states both rules and their reasons.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from annotator.domain.candidates import WILDCARD, Candidate, parse_candidate


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


# --- normalisation --------------------------------------------------------------------------------------------------

_SAME_LENGTH_FOLD = str.maketrans({"ё": "е", "Ё": "Е", "’": "'", "ʼ": "'"})
_SAME_LENGTH_RE = re.compile("[ёЁ’ʼ]")


_FOLD_CACHE: dict[str, str] = {}
_FOLD_CACHE_LIMIT = 200_000


def fold(text: str) -> str:
    """Case-insensitive comparison key: casefold, Russian ё → е, typographic apostrophes → '.

    Memoised: the same few thousand words are folded for every translation and every candidate.
    """
    folded = _FOLD_CACHE.get(text)
    if folded is None:
        folded = text.translate(_SAME_LENGTH_FOLD).casefold()
        if len(_FOLD_CACHE) >= _FOLD_CACHE_LIMIT:
            _FOLD_CACHE.clear()
        _FOLD_CACHE[text] = folded
    return folded


#: Scripts written without spaces between words: a surface match there needs no word boundary.
_UNSPACED_RE = re.compile(
    "[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]"
)


def _spaced_word_char(ch: str) -> bool:
    """A letter or digit of a script written with spaces (Latin, Cyrillic...): it may not touch a surface match."""
    return ch.isalnum() and not _UNSPACED_RE.match(ch)


def surface_fold(text: str) -> str:
    """Fold for the surface step without changing the length, so spans found in it are spans of ``text``.

    Casefold with ё → е and typographic apostrophes → ', every whitespace character → one space. The rare characters
    whose case folding has another length (ß → ss, İ) keep a one-character form, so the step stays case-insensitive.
    A run of several spaces stays as it is, so a multiword piece will not match across it.
    """
    # not ``fold``: whole texts would flood its memo; ``translate`` only when needed, it is slow on non-ASCII text
    folded = (text.translate(_SAME_LENGTH_FOLD) if _SAME_LENGTH_RE.search(text) else text).casefold()
    if len(folded) != len(text):  # only the few characters that fold longer go one by one (a German ß, not the text)
        pieces = _longer_fold_re().split(text)
        folded = "".join(
            _fold_char(piece) if number % 2 else piece.translate(_SAME_LENGTH_FOLD).casefold()
            for number, piece in enumerate(pieces)
        )
    return _WHITESPACE_RE.sub(" ", folded) if _WHITESPACE_RE.search(folded) else folded


_WHITESPACE_RE = re.compile(r"[^\S ]")


@functools.cache
def _longer_fold_re() -> re.Pattern[str]:
    """The characters whose case folding is longer than one character (ß → ss, İ; about a hundred, all in the BMP),
    each captured so ``split`` keeps it between the runs around it."""
    longer = [chr(code) for code in range(0x10000) if len(chr(code).translate(_SAME_LENGTH_FOLD).casefold()) != 1]
    return re.compile("(" + "|".join(map(re.escape, longer)) + ")")


def _fold_char(ch: str) -> str:
    for candidate in (fold(ch), ch.lower()):
        if len(candidate) == 1:
            return candidate
    return ch


@dataclass(frozen=True)
class SurfacePiece:
    """One wildcard-free piece of a candidate for the surface step, and whether each edge needs a word boundary."""

    text: str
    bounded_start: bool
    bounded_end: bool

    def find(self, text: str, position: int) -> tuple[int, int] | None:
        """Leftmost occurrence at or after ``position`` in ``surface_fold``-ed text, respecting the boundaries."""
        size = len(self.text)
        while True:
            start = text.find(self.text, position)
            if start < 0:
                return None
            end = start + size
            if not (self.bounded_start and start > 0 and _spaced_word_char(text[start - 1])) and not (
                self.bounded_end and end < len(text) and _spaced_word_char(text[end])
            ):
                return (start, end)
            position = start + 1


def surface_pieces(candidate: Candidate) -> tuple[SurfacePiece, ...]:
    """The candidate for the surface step (SPEC §8 step 3), ``*`` standing for any text between the pieces.

    In spaced scripts each piece must start and end on a word boundary, so ``casa`` does not match ``casale``;
    in Chinese (and other unspaced scripts) a plain substring is enough. Plain ``str.find``, no regex: thousands of
    candidates reach this step and compiling a regex for each costs more than all the matching.
    """
    return tuple(
        SurfacePiece(
            surface_fold(" ".join(segment)), _spaced_word_char(segment[0][0]), _spaced_word_char(segment[-1][-1])
        )
        for segment in _segments_of(candidate.tokens)
    )


@functools.lru_cache(maxsize=65_536)
def surface_pieces_of(candidate: Candidate) -> tuple[SurfacePiece, ...]:
    """``surface_pieces`` memoised per candidate."""
    return surface_pieces(candidate)


def find_surface(pieces: Sequence[SurfacePiece], text: str, start: int = 0) -> tuple[int, int] | None:
    """Leftmost occurrence of the pieces in order (any text between them) in ``surface_fold``-ed text."""
    position, first = start, None
    for piece in pieces:
        found = piece.find(text, position)
        if found is None:
            return None  # a later start of an earlier piece can only push this one further right
        first = found[0] if first is None else first
        position = found[1]
    return (first, position) if first is not None else None


# --- compiled candidates --------------------------------------------------------------------------------------------

#: A pattern: wildcard-separated segments, each a tuple of folded strings (one segment when there is no ``*``).
Pattern = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class CandidatePattern:
    """A candidate ready to match: its alternatives per level and its provenance.

    ``specificity`` is the number of non-wildcard tokens: among matches at the same step the longer candidate is the
    better ω. The surface pieces are compiled on first use (``surface_pieces_of``), as most candidates never need them.
    """

    text: str
    side: str
    candidate: Candidate
    index: int = 0
    synsets: tuple[str, ...] = ()
    lemma: tuple[Pattern, ...] = ()
    word: tuple[Pattern, ...] = ()
    token: tuple[Pattern, ...] = ()
    specificity: int = 1
    stem: Pattern | None = None
    #: for each word of ``stem``: the forms it is (typed, lemma, readings), so the stem step can tell another word
    stem_lemmas: LemmaSets | None = None

    @property
    def pos(self) -> str | None:
        return self.candidate.pos


def _segments_of(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    if WILDCARD not in tokens:
        return [tuple(tokens)]
    segments: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in tokens:
        if token == WILDCARD:
            segments.append(tuple(current))
            current = []
        else:
            current.append(token)
    segments.append(tuple(current))
    return segments


def candidate_segments(candidate: Candidate) -> list[str]:
    """The wildcard-free pieces of a candidate as text: what the analyser must analyse for it."""
    if WILDCARD not in candidate.tokens:
        return [candidate.text]  # the tokens are the text split on spaces
    return [" ".join(segment) for segment in _segments_of(candidate.tokens)]


#: Per segment, per word of a candidate: the folded forms that word is (as typed, its lemma, its other readings).
LemmaSets = tuple[tuple[frozenset[str], ...], ...]
#: What compiling depends on besides the candidate: (lemma, word, token) alternatives, specificity, stem pattern and
#: the lemma sets of the stem pattern's words.
_Alternatives = tuple[
    tuple[Pattern, ...], tuple[Pattern, ...], tuple[Pattern, ...], int, Pattern | None, LemmaSets | None
]
#: What ``compile_candidate`` memoises per candidate: its canonical text, then the alternatives.
_Compiled = tuple[
    str, tuple[Pattern, ...], tuple[Pattern, ...], tuple[Pattern, ...], int, Pattern | None, LemmaSets | None
]


def _analysed_lemmas(analysis: AnalysedText) -> tuple[str, ...]:
    """A multiword candidate segment's lemma form: a word that is one of its own readings stays as typed.

    Candidates are lemmas: the analyser may only reduce an inflected word (``vigili`` → vigile), never turn a word
    that already is a lemma into another lemma (``stelle`` → stellen, ``суть`` → быть).
    """
    extra = getattr(analysis, "readings", ()) or ()
    out = []
    for i, (word, lemma) in enumerate(zip(analysis.words, analysis.lemmas, strict=True)):
        folded = fold(word)
        own = {fold(lemma), *(fold(r) for r in (extra[i] if i < len(extra) else ()))}
        out.append(folded if folded in own else fold(lemma))
    return tuple(out)


def _with(raw: Pattern, analysed: Pattern) -> tuple[Pattern, ...]:
    """One level's alternatives: the typed form, then the analysed form when it has every segment and differs."""
    return (raw, analysed) if all(analysed) and analysed != raw else (raw,)


def _alternatives(candidate: Candidate, segment_analyses: Mapping[str, AnalysedText] | None) -> _Alternatives:
    """The typed form at every level; the analysed form only where analysing is needed.

    A one-word segment is never lemmatised (a candidate is a lemma as typed); its analysed words and tokens still
    count (a contraction ``del`` → ``de el``). A multiword segment adds its analysed lemmas (``_analysed_lemmas``).
    """
    tokens = candidate.tokens
    raw_segments = _segments_of(tokens)
    raw: Pattern = tuple([tuple([fold(token) for token in segment]) for segment in raw_segments])
    specificity = len(tokens) - tokens.count(WILDCARD)
    if segment_analyses is None:
        return (raw,), (raw,), (raw,), specificity, None, None
    get = segment_analyses.get
    present = [get(" ".join(segment)) for segment in raw_segments]
    for analysis in present:
        if analysis is None:
            return (raw,), (raw,), (raw,), specificity, None, None
    analyses: list[AnalysedText] = present  # type: ignore[assignment]  # none is None (checked above)
    stems = tuple([tuple(getattr(a, "stems", ()) or ()) for a in analyses])
    stem = stems if all(stems) and all(all(segment) for segment in stems) else None
    lemma_sets = tuple([_word_lemma_sets(a) for a in analyses]) if stem is not None else None
    words = tuple([tuple(map(fold, a.words)) for a in analyses])
    if all(a.tokens == a.words for a in analyses):
        token_form = words  # the tokens are the words (no contraction): the same folded form
    else:
        token_form = tuple([tuple(map(fold, a.tokens)) for a in analyses])
    lemmas = tuple([w if len(a.words) == 1 else _analysed_lemmas(a) for a, w in zip(analyses, words, strict=True)])
    word = _with(raw, words)
    lemma = word if lemmas == words else _with(raw, lemmas)
    return lemma, word, word if token_form == words else _with(raw, token_form), specificity, stem, lemma_sets


def _word_lemma_sets(analysis: AnalysedText) -> tuple[frozenset[str], ...]:
    """Per word of a candidate segment: what a settled translation word must be to count at the stem step (see
    ``_stem_acceptor``). A one-word candidate is a lemma as typed; a word of a multiword one may also be its analysed
    lemma, as at the lemma step (``_analysed_lemmas``)."""
    words = tuple(map(fold, analysis.words))
    if len(words) == 1:
        return (frozenset(words),)
    return tuple(frozenset({word, lemma}) for word, lemma in zip(words, _analysed_lemmas(analysis), strict=True))


def compile_candidate(
    text: str | Candidate,
    side: str,
    *,
    index: int = 0,
    synsets: Iterable[str] = (),
    segment_analyses: Mapping[str, AnalysedText] | None = None,
    memo: dict[Candidate, _Compiled] | None = None,
) -> CandidatePattern:
    """Compile one candidate (canonical text, e.g. ``[sparare]_VERB``) for ``side`` ``good`` or ``bad``.

    ``segment_analyses`` maps each of ``candidate_segments`` to its analysis; without it only the typed form is used.
    ``memo`` (one dict per language and analyser) shares the work between items that have the same candidate — items
    of one lemma share most of their BAD candidates. Raises ``CandidateError`` for text that breaks SPEC §3.
    """
    if side not in (GOOD, BAD):
        raise ValueError(f"side must be 'good' or 'bad', not {side!r}")
    candidate = text if isinstance(text, Candidate) else parse_candidate(text)
    compiled = memo.get(candidate) if memo is not None else None
    if compiled is None:
        compiled = (candidate.format(), *_alternatives(candidate, segment_analyses))
        if memo is not None:
            memo[candidate] = compiled
    formatted, lemma, word, token, specificity, stem, stem_lemmas = compiled
    return CandidatePattern(
        formatted,
        side,
        candidate,
        index,
        synsets if type(synsets) is tuple else tuple(synsets),
        lemma,
        word,
        token,
        specificity,
        stem,
        stem_lemmas,
    )


@dataclass(frozen=True)
class DatasetCandidate:
    """A candidate as the dataset gives it: canonical text, side and provenance (not the stored
    ``model.CandidateEntry``, which carries a tag and an origin: one name, one type)."""

    text: str
    side: str
    synsets: tuple[str, ...] = ()


def compile_candidates(
    entries: Sequence[DatasetCandidate],
    analyse: Callable[[list[str]], Sequence[AnalysedText]] | None = None,
) -> list[CandidatePattern]:
    """Compile an item-language's candidates; ``analyse`` (a batch call of the analyser) analyses their segments."""
    parsed = [parse_candidate(entry.text) for entry in entries]
    analyses: dict[str, AnalysedText] | None = None
    if analyse is not None:
        wanted = sorted({segment for candidate in parsed for segment in candidate_segments(candidate)})
        analyses = dict(zip(wanted, analyse(wanted), strict=True))
    counters = {GOOD: 0, BAD: 0}
    compiled = []
    for entry, candidate in zip(entries, parsed, strict=True):
        compiled.append(
            compile_candidate(
                candidate,
                entry.side,
                index=counters[entry.side],
                synsets=entry.synsets,
                segment_analyses=analyses,
            )
        )
        counters[entry.side] += 1
    return compiled


_LEVEL_STEPS = (Step.LEMMA, Step.WORD, Step.TOKEN)


@dataclass(frozen=True)
class CandidateSet:
    """An item-language's compiled candidates, indexed by the first word of every alternative at every level.

    Matching then walks the translation's distinct words (a dozen) instead of every candidate's alternatives: only
    candidates whose first word occurs are tried. Build it once per item-language (``candidate_set``) and reuse it
    for every system's translation.
    """

    patterns: tuple[CandidatePattern, ...]
    #: per level (lemma, word, token): first word → ((pattern position, alternative number), ...)
    triggers: tuple[dict[str, tuple[tuple[int, int], ...]], ...]
    #: per level: every candidate has the same alternatives there as at the level before, so a translation whose two
    #: levels are one sequence (words that are their own tokens) can skip the second step: it would find nothing new
    repeats: tuple[bool, ...] = (False, False, False)

    @functools.cached_property
    def surface(self) -> tuple[tuple[SurfacePiece, ...], ...]:
        """Each pattern's surface pieces, looked up once per set rather than per translation that reaches step 3."""
        return tuple(surface_pieces_of(pattern.candidate) for pattern in self.patterns)

    @functools.cached_property
    def stem_triggers(self) -> dict[str, tuple[int, ...]]:
        """First stem → the positions of the patterns whose stem pattern starts with it (ascending), so the stem
        step looks up the translation's few stems instead of walking every candidate."""
        index: dict[str, list[int]] = {}
        for position, pattern in enumerate(self.patterns):
            if pattern.stem is not None:
                index.setdefault(pattern.stem[0][0], []).append(position)
        return {first: tuple(positions) for first, positions in index.items()}


def candidate_set(patterns: Iterable[CandidatePattern]) -> CandidateSet:
    """Index compiled candidates for ``match_translation`` (which also accepts a plain list, indexing it each call)."""
    patterns = tuple(patterns)
    indexes: tuple[dict[str, list[tuple[int, int]]], ...] = ({}, {}, {})
    lemma, word, token = indexes
    for position, pattern in enumerate(patterns):
        for index, alternatives in ((lemma, pattern.lemma), (word, pattern.word), (token, pattern.token)):
            for number, alternative in enumerate(alternatives):
                first = alternative[0][0]
                entries = index.get(first)
                if entries is None:
                    index[first] = [(position, number)]
                else:
                    entries.append((position, number))
    triggers = tuple({first: tuple(entries) for first, entries in index.items()} for index in indexes)
    repeats = (
        False,
        all(p.word == p.lemma for p in patterns),
        all(p.token == p.word for p in patterns),
    )
    return CandidateSet(patterns, triggers, repeats)


# --- matching -------------------------------------------------------------------------------------------------------


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


class _Level:
    """One sequence of the translation (lemmas, words or tokens), folded; indexed by value only when searched.

    ``extra`` gives further readings per position (the lemma level of a backend with several readings per word):
    a position is then indexed under each of its readings and matches any of them. ``keys`` (the distinct values and
    readings) is all a translation needs when none of its words starts a candidate, which is most of them, so the
    position index is built on the first search rather than for every translation.
    """

    __slots__ = ("_positions", "alts", "keys", "seq")

    def __init__(self, values: Sequence[str], extra: Sequence[Sequence[str]] = ()) -> None:
        get = _FOLD_CACHE.get  # ``fold`` inlined: this runs for every word of every translation
        self.seq = tuple([get(value) or fold(value) for value in values])
        self._positions: dict[str, list[int]] | None = None
        self.alts: tuple[frozenset[str], ...] | None = None
        if any(extra):
            if len(extra) < len(self.seq):
                extra = (*extra, *(((),) * (len(self.seq) - len(extra))))
            self.alts = tuple(
                [
                    frozenset((value, *[get(r) or fold(r) for r in more])) if more else frozenset((value,))
                    for value, more in zip(self.seq, extra, strict=False)  # a longer ``extra``: its tail ignored
                ]
            )
            alts = self.alts
            self.keys: frozenset[str] = frozenset().union(*alts)
        else:
            self.keys = frozenset(self.seq)

    @property
    def positions(self) -> dict[str, list[int]]:
        """Value (or reading) → its positions, ascending."""
        positions = self._positions
        if positions is None:
            positions = {}
            for i, value in enumerate(self.seq):
                positions.setdefault(value, []).append(i)
            if self.alts is not None:
                for i, (value, alternatives) in enumerate(zip(self.seq, self.alts, strict=True)):
                    for reading in alternatives:
                        if reading != value:
                            positions.setdefault(reading, []).append(i)
                for found in positions.values():
                    found.sort()
            self._positions = positions
        return positions

    def _at(self, p: int, segment: tuple[str, ...]) -> bool:
        if self.alts is None:
            return self.seq[p : p + len(segment)] == segment
        alts = self.alts
        return p + len(segment) <= len(alts) and all(v in alts[p + k] for k, v in enumerate(segment))

    def reading(self, start: int, end: int, pattern: Pattern) -> str:
        """Which reading matched: ``primary`` (the backend's first lemma) or ``alternative`` (another reading)."""
        if self.alts is None:
            return "primary"
        primary = set(self.seq[start:end])
        return "primary" if all(v in primary for segment in pattern for v in segment) else "alternative"

    def find_segment(self, segment: tuple[str, ...], start: int) -> int | None:
        """Leftmost position at or after ``start`` where the segment's items follow one another."""
        size = len(segment)
        if self.alts is None:  # ``tuple.index`` walks the sequence in C: no position index needed
            seq, first = self.seq, segment[0]
            try:
                p = seq.index(first, start)
                while size > 1 and seq[p : p + size] != segment:
                    p = seq.index(first, p + 1)
            except ValueError:
                return None
            return p
        for p in self.positions.get(segment[0], ()):
            if p >= start and (size == 1 or self._at(p, segment)):
                return p
        return None

    def find_all(self, pattern: Pattern, accept: Callable[[int], bool] | None = None) -> list[tuple[int, int]]:
        """Every start of the pattern, each with the end of its leftmost (shortest) run: what ``find`` gives for the
        first, for every later start too. Only for the rare translations where both sides matched."""
        first = pattern[0]
        if accept is not None:
            return [(p, p + 1) for p in self.positions.get(first[0], ()) if accept(p)]
        runs: list[tuple[int, int]] = []
        for start in self.positions.get(first[0], ()):
            if len(first) > 1 and not self._at(start, first):
                continue
            end = start + len(first)
            for segment in pattern[1:]:
                found = self.find_segment(segment, end)
                if found is None:
                    return runs  # a later start ends later still: no later run can close either
                end = found + len(segment)
            runs.append((start, end))
        return runs

    def find(self, pattern: Pattern, accept: Callable[[int], bool] | None = None) -> tuple[int, int] | None:
        """Leftmost contiguous run of the pattern, ``*`` spanning any number of items (zero included)."""
        first = pattern[0]
        if accept is not None:  # single-token cross-PoS candidate: every position must pass the tag check
            for p in self.positions.get(first[0], ()):
                if accept(p):
                    return (p, p + 1)
            return None
        start = self.find_segment(first, 0)
        if start is None:
            return None
        end = start + len(first)
        for segment in pattern[1:]:
            found = self.find_segment(segment, end)
            if found is None:
                return None  # a later start can only end later: no other alignment can succeed
            end = found + len(segment)
        return (start, end)


class _Indexed:
    """The analysed translation with its three indexed levels, shared by all candidates of one match call."""

    def __init__(self, analysis: AnalysedText, stems_only: bool = False) -> None:
        self.analysis = analysis
        self._token_words: list[list[int]] | None = None
        stems = getattr(analysis, "stems", ()) or ()
        self.stems = _Level(stems) if stems else None
        #: per word, whether the analyser settles its lemmas (empty: it cannot tell), see ``_stem_acceptor``
        self.settled: tuple[bool, ...] = getattr(analysis, "settled", ()) or ()
        self.has_pos = analysis.upos.count(None) != len(analysis.upos)  # any tag (``count`` is a C loop)
        if stems_only:
            self.levels: dict[Step, _Level] = {}
            return
        lemmas = _Level(analysis.lemmas, getattr(analysis, "readings", ()) or ())
        same = analysis.words == analysis.lemmas and lemmas.alts is None
        words = lemmas if same else _Level(analysis.words)
        tokens = words if analysis.tokens == analysis.words else _Level(analysis.tokens)
        self.levels = {Step.LEMMA: lemmas, Step.WORD: words, Step.TOKEN: tokens}

    def level(self, step: Step) -> _Level:
        return self.levels[step]

    def forms(self, position: int) -> frozenset[str]:
        """The word at ``position`` folded, its lemma and its other readings (for the stem step's check)."""
        analysis = self.analysis
        readings = getattr(analysis, "readings", ()) or ()
        extra = readings[position] if position < len(readings) else ()
        return frozenset({fold(analysis.words[position]), fold(analysis.lemmas[position]), *map(fold, extra)})

    def token_words(self, token: int) -> list[int]:
        if self._token_words is None:
            mapping: list[list[int]] = [[] for _ in self.analysis.tokens]
            for word, owner in enumerate(self.analysis.word_token):
                if 0 <= owner < len(mapping):
                    mapping[owner].append(word)
            self._token_words = mapping
        return self._token_words[token] if token < len(self._token_words) else []

    def pos_ok(self, step: Step, index: int, tag: str) -> bool:
        """Cross-PoS check of a single-item match; positions without a known tag pass."""
        upos = self.analysis.upos
        if step == Step.TOKEN:
            tags = [upos[w] for w in self.token_words(index) if upos[w] is not None]
            return not tags or tag in tags
        known = upos[index] if index < len(upos) else None
        return known is None or known == tag

    def char_span(self, step: Step, start: int, end: int) -> tuple[int, int] | None:
        spans = self.analysis.token_spans
        if step == Step.TOKEN:
            first, last = start, end - 1
        else:
            owners = self.analysis.word_token
            if end - 1 >= len(owners):
                return None
            first, last = owners[start], owners[end - 1]
        if not (0 <= first < len(spans) and 0 <= last < len(spans)):
            return None
        return (spans[first][0], spans[last][1])


def _tag_acceptor(
    pattern: CandidatePattern, alternative: Pattern, indexed: _Indexed, step: Step
) -> Callable[[int], bool] | None:
    """The cross-PoS check of a single-word candidate when the analysis has tags (SPEC §8 step 2), else None."""
    tag = pattern.candidate.pos
    single_word = len(alternative) == 1 and len(alternative[0]) == 1
    if tag is None or not indexed.has_pos or not single_word or len(pattern.candidate.tokens) != 1:
        return None
    return lambda position: indexed.pos_ok(step, position, tag)


def _match_surface(
    pattern: CandidatePattern,
    text: str,
    pieces: tuple[SurfacePiece, ...],
) -> CandidateMatch | None:
    """Step 3 for one candidate: in unspaced scripts anywhere in the text (``门`` in ``门口``), as DiBiMT does."""
    found = find_surface(pieces, text)
    if found is None:
        return None
    return CandidateMatch(
        text=pattern.text,
        side=pattern.side,
        step=Step.SURFACE,
        span=found,
        synsets=pattern.synsets,
        index=pattern.index,
        specificity=pattern.specificity,
    )


def _best(matches: list[CandidateMatch]) -> CandidateMatch:
    """ω among the deciding side: earliest step, typed form before analysed form, longest candidate, dataset order."""
    if len(matches) == 1:
        return matches[0]
    return min(matches, key=lambda m: (_STEP_ORDER[m.step], not m.as_typed, -m.specificity, m.index))


def _match_levels(cset: CandidateSet, indexed: _Indexed) -> tuple[dict[int, CandidateMatch], set[int]]:
    """Steps 2 for every candidate: the first level (then alternative) where it matches; and the cross-PoS candidates
    whose single word occurred only under another tag."""
    found: dict[int, CandidateMatch] = {}
    tag_tried: set[int] = set()
    previous: _Level | None = None
    for number_of_level, step in enumerate(_LEVEL_STEPS):
        level = indexed.levels[step]
        if level is previous and cset.repeats[number_of_level] and not indexed.has_pos:
            continue  # same sequence, same alternatives, no tag check: the step before tried exactly this
        previous = level
        triggers = cset.triggers[number_of_level]
        common = triggers.keys() & level.keys  # in C: most of the translation's words start no candidate
        if not common:
            continue
        hits: list[tuple[int, int]] = []
        for value in common:
            hits.extend(triggers[value])
        hits.sort()  # per candidate, the typed form (alternative 0) before its analysed form
        for position, number in hits:
            if position in found:
                continue
            pattern = cset.patterns[position]
            alternative = (pattern.lemma, pattern.word, pattern.token)[number_of_level][number]
            accept = _tag_acceptor(pattern, alternative, indexed, step) if indexed.has_pos else None
            if accept is not None:
                tag_tried.add(position)
            span = level.find(alternative, accept)
            if span is not None:
                found[position] = CandidateMatch(
                    text=pattern.text,
                    side=pattern.side,
                    step=step,
                    span=indexed.char_span(step, *span),
                    synsets=pattern.synsets,
                    index=pattern.index,
                    as_typed=number == 0,
                    specificity=pattern.specificity,
                    reading=level.reading(*span, alternative) if step == Step.LEMMA else None,
                )
    return found, tag_tried


def _match_stems(cset: CandidateSet, indexed: _Indexed, tag_tried: set[int]) -> list[CandidateMatch]:
    """The last step: candidates whose Snowball stems occur in order in the translation's stems."""
    level = indexed.stems
    if level is None:  # the translation has no stems (the backend gives none): this step finds nothing
        return []
    matches: list[CandidateMatch] = []
    triggers = cset.stem_triggers
    common = triggers.keys() & level.keys  # only candidates whose first stem occurs are worth a search
    if not common:
        return matches
    positions = sorted(position for first in common for position in triggers[first])
    for position in positions:
        pattern = cset.patterns[position]
        if pattern.stem is None or position in tag_tried:
            continue
        span = _find_stems(level, pattern.stem, _stem_acceptor(pattern, indexed))
        if span is not None:
            matches.append(
                CandidateMatch(
                    text=pattern.text,
                    side=pattern.side,
                    step=Step.STEM,
                    span=indexed.char_span(Step.WORD, *span),
                    synsets=pattern.synsets,
                    index=pattern.index,
                    as_typed=False,
                    specificity=pattern.specificity,
                )
            )
    return matches


def _stem_acceptor(pattern: CandidatePattern, indexed: _Indexed) -> Callable[[int, int, int], bool] | None:
    """Whether the translation's word at a position may stand for word ``k`` of segment ``i`` of the candidate at the
    stem step: only when it cannot be another word. A word the analyser's dictionary knows (``settled``) counts only
    when one of its forms or lemmas is the candidate word as typed (the inflection the dictionary ties to it):
    «Schule» is not ``Schüler``, «bezeichnet» (bezeichnen) is not ``Bezeichnung``, «право» (право, правый) is not
    ``правит``. A word the dictionary does not know (``chupitos``) has nothing but its stem to go by: its stem
    decides. None when the analyser settles nothing (every stem counts).
    """
    settled = indexed.settled
    lemma_sets = pattern.stem_lemmas
    if not settled or lemma_sets is None:
        return None

    def accept(position: int, segment: int, word: int) -> bool:
        if position >= len(settled) or not settled[position]:
            return True
        return not lemma_sets[segment][word].isdisjoint(indexed.forms(position))

    return accept


def _find_stems(
    level: _Level, pattern: Pattern, accept: Callable[[int, int, int], bool] | None
) -> tuple[int, int] | None:
    """``level.find(pattern)`` where every word of the run must pass ``accept`` (leftmost accepted run of each
    segment in turn: taking the earliest one leaves the most room for the segments after it)."""
    if accept is None:
        return level.find(pattern)
    start: int | None = None
    position = 0
    for number, segment in enumerate(pattern):
        found = level.find_segment(segment, position)
        while found is not None and not all(accept(found + k, number, k) for k in range(len(segment))):
            found = level.find_segment(segment, found + 1)
        if found is None:
            return None
        start = found if start is None else start
        position = found + len(segment)
    return (start, position) if start is not None else None


def match_stem_step(analysis: AnalysedText, candidates: CandidateSet | Sequence[CandidatePattern]) -> MatchResult:
    """Only the last step, for a translation ``match_translation`` found a MISS before stems were added to it.

    Cross-PoS candidates are skipped when the analysis has tags (their tag can't be checked on a stem).
    """
    cset = candidates if isinstance(candidates, CandidateSet) else candidate_set(candidates)
    indexed = _Indexed(analysis, stems_only=True)
    if indexed.stems is None:
        return MatchResult(Outcome.MISS, None, False, ())
    tagged = {i for i, p in enumerate(cset.patterns) if p.candidate.pos is not None} if indexed.has_pos else set()
    return _decide(_match_stems(cset, indexed, tagged))


def _decide(matches: list[CandidateMatch]) -> MatchResult:
    """GOOD / BAD / MISS from the matches that count; outranked ones stay in ``matches`` for inspection only."""
    if not matches:
        return MatchResult(Outcome.MISS, None, False, ())
    good = [m for m in matches if m.side == GOOD and not m.outranked]
    bad = [m for m in matches if m.side == BAD and not m.outranked]
    if bad:
        return MatchResult(Outcome.BAD, _best(bad), bool(good), tuple(matches))
    return MatchResult(Outcome.GOOD, _best(good), False, tuple(matches))


@dataclass(frozen=True)
class _Occurrence:
    """One place where a candidate matched at steps 2, and whether the translation's own text matched there."""

    step: Step
    number: int
    start: int
    end: int
    span: tuple[int, int] | None
    #: found in the translation's words or tokens as written, not only in its lemmas (readings)
    as_written: bool


def _occurrences(pattern: CandidatePattern, indexed: _Indexed) -> list[_Occurrence]:
    """Every place the candidate matches at the three levels (in step order); lemma places that are also word or
    token places (the word is its own lemma) count as written."""
    found: list[_Occurrence] = []
    for number_of_level, step in enumerate(_LEVEL_STEPS):
        level = indexed.levels[step]
        for number, alternative in enumerate((pattern.lemma, pattern.word, pattern.token)[number_of_level]):
            accept = _tag_acceptor(pattern, alternative, indexed, step)
            for start, end in level.find_all(alternative, accept):
                span = indexed.char_span(step, start, end)
                found.append(_Occurrence(step, number, start, end, span, step != Step.LEMMA))
    written = {o.span for o in found if o.as_written}
    return [o if o.as_written or o.span not in written else replace(o, as_written=True) for o in found]


def _overlap(one: tuple[int, int] | None, other: tuple[int, int] | None) -> bool:
    if one is None or other is None:
        return False
    return one == other or (one[0] < other[1] and other[0] < one[1])


def _by_specificity(found: dict[int, CandidateMatch], cset: CandidateSet, indexed: _Indexed) -> list[CandidateMatch]:
    """SPEC §8 step 4, when GOOD and BAD candidates both matched at steps 2: on one span, a candidate found in the
    translation as written outranks one of the other side found there only through its analysis (``акра`` as
    typed over ``акр`` through the lemma of «акра»). That written word being a form of the other candidate's lemma,
    the analysis cannot tell the two apart anywhere: that candidate's other lemma-only places are outranked too
    (``тоника`` written in «без тоника» outranks ``тоник`` through «с тоником»). MuCoW's scorer has the same order —
    tokens first, lemmas only if no token matched — per sentence; here per lemma, so a BAD candidate of another
    lemma found through its lemma elsewhere still counts (``sparo`` in «gli spari» beside a written ``goccio``).
    A candidate keeps its first place that is not outranked; with none left it is kept, marked ``outranked``.
    """
    places = {position: _occurrences(cset.patterns[position], indexed) for position in found}
    written: dict[str, list[tuple[int, int] | None]] = {GOOD: [], BAD: []}
    for position, occurrences in places.items():
        written[found[position].side].extend(o.span for o in occurrences if o.as_written)
    out = []
    for position in sorted(found):
        match = found[position]
        against = written[BAD if match.side == GOOD else GOOD]
        mine = places[position]
        standing = [o for o in mine if o.as_written or not any(_overlap(o.span, span) for span in against)]
        if len(standing) < len(mine):  # the other side's written word is a form of this lemma: ambiguous everywhere
            standing = [o for o in standing if o.as_written]
        if not standing:
            out.append(replace(match, outranked=True))
        elif any(o.step == match.step and o.span == match.span for o in standing):
            out.append(match)
        else:
            first = standing[0]
            pattern = cset.patterns[position]
            alternative = (pattern.lemma, pattern.word, pattern.token)[_LEVEL_STEPS.index(first.step)][first.number]
            level = indexed.levels[first.step]
            reading = level.reading(first.start, first.end, alternative) if first.step == Step.LEMMA else None
            out.append(replace(match, step=first.step, span=first.span, as_typed=first.number == 0, reading=reading))
    return out


def match_translation(analysis: AnalysedText, candidates: CandidateSet | Sequence[CandidatePattern]) -> MatchResult:
    """Classify one translation (SPEC §8 steps 2–5).

    Steps 2 (lemmas, words, tokens) run for every candidate; when both sides matched, specificity on each span
    decides which count (``_by_specificity``). The surface step runs only when none matched, and skips cross-PoS
    candidates whose text was found only under another tag (the surface step can't see tags); the stem step
    (``match_stem_step``) only after that. BAD wins over GOOD; ``both_matched`` flags translations where GOOD and
    BAD candidates both count: a conflict that specificity could not settle.
    """
    cset = candidates if isinstance(candidates, CandidateSet) else candidate_set(candidates)
    indexed = _Indexed(analysis)
    found, tag_tried = _match_levels(cset, indexed)
    matches = [found[position] for position in sorted(found)]
    if matches and {m.side for m in matches} == {GOOD, BAD}:
        matches = _by_specificity(found, cset, indexed)
    if not matches:
        text = surface_fold(analysis.text)
        surface = cset.surface
        retry = (  # ``in`` first: most candidates are absent, and it is far cheaper than the full search
            _match_surface(p, text, surface[position])
            for position, p in enumerate(cset.patterns)
            if surface[position] and surface[position][0].text in text and position not in tag_tried
        )
        matches = [m for m in retry if m is not None]
    if not matches and indexed.stems is not None:
        matches = _match_stems(cset, indexed, tag_tried)
    return _decide(matches)
