"""The Project page's block on empty GOOD lists: per language, how many item-languages start with an empty GOOD
list, how many of those have suggestions, and how many a person worked on.

Read from the kept suggestions and the team's curated lists (no lexicon). The page reruns this on every widget
change, so the empty rows (``repo.empty_good_rows``) are kept per ``read_model.data_version``, which
every item-language, item and settings change moves; only the kept suggestions, which change without it, are read
on each call."""

from __future__ import annotations

import json
from dataclasses import dataclass

from annotator.context import ProjectContext
from annotator.domain.settings import ProjectSettings
from annotator.domain.suggestions import decode_suggestions
from annotator.services.read_model import data_version_in
from annotator.services.suggestions.mt import mt_stamp, newest_evaluation_in
from annotator.store.suggestions import EmptyGoodRow
from annotator.versioned_cache import VersionedCache


@dataclass(frozen=True)
class EmptyGoodCounts:
    """Per language: item-languages pre-populated with an empty GOOD list, and how many of those have suggestions
    (from what is kept; ``not_computed`` of them have no kept suggestions yet)."""

    lang: str
    empty_good: int
    with_suggestions: int
    not_computed: int
    #: Of the empty ones, how many a person has worked on: a status other than pending, or a change in its history
    #: by someone other than the import and pre-population jobs (what a translator only looked at is not recorded).
    worked_on: int = 0


@dataclass(frozen=True)
class _EmptyRows:
    """What is kept per data version: the project's languages and the empty rows."""

    languages: tuple[str, ...]
    rows: tuple[EmptyGoodRow, ...]


#: Per database: the empty rows of the current data version and the one before.
_empty_rows: VersionedCache[_EmptyRows] = VersionedCache(keep=2)


def empty_good_counts(project: ProjectContext) -> list[EmptyGoodCounts]:
    """The Project page's block, in one read transaction: the data version, the empty rows kept for it, the newest
    evaluation and the empty rows' kept suggestions."""
    with project.db.read() as conn:
        version = data_version_in(project.repo, conn)
        settings = version[-1]  # the settings' stored text ends the version

        def read() -> _EmptyRows:
            stored = ProjectSettings.from_json(json.loads(settings)) if settings else ProjectSettings()
            return _EmptyRows(tuple(stored.languages), tuple(project.repo.empty_good_rows(conn)))

        found = _empty_rows.get(project.db.url, version, read)
        empty = found.rows
        # nothing to offer MT words to without empty rows
        stamp = mt_stamp(newest_evaluation_in(project.repo, conn)) if empty else ""
        kept = project.repo.cached_suggestions_of(conn, [(row.item_id, row.lang) for row in empty]) if empty else {}
    counts = {lang: [0, 0, 0, 0] for lang in found.languages}
    for row in empty:
        entry = counts.setdefault(row.lang, [0, 0, 0, 0])
        entry[0] += 1
        entry[3] += row.worked_on
        cached = kept.get((row.item_id, row.lang))
        if cached is None:
            entry[2] += 1
        related, mt = (cached.related, cached.mt if cached.mt_stamp == stamp else "[]") if cached else (None, "[]")
        good_keys = {c.key for c in row.good_entries()}
        held = good_keys | {c.key for c in row.bad_entries()}
        offered = any(s.key not in good_keys for s in decode_suggestions(related)) or any(
            s.key not in held for s in decode_suggestions(mt)
        )
        if offered or row.team_has_good:
            entry[1] += 1
    return [EmptyGoodCounts(lang, *values) for lang, values in counts.items()]
