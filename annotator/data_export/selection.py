"""What an export holds (SPEC §5, §6): the project read in one transaction, the export rules applied to it.

The rules (see ``dataset.py``): excluded items are never exported; an item is exported when done in every project
language; an item discarded in any language is left out unless ``keep_partially_discarded``; unfinished items only
with ``include_incomplete``; with ``usable_only`` (publish's default) an item-language that is not usable (not done,
or done with an empty GOOD list) is left out of its item, and an item left without one is left out (``unusable``).
The refinement statistics cover every done item-language of the non-excluded items, whatever the options. Pure
apart from ``load_project_data`` / ``collect``, so the rules are tested without files.

Data layout: the snapshot and the selection hold the whole project for the export's run (a 10,000-item project is
60,000 rows), so every row they keep is a plain tuple of strings and numbers (the fields of ``ItemRow`` and
``CandidateSetsRow``), never a dataclass, an enum member, a NamedTuple instance, a dict or a list per row: Python's
cyclic garbage collector stops tracking an exact tuple of such values at its first look, but walked the 300,000
objects of dataclass rows at each of its full collections, a third of the export's time. Readers get NamedTuple
views (``Rows``), built per access so they die young. ``bench_export.py``, 10,000 items × 5 languages, CPU time
on one core: 46285f4 (which paused the collector) 1.41 s, dataclass rows without the pause 2.0 s, these rows 1.34 s;
100,000 items: 46285f4 14.9 s, these rows 13.8 s.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, TypeVar, overload

from annotator.context import ProjectContext
from annotator.data_export.copy_records import agreement_records_in
from annotator.domain.agreement import CopyRecord, agreement_report
from annotator.domain.candidates import key_string
from annotator.domain.dataset_counts import CountedItem, DatasetCounts, counts_of
from annotator.domain.model import Origin, Status
from annotator.domain.refinement_stats import RefinementRecord, RefinementTable, refinement_table
from annotator.domain.settings import ProjectSettings
from annotator.store import double_curation
from annotator.store.double_curation import CopySetsRow
from annotator.store.items import ItemRow, ItemValues
from annotator.store.repository import CandidateSetsRow, CandidateSetsValues

#: Why an item was left out, in the order the reasons are checked.
LEFT_OUT_REASONS = ("excluded", "discarded", "incomplete")
K = TypeVar("K")
R = TypeVar("R")
V = TypeVar("V")

#: The stored statuses the rules test (``CandidateSetsRow.status`` is the string).
DONE, DISCARDED, PENDING = Status.DONE.value, Status.DISCARDED.value, Status.PENDING.value
LEXICON = Origin.LEXICON.value
#: A stored empty candidate list (``candidates_to_json(())``).
EMPTY_LIST = "[]"


@dataclass(frozen=True)
class ExportOptions:
    include_incomplete: bool = False
    keep_partially_discarded: bool = False
    #: Each double-curating translator's own sets in ``dataset.jsonl`` (``annotators`` per language),
    #: under anonymous ids (``A1``, ``A2``… in name order) unless ``annotator_names``.
    with_annotators: bool = False
    annotator_names: bool = False
    #: Only usable item-languages (``is_usable``): what ``publish`` writes unless asked for the rest.
    usable_only: bool = False

    def to_json(self) -> dict[str, bool]:
        return {
            "include_incomplete": self.include_incomplete,
            "keep_partially_discarded": self.keep_partially_discarded,
            "with_annotators": self.with_annotators,
            "annotator_names": self.annotator_names,
            **({"usable_only": True} if self.usable_only else {}),
        }


#: Why an item-language is not usable: its status when not done, or this when done with an empty GOOD list.
EMPTY_GOOD = "empty_good"


def unusable_reason(status: str, stored_good: str) -> str | None:
    """Why an item-language is not usable (its status, or ``EMPTY_GOOD``), None when it is: a row is usable when
    it is done and its GOOD list holds something (every translation of a row without GOOD would score MISS or BAD).
    """
    if status != DONE:
        return status
    return EMPTY_GOOD if stored_good == EMPTY_LIST else None


#: Where ``select`` reads the fields it tests in the plain tuples (``ItemRow`` and ``CandidateSetsRow`` order).
_ID: Final = 0
_LEMMA: Final = 5
_POS: Final = 6
_SYNSET: Final = 7
_EXCLUDED: Final = 12
_LANG: Final = 1
_STATUS: Final = 2
_GOOD: Final = 3
_INITIAL_GOOD: Final = 5
assert (ItemRow._fields[_ID], ItemRow._fields[_LEMMA], ItemRow._fields[_POS]) == ("id", "lemma", "pos")
assert (ItemRow._fields[_SYNSET], ItemRow._fields[_EXCLUDED]) == ("synset", "excluded")
assert (CandidateSetsRow._fields[_LANG], CandidateSetsRow._fields[_STATUS]) == ("lang", "status")
assert (CandidateSetsRow._fields[_GOOD], CandidateSetsRow._fields[_INITIAL_GOOD]) == ("good", "initial_good")


@dataclass(frozen=True)
class ProjectData:
    """Everything an export reads, taken in one read transaction (a consistent snapshot), as plain tuples (see the
    module docstring): the items by id, and each item's item-languages by item id."""

    settings: ProjectSettings
    items: list[ItemValues]
    states: dict[str, tuple[CandidateSetsValues, ...]]
    #: The translators' copies of double-curated item-languages, and each copy as agreement data.
    copies: dict[tuple[str, str], tuple[CopySetsRow, ...]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)


def load_project_data(project: ProjectContext) -> ProjectData:
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
        settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
        items = sorted(project.repo.iter_item_rows(conn), key=lambda item: item[_ID])
        states = _grouped(project.repo.iter_candidate_sets(conn), lambda row: row[0])
        copies = _grouped(double_curation.iter_copy_sets(conn), lambda copy: (copy.item_id, copy.lang))
        records = agreement_records_in(conn, [c for group in copies.values() for c in group])
    return ProjectData(settings, items, states, copies, records)


def _grouped(rows: Iterable[R], key: Callable[[R], K]) -> dict[K, tuple[R, ...]]:
    """Rows read in key order grouped by key, each group a tuple (which the collector untracks, a list it never
    does); a key met again later (not in key order) still gets all its rows."""
    groups: dict[K, tuple[R, ...]] = {}
    for group_key, group in itertools.groupby(rows, key):
        groups[group_key] = groups.get(group_key, ()) + tuple(group)
    return groups


def empty_row(item_id: str, lang: str) -> CandidateSetsValues:
    """A missing item-language (a language added after import) counts as pending with empty sets."""
    return (item_id, lang, PENDING, "[]", "[]", "[]", None, "", None, None)


#: ``key_string`` memoised: the same lemma recurs in G0 and Gf and across items, and a 10,000-item export asks
#: for hundreds of thousands of identities.
_identity = functools.lru_cache(maxsize=1 << 16)(key_string)


def keys(stored: str) -> frozenset[str]:
    """SPEC §3 identities (case-folded text + tag) of a stored candidate list."""
    return frozenset(_identity(c["text"], c["pos"]) for c in json.loads(stored))


def _identities(stored: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A stored list's §3 identities, all and those of origin ``lexicon``, from one decoding (plain tuples: the
    collector stops tracking them)."""
    everything, lexicon = [], []
    for candidate in json.loads(stored):
        identity = _identity(candidate["text"], candidate["pos"])
        everything.append(identity)
        if candidate["origin"] == LEXICON:
            lexicon.append(identity)
    return tuple(everything), tuple(lexicon)


class ExportedItem(NamedTuple):
    """An exported item and its exported item-languages, in language order."""

    item: ItemRow
    states: tuple[CandidateSetsRow, ...]

    @classmethod
    def of(cls, values: tuple[ItemValues, tuple[CandidateSetsValues, ...]]) -> ExportedItem:
        item, states = values
        return cls(ItemRow(*item), tuple(CandidateSetsRow(*state) for state in states))


class DiscardedItemLanguage(NamedTuple):
    """A discarded item-language, and whether its item is exported (in its other languages)."""

    item: ItemRow
    state: CandidateSetsRow
    item_exported: bool

    @classmethod
    def of(cls, values: tuple[ItemValues, CandidateSetsValues, bool]) -> DiscardedItemLanguage:
        item, state, exported = values
        return cls(ItemRow(*item), CandidateSetsRow(*state), exported)


class Rows(Sequence[V]):
    """A selection's list of rows, kept as plain tuples (``values``) and read as their NamedTuple views, built at
    each access so they die young (see the module docstring)."""

    def __init__(self, view: Callable[[Any], V]) -> None:
        self.values: list[Any] = []
        self._view = view

    def __len__(self) -> int:
        return len(self.values)

    @overload
    def __getitem__(self, index: int) -> V: ...

    @overload
    def __getitem__(self, index: slice) -> list[V]: ...

    def __getitem__(self, index: int | slice) -> V | list[V]:
        if isinstance(index, slice):
            return [self._view(values) for values in self.values[index]]
        return self._view(self.values[index])

    def __iter__(self) -> Iterator[V]:
        return map(self._view, self.values)

    def __eq__(self, other: object) -> bool:
        """Equal to the list of the same views (``selection.items == []``), as when the rows were a list."""
        if isinstance(other, Rows):
            return bool(self.values == other.values)
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it stands for


@dataclass
class Selection:
    """Which items and item-languages an export holds, and why the others were left out."""

    languages: tuple[str, ...]
    options: ExportOptions
    items: Rows[ExportedItem] = field(default_factory=lambda: Rows(ExportedItem.of))
    #: Every done item-language of a non-excluded item (item id, language, σ, stored G0 and Gf): the §6 scope,
    #: whatever the options.
    done: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    discarded: Rows[DiscardedItemLanguage] = field(default_factory=lambda: Rows(DiscardedItemLanguage.of))
    left_out: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEFT_OUT_REASONS, 0))
    copies: dict[tuple[str, str], tuple[CopySetsRow, ...]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)
    #: With ``usable_only``: the item-languages left out of the items kept or left out as not usable, per language
    #: and reason (``unusable_reason``).
    unusable: dict[str, Counter[str]] = field(default_factory=dict)
    #: Per language, over the item-languages of the items not excluded and not discarded: how many there are and
    #: how many the lexicon gave no GOOD word (an empty G0): the lexicons' coverage, as the card states it.
    coverage: dict[str, Counter[str]] = field(default_factory=dict)

    def annotator_ids(self) -> dict[str, str]:
        """Name → exported id: ``A1``, ``A2``… in name order (anonymised), or the names themselves on request."""
        names = sorted({c.annotator for group in self.copies.values() for c in group})
        if self.options.annotator_names:
            return {name: name for name in names}
        return {name: f"A{n}" for n, name in enumerate(names, start=1)}

    def agreement(self) -> dict[str, Any]:
        """Agreement between the translators of double-curated item-languages (over every assignment
        whose copies are all finished, like §6 independent of the export options), translators anonymised."""
        report = agreement_report(self.copy_records, self.languages).to_json()
        ids = self.annotator_ids()
        pairs = report["pairs"]
        if not isinstance(pairs, list):
            raise TypeError("agreement_report's pairs are a list")
        for pair in pairs:
            pair["annotators"] = sorted(ids[name] for name in pair["annotators"])
        return report

    def per_language(self) -> dict[str, int]:
        held = Counter(state[_LANG] for _item, states in self.items.values for state in states)
        return {lang: held[lang] for lang in self.languages}

    def refinement(self) -> RefinementTable:
        """Table 2 over ``done`` (SPEC §6: every done item-language of a non-excluded item, not only the exported
        ones, so the figures do not change with the export options)."""
        return refinement_table(self._records(), self.languages)

    def _records(self) -> Iterator[RefinementRecord]:
        """A record per done item-language, each stored list decoded once: G0 is the same text for the items of
        a synset (pre-population fills it per synset) and Gf often the same as G0, so most lists are met again.
        The identities are remembered as plain tuples, which the collector does not track (see the module
        docstring), and the remembered lists are dropped with the generator."""
        seen: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for item_id, lang, synset, initial_good, good in self.done:
            initial = seen.get(initial_good)
            if initial is None:
                initial = seen[initial_good] = _identities(initial_good)
            final = seen.get(good)
            if final is None:
                final = seen[good] = _identities(good)
            yield RefinementRecord(
                item_id, lang, synset, frozenset(initial[0]), frozenset(final[0]), frozenset(final[1])
            )

    def counts(self) -> DatasetCounts:
        values = self.items.values
        return counts_of(CountedItem(item[_ID], item[_LEMMA], item[_POS], item[_SYNSET]) for item, _states in values)


def select(data: ProjectData, options: ExportOptions) -> Selection:
    """Apply the export rules (module docstring) to a snapshot; pure, so it is tested without writing files."""
    languages = tuple(sorted(data.settings.languages))
    selection = Selection(languages, options, copies=data.copies, copy_records=data.copy_records)
    exported, done, discarded_rows = selection.items.values, selection.done, selection.discarded.values
    if options.usable_only:
        selection.left_out["unusable"] = 0
        selection.unusable = {lang: Counter() for lang in languages}
    coverage = selection.coverage = {lang: Counter() for lang in languages}
    for item in data.items:
        item_id = item[_ID]
        if item[_EXCLUDED]:
            selection.left_out["excluded"] += 1
            continue
        held = {state[_LANG]: state for state in data.states.get(item_id, ())}
        states = tuple(held.get(lang) or empty_row(item_id, lang) for lang in languages)
        synset = item[_SYNSET]
        done.extend((item_id, s[_LANG], synset, s[_INITIAL_GOOD], s[_GOOD]) for s in states if s[_STATUS] == DONE)
        discarded = [s for s in states if s[_STATUS] == DISCARDED]
        kept = tuple(s for s in states if s[_STATUS] != DISCARDED)
        for state in kept:
            counted = coverage[state[_LANG]]
            counted["item_languages"] += 1
            counted["empty_initial_good"] += state[_INITIAL_GOOD] == EMPTY_LIST
        reason: str | None = None
        if not kept or (discarded and not options.keep_partially_discarded):
            reason = "discarded"
        elif not options.include_incomplete and any(s[_STATUS] != DONE for s in kept):
            reason = "incomplete"
        elif options.usable_only:
            kept = _usable(kept, selection.unusable)
            reason = None if kept else "unusable"
        if reason is None:
            exported.append((item, kept))
        else:
            selection.left_out[reason] += 1
        discarded_rows.extend((item, state, reason is None) for state in discarded)
    return selection


def _usable(
    states: tuple[CandidateSetsValues, ...], unusable: dict[str, Counter[str]]
) -> tuple[CandidateSetsValues, ...]:
    """The usable ones of an item's kept item-languages; the others counted in ``unusable`` by reason."""
    usable = []
    for state in states:
        why = unusable_reason(state[_STATUS], state[_GOOD])
        if why is None:
            usable.append(state)
        else:
            unusable[state[_LANG]][why] += 1
    return tuple(usable)


def stats_json(selection: Selection) -> dict[str, Any]:
    table = selection.refinement()
    return {
        "scope": "refinement: done item-languages of the non-excluded items (SPEC §6); counts: the exported items",
        "options": selection.options.to_json(),
        "refinement": table.to_json(),
        "counts": selection.counts().to_json(),
        "items_per_language": selection.per_language(),
        "agreement": selection.agreement(),
    }


def collect(project: ProjectContext, options: ExportOptions | None = None) -> Selection:
    """What an export with ``options`` would hold right now (``annotator stats`` and the Dataset page)."""
    return select(load_project_data(project), options or ExportOptions())
