"""Candidates compiled once per item-language: their alternatives per level (``compile_candidate``) and the index
by first word that matching walks (``candidate_set``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from annotator.domain.candidates import WILDCARD, Candidate, parse_candidate
from annotator.domain.matching.fold import SurfacePiece, fold, segments_of, surface_pieces_of
from annotator.domain.matching.results import BAD, GOOD, AnalysedText, Step

#: A pattern: wildcard-separated segments, each a tuple of folded strings (one segment when there is no ``*``).
Pattern = tuple[tuple[str, ...], ...]


class CandidatePattern(NamedTuple):
    """A candidate ready to match: its alternatives per level and its provenance (a typed row, one per candidate of
    every item-language).

    ``position`` is its place within its side in the dataset (the tie-break of ``CandidateMatch.index``).
    ``specificity`` is the number of non-wildcard tokens: among matches at the same step the longer candidate is the
    better ω. The surface pieces are compiled on first use (``surface_pieces_of``), as most candidates never need them.
    """

    text: str
    side: str
    candidate: Candidate
    position: int = 0
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


def candidate_segments(candidate: Candidate) -> list[str]:
    """The wildcard-free pieces of a candidate as text: what the analyser must analyse for it."""
    if WILDCARD not in candidate.tokens:
        return [candidate.text]  # the tokens are the text split on spaces
    return [" ".join(segment) for segment in segments_of(candidate.tokens)]


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


def _analysed_lemmas(analysis: AnalysedText, words: tuple[str, ...]) -> tuple[str, ...]:
    """A multiword candidate segment's lemma form (``words``: its words folded): a word that is one of its own
    readings stays as typed.

    Candidates are lemmas: the analyser may only reduce an inflected word (``vigili`` → vigile), never turn a word
    that already is a lemma into another lemma (``stelle`` → stellen, ``суть`` → быть).
    """
    extra = getattr(analysis, "readings", ()) or ()
    out = []
    for i, (folded, lemma) in enumerate(zip(words, analysis.lemmas, strict=True)):
        folded_lemma = fold(lemma)
        readings = extra[i] if i < len(extra) else ()
        own = folded == folded_lemma or any(fold(r) == folded for r in readings)
        out.append(folded if own else folded_lemma)
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
    raw_segments = segments_of(tokens)
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
    words = tuple([tuple(map(fold, a.words)) for a in analyses])
    if all(a.tokens == a.words for a in analyses):
        token_form = words  # the tokens are the words (no contraction): the same folded form
    else:
        token_form = tuple([tuple(map(fold, a.tokens)) for a in analyses])
    lemmas = tuple([w if len(w) == 1 else _analysed_lemmas(a, w) for a, w in zip(analyses, words, strict=True)])
    lemma_sets = tuple(map(_word_lemma_sets, words, lemmas)) if stem is not None else None
    word = _with(raw, words)
    lemma = word if lemmas == words else _with(raw, lemmas)
    return lemma, word, word if token_form == words else _with(raw, token_form), specificity, stem, lemma_sets


def _word_lemma_sets(words: tuple[str, ...], lemmas: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """Per word of a candidate segment (its folded ``words`` and their lemma form): what a settled translation word
    must be to count at the stem step (see ``_stem_acceptor``). A one-word candidate is a lemma as typed; a word of a
    multiword one may also be its analysed lemma, as at the lemma step (``_analysed_lemmas``)."""
    if len(words) == 1:
        return (frozenset(words),)
    return tuple(frozenset({word, lemma}) for word, lemma in zip(words, lemmas, strict=True))


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
    def surface_starts(self) -> tuple[tuple[int, str], ...]:
        """(position, text of its first surface piece) of each pattern that has one, in order: the surface step
        tries a pattern only when that text occurs at all."""
        return tuple((position, pieces[0].text) for position, pieces in enumerate(self.surface) if pieces)

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
    """Index compiled candidates for ``match_translation`` (which also accepts a plain list, indexing it each call).

    A level whose alternatives are those of the level before for every candidate shares that level's index."""
    patterns = tuple(patterns)
    repeats = (
        False,
        all(p.word == p.lemma for p in patterns),
        all(p.token == p.word for p in patterns),
    )
    lemma = _triggers(patterns, 0)
    word = lemma if repeats[1] else _triggers(patterns, 1)
    token = word if repeats[2] else _triggers(patterns, 2)
    return CandidateSet(patterns, (lemma, word, token), repeats)


def _triggers(patterns: tuple[CandidatePattern, ...], level: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """First word → (pattern position, alternative number) of every alternative at one level (0 lemma, 1 word,
    2 token), ascending."""
    index: dict[str, list[tuple[int, int]]] = {}
    for position, pattern in enumerate(patterns):
        for number, alternative in enumerate((pattern.lemma, pattern.word, pattern.token)[level]):
            first = alternative[0][0]
            entries = index.get(first)
            if entries is None:
                index[first] = [(position, number)]
            else:
                entries.append((position, number))
    return {first: tuple(entries) for first, entries in index.items()}
