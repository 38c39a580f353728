"""What an export holds (SPEC §5, §6): the project read in one transaction, the export rules applied to it.

The rules (see ``dataset.py``): excluded items are never exported; an item is exported when done in every project
language; an item discarded in any language is left out unless ``keep_partially_discarded``; unfinished items only
with ``include_incomplete``. The refinement statistics cover every done item-language of the non-excluded items,
whatever the options. Pure apart from ``load_project_data`` / ``collect``, so the rules are tested without files.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from annotator.context import ProjectContext
from annotator.data_export.copy_records import agreement_records_in
from annotator.domain.agreement import CopyRecord, agreement_report
from annotator.domain.candidates import key_string
from annotator.domain.dataset_counts import DatasetCounts, dataset_counts
from annotator.domain.model import Item, Status
from annotator.domain.refinement_stats import RefinementRecord, RefinementTable, refinement_table
from annotator.domain.settings import ProjectSettings
from annotator.store import double_curation
from annotator.store.double_curation import CopySetsRow
from annotator.store.repository import CandidateSetsRow

#: Why an item was left out, in the order the reasons are checked.
LEFT_OUT_REASONS = ("excluded", "discarded", "incomplete")


@dataclass(frozen=True)
class ExportOptions:
    include_incomplete: bool = False
    keep_partially_discarded: bool = False
    #: Issue 11: each double-curating translator's own sets in ``dataset.jsonl`` (``annotators`` per language),
    #: under anonymous ids (``A1``, ``A2``… in name order) unless ``annotator_names``.
    with_annotators: bool = False
    annotator_names: bool = False

    def to_json(self) -> dict[str, bool]:
        return {
            "include_incomplete": self.include_incomplete,
            "keep_partially_discarded": self.keep_partially_discarded,
            "with_annotators": self.with_annotators,
            "annotator_names": self.annotator_names,
        }


@dataclass(frozen=True)
class ProjectData:
    """Everything an export reads, taken in one read transaction (a consistent snapshot)."""

    settings: ProjectSettings
    items: list[Item]
    states: dict[str, dict[str, CandidateSetsRow]]
    #: Issue 11: the translators' copies of double-curated item-languages, and each copy as agreement data.
    copies: dict[tuple[str, str], list[CopySetsRow]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)


def load_project_data(project: ProjectContext) -> ProjectData:
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
        settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
        items = sorted(project.repo.list_items(conn), key=lambda item: item.id)
        states: dict[str, dict[str, CandidateSetsRow]] = {}
        for state in project.repo.iter_candidate_sets(conn):
            states.setdefault(state.item_id, {})[state.lang] = state
        copies: dict[tuple[str, str], list[CopySetsRow]] = {}
        for copy in double_curation.iter_copy_sets(conn):
            copies.setdefault((copy.item_id, copy.lang), []).append(copy)
        records = agreement_records_in(conn, [c for group in copies.values() for c in group])
    return ProjectData(settings, items, states, copies, records)


def empty_row(item_id: str, lang: str) -> CandidateSetsRow:
    """A missing item-language (a language added after import) counts as pending with empty sets."""
    return CandidateSetsRow(item_id, lang, Status.PENDING, "[]", "[]", "[]", None, "", None, None)


#: ``key_string`` memoised: the same lemma recurs in G0 and Gf and across items, and a 10,000-item export asks
#: for hundreds of thousands of identities.
_identity = functools.lru_cache(maxsize=1 << 16)(key_string)


def keys(stored: str) -> frozenset[str]:
    """SPEC §3 identities (case-folded text + tag) of a stored candidate list."""
    return frozenset(_identity(c["text"], c["pos"]) for c in json.loads(stored))


@dataclass(frozen=True)
class ExportedItem:
    item: Item
    languages: dict[str, CandidateSetsRow]


@dataclass
class Selection:
    """Which items and item-languages an export holds, and why the others were left out."""

    languages: tuple[str, ...]
    options: ExportOptions
    items: list[ExportedItem] = field(default_factory=list)
    #: Every done item-language of a non-excluded item, with the item's σ: the §6 scope, whatever the options.
    done: list[tuple[str, CandidateSetsRow]] = field(default_factory=list)
    discarded: list[tuple[Item, CandidateSetsRow, bool]] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEFT_OUT_REASONS, 0))
    copies: dict[tuple[str, str], list[CopySetsRow]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)

    def annotator_ids(self) -> dict[str, str]:
        """Name → exported id: ``A1``, ``A2``… in name order (anonymised), or the names themselves on request."""
        names = sorted({c.annotator for group in self.copies.values() for c in group})
        if self.options.annotator_names:
            return {name: name for name in names}
        return {name: f"A{n}" for n, name in enumerate(names, start=1)}

    def agreement(self) -> dict[str, Any]:
        """Issue 11: agreement between the translators of double-curated item-languages (over every assignment
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
        return {lang: sum(lang in e.languages for e in self.items) for lang in self.languages}

    def refinement(self) -> RefinementTable:
        """Table 2 over ``done`` (SPEC §6: every done item-language of a non-excluded item, not only the exported
        ones, so the figures do not change with the export options)."""
        records = (
            RefinementRecord(state.item_id, state.lang, synset, keys(state.initial_good), keys(state.good))
            for synset, state in self.done
        )
        return refinement_table(records, self.languages)

    def counts(self) -> DatasetCounts:
        return dataset_counts(e.item for e in self.items)


def select(data: ProjectData, options: ExportOptions) -> Selection:
    """Apply the export rules (module docstring) to a snapshot; pure, so it is tested without writing files."""
    languages = tuple(sorted(data.settings.languages))
    selection = Selection(languages, options, copies=data.copies, copy_records=data.copy_records)
    for item in data.items:
        if item.excluded:
            selection.left_out["excluded"] += 1
            continue
        held = data.states.get(item.id, {})
        states = {lang: held.get(lang) or empty_row(item.id, lang) for lang in languages}
        selection.done.extend((item.synset, s) for s in states.values() if s.status is Status.DONE)
        discarded = [lang for lang in languages if states[lang].status is Status.DISCARDED]
        kept = {lang: s for lang, s in states.items() if lang not in discarded}
        reason: str | None = None
        if not kept or (discarded and not options.keep_partially_discarded):
            reason = "discarded"
        elif not options.include_incomplete and any(s.status is not Status.DONE for s in kept.values()):
            reason = "incomplete"
        if reason is None:
            selection.items.append(ExportedItem(item, kept))
        else:
            selection.left_out[reason] += 1
        selection.discarded.extend((item, states[lang], reason is None) for lang in discarded)
    return selection


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
