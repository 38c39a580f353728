"""Refinement statistics (SPEC §6, DiBiMT Table 2): how much translators changed the pre-populated GOOD sets.

Plain functions over plain data (no database, no UI) so the command line, the Dataset page and the export's
``stats.json`` compute the same numbers, and a test can check them against figures worked out by hand.

- % added   = 100 · Σ|Gf \\ G0| / Σ|Gf|   (the paper's %OG)
- % removed = 100 · Σ|G0 \\ Gf| / Σ|G0|   (the paper's %RG)
- % shared  = 100 · identical same-synset pairs / same-synset pairs   (the paper's %SL), plus their mean Jaccard

An added word is any word of Gf not in G0, whoever's and wherever from: one a translator typed or accepted from a
suggestion (its ``origin`` is ``translator``), or one of B0 a translator moved to GOOD (its ``origin`` stays
``lexicon``: the lexicon gave it, for another sense, and its ``synsets`` name that sense). Both count in % added;
``added_moved`` counts the second kind, so the card, the schema and ``stats.json`` say the same thing.

Candidates are compared by SPEC §3 identity (case-folded text + cross-PoS tag). A statistic whose denominator
is empty is ``None`` ("n/a"), never 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

NA = "n/a"


class RefinementRecord(NamedTuple):
    """One done item-language reduced to what §6 needs: its σ and the identities of G0 and Gf. A NamedTuple, the
    cheapest record to build: an export builds one per done item-language."""

    item_id: str
    lang: str
    synset: str
    initial_good: frozenset[str]
    final_good: frozenset[str]
    #: The identities of Gf whose origin is ``lexicon`` (pre-populated, in G0 or moved from B0).
    lexicon_good: frozenset[str] = frozenset()


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B|; two empty sets are identical, so 1.0 (keeps Jaccard = 1 exactly for identical pairs)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def percent(numerator: int, denominator: int) -> float | None:
    return 100.0 * numerator / denominator if denominator else None


@dataclass(frozen=True)
class LanguageRefinement:
    """The raw sums for one language; the percentages are derived so they can always be re-checked."""

    lang: str
    item_languages: int = 0
    final_good: int = 0
    added: int = 0
    initial_good: int = 0
    removed: int = 0
    pairs: int = 0
    identical_pairs: int = 0
    jaccard_sum: float = 0.0
    #: Of ``added``: the words moved from B0 (origin ``lexicon``); the rest a translator typed or accepted.
    added_moved: int = 0

    @property
    def added_pct(self) -> float | None:
        return percent(self.added, self.final_good)

    @property
    def removed_pct(self) -> float | None:
        return percent(self.removed, self.initial_good)

    @property
    def shared_pct(self) -> float | None:
        return percent(self.identical_pairs, self.pairs)

    @property
    def mean_jaccard(self) -> float | None:
        return self.jaccard_sum / self.pairs if self.pairs else None

    def to_json(self) -> dict[str, object]:
        return {
            "item_languages": self.item_languages,
            "added_pct": self.added_pct,
            "removed_pct": self.removed_pct,
            "shared_pct": self.shared_pct,
            "mean_jaccard": self.mean_jaccard,
            "final_good": self.final_good,
            "added": self.added,
            "added_moved": self.added_moved,
            "initial_good": self.initial_good,
            "removed": self.removed,
            "pairs": self.pairs,
            "identical_pairs": self.identical_pairs,
        }


#: The statistics of the Mean row, in display order.
MEAN_FIELDS = ("added_pct", "removed_pct", "shared_pct", "mean_jaccard")


@dataclass(frozen=True)
class RefinementTable:
    """Table 2: one row per language plus the Mean row (unweighted mean over languages that have a value)."""

    languages: tuple[LanguageRefinement, ...]

    @property
    def mean(self) -> dict[str, float | None]:
        return {name: mean_of([getattr(row, name) for row in self.languages]) for name in MEAN_FIELDS}

    def row(self, lang: str) -> LanguageRefinement:
        for row in self.languages:
            if row.lang == lang:
                return row
        raise KeyError(lang)

    def to_json(self) -> dict[str, object]:
        return {
            "languages": {row.lang: row.to_json() for row in self.languages},
            "mean": self.mean,
        }


def mean_of(values: Sequence[float | None]) -> float | None:
    """Unweighted mean of the languages that have a value: an n/a language is left out, not counted as 0."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


#: A record reduced to what the sums need: (item id, σ, sorted final GOOD identities, |G0|, |Gf - G0|, |G0 - Gf|,
#: how many words of Gf - G0 are of origin ``lexicon``). The identities are sorted, so two sets are equal exactly
#: when their tuples are. A plain tuple, private to this module: a table keeps one per done item-language until
#: every record is read, and the collector stops tracking a plain tuple of strings and numbers where it walks a
#: NamedTuple at every full pass (measured on the export: benchmarks/RESULTS.md, "Typed rows").
_Reduced = tuple[str, str, tuple[str, ...], int, int, int, int]


def _reduce(record: RefinementRecord) -> _Reduced:
    initial, final = record.initial_good, record.final_good
    added = final - initial
    moved = len(added & record.lexicon_good)
    return record.item_id, record.synset, tuple(sorted(final)), len(initial), len(added), len(initial - final), moved


def _language_sums(lang: str, records: Sequence[_Reduced]) -> LanguageRefinement:
    added = removed = final = initial = moved = 0
    first_seen: dict[str, int] = {}  # σ -> the order it first appears in
    for _item_id, synset, final_good, initial_good, record_added, record_removed, record_moved in records:
        final += len(final_good)
        initial += initial_good
        added += record_added
        removed += record_removed
        moved += record_moved
        first_seen.setdefault(synset, len(first_seen))
    pairs = identical = 0
    jaccard_sum = 0.0
    # The records of each σ together, the σs in the order they first appear and each σ's items by id: the order the
    # Jaccard sum is added up in (floating point). Sorting one list, not a list per σ, keeps no container per σ.
    ranked = sorted(records, key=lambda r: (first_seen[r[1]], r[0]))
    for _synset, group in itertools.groupby(ranked, key=lambda r: r[1]):
        finals = [record[2] for record in group]
        if len(finals) < 2:
            continue
        # One record per item: unordered pairs of distinct items with the same σ.
        members = [(final_good, frozenset(final_good)) for final_good in finals]
        for (final_a, set_a), (final_b, set_b) in itertools.combinations(members, 2):
            pairs += 1
            identical += final_a == final_b
            jaccard_sum += jaccard(set_a, set_b)
    return LanguageRefinement(lang, len(records), final, added, initial, removed, pairs, identical, jaccard_sum, moved)


def refinement_table(records: Iterable[RefinementRecord], languages: Sequence[str]) -> RefinementTable:
    """Table 2 for ``languages`` (a language without done item-languages gets an all-n/a row). Each record is
    reduced as it is read (see ``_Reduced``), so a generator of records keeps none of them alive."""
    grouped: dict[str, dict[str, _Reduced]] = {lang: {} for lang in languages}
    for record in records:
        group = grouped.get(record.lang)
        if group is not None:
            group[record.item_id] = _reduce(record)  # an item counts once per language
    return RefinementTable(tuple(_language_sums(lang, list(grouped[lang].values())) for lang in languages))


def format_value(value: float | None, digits: int = 1) -> str:
    """``54.4`` or ``n/a``: how tables show a statistic."""
    return NA if value is None else f"{value:.{digits}f}"
