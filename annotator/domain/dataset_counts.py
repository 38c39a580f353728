"""Dataset counts (SPEC §6, DiBiMT Table 1): items, distinct lemmas and distinct synsets, for all and per POS.

Pure over ``Item``s so the export, the command line and the Dataset page count the same way. A lemma is its
case-folded text: in the "all" column a lemma that is both a noun and a verb counts once (as in the paper,
where 186 noun lemmas + 147 verb lemmas > 305 lemmas).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from annotator.domain.model import TARGET_POS, Item

ALL = "all"
#: Columns always shown (the paper's); ADJ and ADV are added when the dataset has them.
ALWAYS_SHOWN = ("NOUN", "VERB")
ROWS = ("items", "lemmas", "synsets")


@dataclass(frozen=True)
class CountColumn:
    items: int = 0
    lemmas: int = 0
    synsets: int = 0

    def to_json(self) -> dict[str, int]:
        return {"items": self.items, "lemmas": self.lemmas, "synsets": self.synsets}


@dataclass(frozen=True)
class DatasetCounts:
    """Table 1. ``columns`` maps ``all`` and each shown POS to its counts, in display order."""

    columns: dict[str, CountColumn] = field(default_factory=dict)

    def to_json(self) -> dict[str, dict[str, int]]:
        return {name: column.to_json() for name, column in self.columns.items()}

    def rows(self) -> list[list[object]]:
        """[[row label, value per column...], ...] for printing."""
        return [[row, *(getattr(col, row) for col in self.columns.values())] for row in ROWS]


class CountedItem(NamedTuple):
    """What Table 1 counts of an item: its id, λ (lemma and POS) and σ."""

    id: str
    lemma: str
    pos: str
    synset: str


#: A column's distinct ids, case-folded lemmas and synsets.
_Distinct = tuple[set[str], set[str], set[str]]


def _column(distinct: _Distinct) -> CountColumn:
    ids, lemmas, synsets = distinct
    return CountColumn(items=len(ids), lemmas=len(lemmas), synsets=len(synsets))


def dataset_counts(items: Iterable[Item]) -> DatasetCounts:
    """Counts for all items, NOUN and VERB always, then any other POS present (ADJ, ADV, in UPOS order)."""
    return counts_of(CountedItem(item.id, item.target.lemma, item.target.pos, item.synset) for item in items)


def counts_of(items: Iterable[CountedItem]) -> DatasetCounts:
    """``dataset_counts`` over the counted fields only (the export keeps its items as plain rows, not ``Item``s).
    It keeps only the distinct strings per column, not the items, so each ``CountedItem`` dies as soon as it is
    counted (100,000 of them kept alive made the cyclic garbage collector walk them all)."""
    everything: _Distinct = (set(), set(), set())
    by_pos: dict[str, _Distinct] = {}
    for item_id, lemma, pos, synset in items:
        column = by_pos.get(pos)
        if column is None:
            column = by_pos[pos] = (set(), set(), set())
        folded = lemma.casefold()
        for ids, lemmas, synsets in (everything, column):
            ids.add(item_id)
            lemmas.add(folded)
            synsets.add(synset)
    order = [*ALWAYS_SHOWN, *(p for p in TARGET_POS if p not in ALWAYS_SHOWN and p in by_pos)]
    order += sorted(p for p in by_pos if p not in order)
    columns = {ALL: _column(everything)}
    columns.update({pos: _column(by_pos.get(pos) or (set(), set(), set())) for pos in order})
    return DatasetCounts(columns)
