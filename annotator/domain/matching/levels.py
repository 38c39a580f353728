"""The analysed translation indexed for matching: each level (lemmas, words, tokens, stems) folded and searched."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from annotator.domain.matching.compile import Pattern
from annotator.domain.matching.fold import _FOLD_CACHE, fold
from annotator.domain.matching.results import AnalysedText, Step


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
        seq = tuple(map(get, values))  # in C: the memo holds nearly every word
        if None in seq:
            seq = tuple([folded if folded is not None else fold(v) for folded, v in zip(seq, values, strict=True)])
        self.seq: tuple[str, ...] = seq  # type: ignore[assignment]  # no None left (replaced above)
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
