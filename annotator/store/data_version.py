"""What the pages' read model keys its caches on: one row that moves whenever anything a page counts changes.

Counts and newest ids of the append-only logs (every item-language change appends to ``history``; every
project-wide change to ``audit``), the items' count, exclusions and newest import time, the imports still staging,
and the stored settings. Counting rows as well as taking the newest id keeps it moving on PostgreSQL, where ids
from a sequence may commit out of order."""

from __future__ import annotations

from sqlalchemy import Connection, Select, func, literal_column, select

from annotator.store import schema


def _version_query() -> Select:
    """The version as one row of scalar subqueries, each answered from an index: on SQLite a bare ``count(*)``
    counts a b-tree's entries and ``max`` reads the end of one, where ``count(*), max(id)`` in one select (and any
    ``WHERE`` on ``items``) walks every row; PostgreSQL counts rows either way.

    Items: all rows, the excluded ones (from the partial index of flagged items: every excluded item is flagged)
    and the newest import time (an index); and the ``imports`` rows of imports still staging (their count and newest
    id): an import's commit deletes its row, which shows its items. The staged rows themselves move the version too
    (a recomputation while an import stages, never a stale table)."""
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


#: Built once: building the statement costs more than running it.
_VERSION_QUERY = _version_query()


class DataVersionRecords:
    """The read model's version row; part of ``Repository``."""

    def data_version(self, conn: Connection) -> tuple:
        """The version row; its last value is the stored settings' text ("" when none)."""
        return tuple(conn.execute(_VERSION_QUERY).one())
