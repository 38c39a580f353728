"""Matching one analysed translation against a compiled candidate set (SPEC §8 steps 2–5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from annotator.domain.matching.compile import _LEVEL_STEPS, CandidatePattern, CandidateSet, Pattern, candidate_set
from annotator.domain.matching.fold import SurfacePiece, find_surface, surface_fold
from annotator.domain.matching.levels import _Indexed, _Level
from annotator.domain.matching.results import (
    _STEP_ORDER,
    BAD,
    GOOD,
    AnalysedText,
    CandidateMatch,
    MatchResult,
    Outcome,
    Step,
)


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
        index=pattern.position,
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
                    index=pattern.position,
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
                    index=pattern.position,
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
        surface, patterns = cset.surface, cset.patterns
        retry = (  # ``in`` first: most candidates are absent, and it is far cheaper than the full search
            _match_surface(patterns[position], text, surface[position])
            for position, first in cset.surface_starts
            if first in text and position not in tag_tried
        )
        matches = [m for m in retry if m is not None]
    if not matches and indexed.stems is not None:
        matches = _match_stems(cset, indexed, tag_tried)
    return _decide(matches)
