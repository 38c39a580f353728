"""What an export holds (SPEC §5, §6): the project read in one transaction, the export rules applied to it.

The rules (see ``dataset.py``): excluded items are never exported; an item is exported when done in every project
language; an item discarded in any language is left out unless ``keep_partially_discarded``; unfinished items only
with ``include_incomplete``; with ``usable_only`` (publish's default) an item-language that is not usable (not done,
or done with an empty GOOD list) is left out of its item, and an item left without one is left out (``unusable``).
The refinement statistics cover every done item-language of the non-excluded items, whatever the options. Pure
apart from ``load_project_data`` / ``collect``, so the rules are tested without files.

Data layout: the snapshot and the selection hold the whole project for the export's run, so each row they keep is
one ``typing.NamedTuple`` of strings and numbers (``ItemRow``, ``CandidateSetsRow``, ``DoneRow``), never a dataclass
holding an enum member, a dict or a list per row.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import msgspec

from annotator.context import ProjectContext
from annotator.data_export.copy_records import agreement_records_in
from annotator.domain.agreement import CopyRecord, agreement_report
from annotator.domain.candidates import key_string
from annotator.domain.dataset_counts import CountedItem, DatasetCounts, counts_of
from annotator.domain.model import Origin, Status
from annotator.domain.refinement_stats import RefinementRecord, RefinementTable, refinement_table
from annotator.domain.settings import ProjectSettings
from annotator.store.double_curation import CopySetsRow
from annotator.store.items import ItemRow
from annotator.store.repository import CandidateSetsRow

#: Why an item was left out, in the order the reasons are checked.
LEFT_OUT_REASONS = ("excluded", "discarded", "incomplete")
K = TypeVar("K")
R = TypeVar("R")

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


@dataclass(frozen=True)
class ProjectData:
    """Everything an export reads, taken in one read transaction (a consistent snapshot): the items by id, and each
    item's item-languages by item id."""

    settings: ProjectSettings
    items: list[ItemRow]
    states: dict[str, tuple[CandidateSetsRow, ...]]
    #: The translators' copies of double-curated item-languages, and each copy as agreement data.
    copies: dict[tuple[str, str], tuple[CopySetsRow, ...]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)


def load_project_data(project: ProjectContext) -> ProjectData:
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
        settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
        items = sorted(project.repo.iter_item_rows(conn), key=lambda item: item.id)
        states = _grouped(project.repo.iter_candidate_sets(conn), lambda row: row.item_id)
        copies = _grouped(project.repo.iter_copy_sets(conn), lambda copy: (copy.item_id, copy.lang))
        records = agreement_records_in(project.repo, conn, [c for group in copies.values() for c in group])
    return ProjectData(settings, items, states, copies, records)


def _grouped(rows: Iterable[R], key: Callable[[R], K]) -> dict[K, tuple[R, ...]]:
    """Rows read in key order grouped by key, each group a tuple; a key met again later (not in key order) still
    gets all its rows."""
    groups: dict[K, tuple[R, ...]] = {}
    for group_key, group in itertools.groupby(rows, key):
        groups[group_key] = groups.get(group_key, ()) + tuple(group)
    return groups


def empty_row(item_id: str, lang: str) -> CandidateSetsRow:
    """A missing item-language (a language added after import) counts as pending with empty sets."""
    return CandidateSetsRow(item_id, lang, PENDING, "[]", "[]", "[]", None, "", None, None)


#: ``key_string`` memoised: the same lemma recurs in G0 and Gf and across items, and a 10,000-item export asks
#: for hundreds of thousands of identities.
_identity = functools.lru_cache(maxsize=1 << 16)(key_string)


def keys(stored: str) -> frozenset[str]:
    """SPEC §3 identities (case-folded text + tag) of a stored candidate list."""
    return frozenset(_identity(c["text"], c["pos"]) for c in json.loads(stored))


class _Identified(msgspec.Struct, gc=False):
    """What the statistics read of a candidate as the export writes it: its text, tag and origin (its other fields
    are skipped unread)."""

    text: str
    pos: str | None
    origin: str


#: A candidate list in the export's full form, decoded into ``_Identified`` records (no dict per candidate).
_IDENTIFIED = msgspec.json.Decoder(list[_Identified])


def _identities(stored: str) -> tuple[frozenset[str], frozenset[str]]:
    """A stored list's §3 identities, all and those of origin ``lexicon``, from one decoding."""
    everything, lexicon = [], []
    for candidate in _IDENTIFIED.decode(stored):
        identity = _identity(candidate.text, candidate.pos)
        everything.append(identity)
        if candidate.origin == LEXICON:
            lexicon.append(identity)
    return frozenset(everything), frozenset(lexicon)


class ExportedItem(NamedTuple):
    """An exported item and its exported item-languages, in language order."""

    item: ItemRow
    states: tuple[CandidateSetsRow, ...]


class DiscardedItemLanguage(NamedTuple):
    """A discarded item-language, and whether its item is exported (in its other languages)."""

    item: ItemRow
    state: CandidateSetsRow
    item_exported: bool


class DoneRow(NamedTuple):
    """A done item-language of a non-excluded item, as the §6 statistics read it: G0 and Gf as stored JSON text."""

    item_id: str
    lang: str
    synset: str
    initial_good: str
    good: str


@dataclass
class Selection:
    """Which items and item-languages an export holds, and why the others were left out."""

    languages: tuple[str, ...]
    options: ExportOptions
    #: What the selection was made from: the §6 statistics read every done item-language in it (``done``).
    snapshot: ProjectData
    items: list[ExportedItem] = field(default_factory=list)
    discarded: list[DiscardedItemLanguage] = field(default_factory=list)
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
        held = Counter(state.lang for exported in self.items for state in exported.states)
        return {lang: held[lang] for lang in self.languages}

    def done(self) -> Iterator[DoneRow]:
        """Every done item-language of a non-excluded item (SPEC §6's scope, whatever the options), in item and
        language order; read when the statistics are, so no row per item-language is kept for it."""
        languages = set(self.languages)
        for item in self.snapshot.items:
            if item.excluded:
                continue
            for state in self.snapshot.states.get(item.id, ()):
                if state.status == DONE and state.lang in languages:
                    yield DoneRow(item.id, state.lang, item.synset, state.initial_good, state.good)

    def refinement(self) -> RefinementTable:
        """Table 2 over ``done()`` (SPEC §6: every done item-language of a non-excluded item, not only the exported
        ones, so the figures do not change with the export options)."""
        return refinement_table(self._records(), self.languages)

    def _records(self) -> Iterator[RefinementRecord]:
        """A record per done item-language, each stored list decoded once: G0 is the same text for the items of
        a synset (pre-population fills it per synset) and Gf often the same as G0, so most lists are met again;
        the records of one list share its sets. The remembered lists are dropped with the generator."""
        seen: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        for item_id, lang, synset, initial_good, good in self.done():
            initial = seen.get(initial_good)
            if initial is None:
                initial = seen[initial_good] = _identities(initial_good)
            final = seen.get(good)
            if final is None:
                final = seen[good] = _identities(good)
            yield RefinementRecord(item_id, lang, synset, initial[0], final[0], final[1])

    def counts(self) -> DatasetCounts:
        return counts_of(CountedItem(item.id, item.lemma, item.pos, item.synset) for item, _states in self.items)


def select(data: ProjectData, options: ExportOptions) -> Selection:
    """Apply the export rules (module docstring) to a snapshot; pure, so it is tested without writing files."""
    languages = tuple(sorted(data.settings.languages))
    selection = Selection(languages, options, data, copies=data.copies, copy_records=data.copy_records)
    exported, discarded_rows = selection.items, selection.discarded
    if options.usable_only:
        selection.left_out["unusable"] = 0
        selection.unusable = {lang: Counter() for lang in languages}
    coverage = selection.coverage = {lang: Counter() for lang in languages}
    for item in data.items:
        item_id = item.id
        if item.excluded:
            selection.left_out["excluded"] += 1
            continue
        held = {state.lang: state for state in data.states.get(item_id, ())}
        states = tuple(held.get(lang) or empty_row(item_id, lang) for lang in languages)
        discarded = [s for s in states if s.status == DISCARDED]
        kept = tuple(s for s in states if s.status != DISCARDED)
        for state in kept:
            counted = coverage[state.lang]
            counted["item_languages"] += 1
            counted["empty_initial_good"] += state.initial_good == EMPTY_LIST
        reason: str | None = None
        if not kept or (discarded and not options.keep_partially_discarded):
            reason = "discarded"
        elif not options.include_incomplete and any(s.status != DONE for s in kept):
            reason = "incomplete"
        elif options.usable_only:
            kept = _usable(kept, selection.unusable)
            reason = None if kept else "unusable"
        if reason is None:
            exported.append(ExportedItem(item, kept))
        else:
            selection.left_out[reason] += 1
        discarded_rows.extend(DiscardedItemLanguage(item, state, reason is None) for state in discarded)
    return selection


def _usable(states: tuple[CandidateSetsRow, ...], unusable: dict[str, Counter[str]]) -> tuple[CandidateSetsRow, ...]:
    """The usable ones of an item's kept item-languages; the others counted in ``unusable`` by reason."""
    usable = []
    for state in states:
        why = unusable_reason(state.status, state.good)
        if why is None:
            usable.append(state)
        else:
            unusable[state.lang][why] += 1
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
