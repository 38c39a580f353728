"""Read model for the pages: what they show, computed once per change of the data instead of on every rerun.

A Streamlit page reruns on every widget change; reading 50,000 item-languages and computing the DiBiMT tables
each time made the Dataset page take seconds per click at 10,000 items. The statistics are cached per process,
keyed on ``data_version``: a change counter taken from the append-only logs (every item-language change appends
to ``history``; every project-wide change — import, pre-population, filters, exclusions, languages — appends
to ``audit``), plus the items' count, exclusions and newest import time, and the settings. Counting rows as well
as taking the newest id keeps the key moving on PostgreSQL, where ids from a sequence may commit out of order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from sqlalchemy import Connection, Select, func, literal_column, select

from annotator.context import ProjectContext
from annotator.data_export.dataset import ExportOptions, load_project_data
from annotator.data_export.dataset import select as select_export
from annotator.domain.dataset_counts import DatasetCounts
from annotator.domain.model import Item, Status
from annotator.domain.refinement_stats import RefinementTable
from annotator.domain.settings import ProjectSettings
from annotator.domain.unicode_rules import check_storable
from annotator.store import double_curation, schema
from annotator.store.repository import QueueEntry, ReviewState, visible
from annotator.versioned_cache import VersionedCache

#: The row types pages read (the store defines them; pages import them from here, never from the store).
QUEUE_ROW_TYPES = (QueueEntry, ReviewState)

#: The Dataset page's overviews per database: its current version, and the one before while others catch up.
_overviews: VersionedCache[dict[ExportOptions, DatasetOverview]] = VersionedCache(keep=2)


def data_version(project: ProjectContext) -> tuple:
    """Changes whenever anything the statistics read changes (see the module docstring); one statement."""
    with project.db.read() as conn:
        return data_version_in(conn)


def data_version_in(conn: Connection) -> tuple:
    """``data_version`` inside a caller's read (a page block reading its data with it: one transaction)."""
    return tuple(conn.execute(_VERSION_QUERY).one())


def _version_query() -> Select:
    """The version as one row of scalar subqueries, each answered from an index: on SQLite a bare ``count(*)``
    counts a b-tree's entries and ``max`` reads the end of one, where ``count(*), max(id)`` in one select (and any
    ``WHERE`` on ``items``) walked every row. 10,000 items (51,000 history rows): 5.8 ms in four statements, 0.6 ms
    now (the statement itself 0.03 ms; the rest is the transaction); PostgreSQL counts rows either way.

    Items: all rows, the excluded ones (from revision 0014's partial index of flagged items: every excluded item is
    flagged) and the newest import time (an index); and the ``imports`` rows of imports still staging (their count
    and newest id): an import's commit deletes its row, which shows its items. The staged rows themselves move the
    version too (a recomputation while an import stages, never a stale table)."""
    h, a, it, im = schema.history, schema.audit, schema.items, schema.imports
    parts = (
        select(func.count()).select_from(h),
        select(func.max(h.c.id)),
        select(func.count()).select_from(a),
        select(func.max(a.c.id)),
        select(func.count()).select_from(it),
        # spelt as the partial index ix_items_flagged can prove (``excluded = 1``, SQLite's rendering, could not)
        select(func.count()).select_from(it).where(literal_column("excluded")),
        select(func.max(it.c.imported_at)),
        select(func.count()).select_from(im),
        select(func.max(im.c.id)),
        select(func.coalesce(func.max(schema.meta.c.value), "")).where(schema.meta.c.key == "settings"),
    )
    return select(*(part.scalar_subquery() for part in parts))


_VERSION_QUERY = _version_query()


@dataclass(frozen=True)
class DatasetOverview:
    """What the Dataset page shows for one set of export options: Table 2 (the same for every option), Table 1 of
    the exported items, and why the others are left out. Same reading methods as ``Selection``."""

    options: ExportOptions
    table: RefinementTable
    dataset_counts: DatasetCounts
    left_out: dict[str, int]
    items: int
    #: lang -> status -> count (``status_counts``: the progress bars), read once per version like the tables: read
    #: on every rerun it was most of the page's rerun (AppTest, script CPU, median: 2,000 items 46285f4 37–41 ms,
    #: now 20–23 ms; 10,000 items 99–105 → 25–27 ms)
    progress: dict[str, dict[str, int]]

    def refinement(self) -> RefinementTable:
        return self.table

    def counts(self) -> DatasetCounts:
        return self.dataset_counts


def _compute(project: ProjectContext) -> dict[ExportOptions, DatasetOverview]:
    """Read the project once and derive the overview for every combination of the two export options.

    It runs in a Streamlit request thread, so it leaves the cyclic collector alone (issue 24): pausing it there
    paused it for every session of the process."""
    data = load_project_data(project)
    progress = status_counts(project)
    overviews: dict[ExportOptions, DatasetOverview] = {}
    table: RefinementTable | None = None
    for incomplete, partial in product((False, True), repeat=2):
        options = ExportOptions(include_incomplete=incomplete, keep_partially_discarded=partial)
        selection = select_export(data, options)
        table = table or selection.refinement()  # over every done item-language: options do not matter
        overviews[options] = DatasetOverview(
            options, table, selection.counts(), dict(selection.left_out), len(selection.items), progress
        )
    return overviews


def dataset_overview(project: ProjectContext, options: ExportOptions) -> DatasetOverview:
    """The Dataset page's tables, recomputed only when ``data_version`` moved since the last call."""
    cached = _overviews.get(project.db.url, data_version(project), lambda: _compute(project))
    # Only the two selection options change what the tables count; the translators' own sets are an export extra.
    return cached[ExportOptions(options.include_incomplete, options.keep_partially_discarded)]


def review_list(project: ProjectContext, langs: Sequence[str], status: Status) -> list[tuple[QueueEntry, ReviewState]]:
    """The Review page's DISCUSS or discarded list: every such item-language with its notes, in one query."""
    with project.db.read() as conn:
        return project.repo.queue_with_states(conn, langs, status)


@dataclass(frozen=True)
class ProjectPage:
    """The Project page's own data: its settings, the audit trail's newest entries and the flagged items."""

    settings: ProjectSettings
    recent_changes: list[dict[str, Any]]
    flagged: list[Item]


def project_page(project: ProjectContext, changes: int = 50) -> ProjectPage:
    """What the Project page shows on every rerun, in one read transaction (it read them with three)."""
    with project.db.read() as conn:
        stored = project.repo.get_meta(conn, "settings")
        recent = project.repo.audit(conn, limit=changes)
        flagged = project.repo.flagged_items(conn)
    return ProjectPage(ProjectSettings.from_json(stored) if stored else ProjectSettings(), recent, flagged)


def flagged_items(project: ProjectContext) -> list[Item]:
    """Items failing a selection filter or excluded by a lead (not all 10,000 items decoded to find them)."""
    with project.db.read() as conn:
        return project.repo.flagged_items(conn)


def queue_ids(project: ProjectContext, lang: str, statuses: Sequence[Status], search: str) -> list[str]:
    """The Curate queue: ids in import order of ``lang`` in ``statuses`` (all when empty) matching ``search``,
    leaving out the item-languages curated as private copies (issue 11, Double curation page). Ids only: the page
    keeps the list per filter and moves along it, so this runs once per filter change, not per click. A search no
    database can take (a NUL: PostgreSQL refuses it) is refused by name, the same on both engines."""
    check_storable("search", search)
    with project.db.read() as conn:
        ids = project.repo.queue_ids(conn, lang, list(statuses) or None, search)
        assigned = double_curation.open_keys(conn)
    return [item_id for item_id in ids if (item_id, lang) not in assigned] if assigned else ids


def progress_counts(project: ProjectContext, lang: str) -> dict[str, int]:
    """status -> count of ``lang`` for the progress bar (excluded items left out); about a millisecond."""
    with project.db.read() as conn:
        return project.repo.lang_status_counts(conn, lang)


@dataclass(frozen=True)
class ItemStatuses:
    """The Items page's data: every item, its status per language, and the pairs given to double curation."""

    items: list[Item]
    status: dict[str, dict[str, str]]  # lang -> item id -> the stored value of its ``Status``
    assigned: set[tuple[str, str]]


def item_statuses(project: ProjectContext, languages: Sequence[str]) -> ItemStatuses:
    """Items with their statuses, in one transaction: the statuses of every language from one query as plain
    strings, not the queue's entries (a NamedTuple with an enum member and the item's text per item-language: 10,000
    tracked objects at 2,000 items for the collector to walk, and 78 of the Items page's 120 ms CPU to read)."""
    il, it = schema.item_languages, schema.items
    status: dict[str, dict[str, str]] = {lang: {} for lang in languages}
    query = (
        select(il.c.lang, il.c.item_id, il.c.status)
        .join(it, it.c.id == il.c.item_id)
        .where(il.c.lang.in_(list(languages)), visible(it))
    )
    with project.db.read() as conn:
        items = project.repo.list_items(conn)
        for lang, item_id, value in conn.execute(query):
            status[lang][item_id] = value
        assigned = double_curation.assigned_keys(conn)  # issue 11: shown as "×2" after the status
    return ItemStatuses(items, status, assigned)


def item_count(project: ProjectContext) -> int:
    """Items in the project (staged rows of an unfinished import left out)."""
    with project.db.read() as conn:
        return project.repo.count_items(conn)


def status_counts(project: ProjectContext) -> dict[str, dict[str, int]]:
    """lang -> status -> count over the whole project (excluded items left out)."""
    with project.db.read() as conn:
        return project.repo.status_counts(conn)


def status_counts_with_users(
    project: ProjectContext,
) -> tuple[dict[str, dict[str, int]], list[tuple[str, str, str, int]]]:
    """``status_counts`` and (user, lang, status, count) by whoever last set each status, read together."""
    with project.db.read() as conn:
        return project.repo.status_counts(conn), project.repo.status_counts_by_user(conn)


def recent_changes(project: ProjectContext, limit: int = 50) -> list[dict[str, Any]]:
    """The newest project-level changes (the audit trail), newest first."""
    with project.db.read() as conn:
        return project.repo.audit(conn, limit=limit)
