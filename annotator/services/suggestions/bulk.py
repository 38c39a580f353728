"""Suggestions in bulk: every chosen item-language's card, a batch at a time, for ``annotator suggestions``
(one JSON line each) and after pre-population (``refresh``: whatever is missing or stale computed and kept)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from annotator.atomic_files import open_atomic
from annotator.context import ProjectContext
from annotator.errors import UserError
from annotator.progress import ProgressCallback, no_progress
from annotator.services.suggestions.card import CardSuggestions, card_of, fresh_related, teams_of
from annotator.services.suggestions.finder import project_finder
from annotator.services.suggestions.mt import BATCH_SIZE, mt_part, mt_ready, newest_evaluation
from annotator.services.suggestions.rates import kind_rates_in
from annotator.store.suggestions import CachedSuggestions


@dataclass
class BulkReport:
    """What a bulk run went through: item-languages, related parts computed, and per language the empty GOOD lists
    and how many of those have suggestions."""

    item_languages: int = 0
    computed: int = 0
    empty_good: dict[str, int] = field(default_factory=Counter)
    empty_good_with_suggestions: dict[str, int] = field(default_factory=Counter)


def _batches(
    project: ProjectContext, langs: Sequence[str] | None, items: Sequence[str] | None
) -> tuple[list[tuple[str, str]], int]:
    """The chosen (item id, language) pairs and their count; unknown items are refused by name."""
    with project.db.read() as conn:
        every = project.repo.all_item_languages(conn)
    wanted_langs = {lang.upper() for lang in langs} if langs else None
    if items is not None:
        known = {item_id for item_id, _l in every}
        unknown = [item_id for item_id in items if item_id not in known]
        if unknown:
            raise UserError(f"No such item(s) in this project: {', '.join(unknown[:20])}. Nothing was written.")
        wanted_items = set(items)
    keys = [
        (item_id, lang)
        for item_id, lang in every
        if (wanted_langs is None or lang in wanted_langs) and (items is None or item_id in wanted_items)
    ]
    return keys, len(keys)


def views(
    project: ProjectContext,
    langs: Sequence[str] | None = None,
    items: Sequence[str] | None = None,
    progress: ProgressCallback = no_progress,
    report: BulkReport | None = None,
) -> Iterator[CardSuggestions]:
    """Every chosen item-language's reasons and suggestions (no user's dismissals), a batch at a time: stale
    cached parts are computed and kept on the way, so a later card finds them."""
    settings = project.settings()
    if langs:
        unknown = [lang for lang in langs if lang.upper() not in settings.languages]
        if unknown:
            raise UserError(f"Not languages of this project: {', '.join(unknown)}.")
    keys, total = _batches(project, langs, items)
    finder = project_finder(project)
    job_id = newest_evaluation(project)
    mt_ready(project, job_id)
    report = report if report is not None else BulkReport()
    for start in range(0, total, BATCH_SIZE):
        chunk = keys[start : start + BATCH_SIZE]
        with project.db.read() as conn:
            ids = list(dict.fromkeys(i for i, _l in chunk))
            found_items = project.repo.items_by_id(conn, ids)
            states = {(s.item_id, s.lang): s for group in project.repo.item_languages_of_items(conn, ids).values()
                      for s in group}  # fmt: skip
            records = project.repo.lexicon_records_of(conn, chunk)
            cached = project.repo.cached_suggestions_of(conn, chunk)
            teams = teams_of(project.repo, conn, found_items, chunk)
            rates = kind_rates_in(project.repo, conn, project.db.url)
        updates = []
        out = []
        for key in chunk:
            item, state = found_items.get(key[0]), states.get(key)
            if item is None or state is None:
                continue
            old = cached.get(key)
            related = fresh_related(finder, item, key[1], old)
            current = old or CachedSuggestions("", "[]", "", "[]")
            if related is not None:
                current = current._replace(lexicon_stamp=finder.stamp(item.synset), related=related)
                updates.append((key[0], key[1], current))
            view = card_of(
                item, state, records.get(key), current.related, mt_part(current, job_id), teams[key], (), None, rates
            )
            report.item_languages += 1
            if state.prepopulated and not state.initial_good:
                report.empty_good[key[1]] += 1
                if view.suggestions:
                    report.empty_good_with_suggestions[key[1]] += 1
            out.append(view)
        if updates:
            report.computed += len(updates)
            with project.db.write() as conn:
                project.repo.put_cached_suggestions(conn, updates)
        yield from out
        progress(min(start + BATCH_SIZE, total), total, "suggestions")


def refresh(project: ProjectContext, progress: ProgressCallback = no_progress) -> BulkReport:
    """Compute and keep whatever is missing or stale for every item-language (after pre-population)."""
    report = BulkReport()
    for _found in views(project, progress=progress, report=report):
        continue
    return report


def write_jsonl(
    project: ProjectContext,
    out: Path,
    langs: Sequence[str] | None = None,
    items: Sequence[str] | None = None,
    progress: ProgressCallback = no_progress,
) -> BulkReport:
    """``annotator suggestions``: one JSON line per item-language (id, lang, good_empty_reason, suggestions …),
    written by the atomic writer (a private temporary renamed over ``out``), so a failed run leaves no half file
    and ``out`` naming a folder, a pipe or a device is refused before anything is computed."""
    report = BulkReport()
    with open_atomic(out, what="--out") as handle:
        _write_lines(handle, views(project, langs, items, progress, report))
    return report


def _write_lines(handle: TextIO, found: Iterable[CardSuggestions]) -> None:
    for view in found:
        handle.write(json.dumps(view.to_line(), ensure_ascii=False) + "\n")
