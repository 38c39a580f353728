"""Cross-language consistency (DiBiMT §4.6, Figure 4): does a system pick the same sense in two languages?

For a system M, two languages L1 and L2 and an item X analysed in both, with a matched candidate ω in each, the
translations agree when the senses of ω in L1 and in L2 share a synset: ``|Ω(ω_L1) ∩ Ω(ω_L2)| > 0``. Ω(ω) is the
candidate's provenance (the synsets the lexicon gave it). A translator-added candidate has no provenance, so its
senses are unknown: such pairs are counted apart, never guessed. Plain data in, plain data out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any


@dataclass(frozen=True)
class SenseChoice:
    """One analysed translation: the matched candidate's provenance, or None when nothing matched (MISS).

    ``synsets`` is ``()`` for a matched candidate without provenance (added by a translator).
    """

    system: str
    item_id: str
    lang: str
    synsets: tuple[str, ...] | None


@dataclass(frozen=True)
class PairConsistency:
    """Consistency of one system across one language pair, with every count behind the share."""

    system: str
    lang1: str
    lang2: str
    consistent: int  # items whose ω in L1 and in L2 share a synset
    compared: int  # items with a matched ω with provenance in both languages
    without_provenance: int  # items matched in both, but an ω has no provenance: counted apart
    unmatched: int  # items analysed in both, with no matched ω in at least one of them (a MISS)
    missing: int  # items analysed in only one of the two languages

    @property
    def percent(self) -> float | None:
        """Share of consistent items, in percent; None ("n/a") when nothing could be compared."""
        return 100.0 * self.consistent / self.compared if self.compared else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "lang1": self.lang1,
            "lang2": self.lang2,
            "percent": self.percent,
            "consistent": self.consistent,
            "compared": self.compared,
            "without_provenance": self.without_provenance,
            "unmatched": self.unmatched,
            "missing": self.missing,
        }


def cross_language_consistency(choices: Iterable[SenseChoice]) -> list[PairConsistency]:
    """Every system × unordered language pair (L1 < L2), sorted; linear in the choices plus the pairs compared."""
    by_system: dict[str, dict[str, dict[str, tuple[str, ...] | None]]] = defaultdict(lambda: defaultdict(dict))
    for choice in choices:
        by_system[choice.system][choice.lang][choice.item_id] = choice.synsets
    rows: list[PairConsistency] = []
    for system in sorted(by_system):
        languages = by_system[system]
        for lang1, lang2 in combinations(sorted(languages), 2):
            rows.append(_pair(system, lang1, lang2, languages[lang1], languages[lang2]))
    return rows


def _pair(
    system: str,
    lang1: str,
    lang2: str,
    first: dict[str, tuple[str, ...] | None],
    second: dict[str, tuple[str, ...] | None],
) -> PairConsistency:
    consistent = compared = without_provenance = unmatched = 0
    shared_items = first.keys() & second.keys()
    for item_id in shared_items:
        omega1, omega2 = first[item_id], second[item_id]
        if omega1 is None or omega2 is None:
            unmatched += 1
        elif not omega1 or not omega2:
            without_provenance += 1
        else:
            compared += 1
            consistent += bool(set(omega1) & set(omega2))
    missing = len(first) + len(second) - 2 * len(shared_items)
    return PairConsistency(system, lang1, lang2, consistent, compared, without_provenance, unmatched, missing)


def choice_from_analysed(record: dict[str, Any]) -> SenseChoice:
    """A SenseChoice from one ``analysed.jsonl`` line (the evaluator's output)."""
    omega = record.get("omega")
    synsets = None if omega is None else tuple(record.get("omega_synsets") or ())
    return SenseChoice(str(record["system"]), str(record["id"]), str(record["lang"]), synsets)
