"""The curation queues (Curate and Review lists) and progress counts: ``item_languages`` joined with ``items``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, or_, select

from annotator.domain.model import DiscardReason, Status
from annotator.store import schema
from annotator.store.rows import IN_CHUNK, visible


@dataclass(frozen=True)
class QueueEntry:
    """One row of a curation queue: enough to list it without loading candidates."""

    item_id: str
    lang: str
    status: Status
    lemma: str
    pos: str
    target_text: str
    sentence: str
    version: int
    target_start: int = -1
    target_end: int = -1


@dataclass(frozen=True)
class ReviewState:
    """An item-language's state without its candidate sets: what the Review lists show (decoding every candidate
    of hundreds of rows on each rerun was most of the page's time)."""

    item_id: str
    lang: str
    status: Status
    version: int
    discuss_note: str
    discard_reason: DiscardReason | None
    discard_note: str
    status_by: str | None
    updated_by: str | None
    updated_at: str | None


class QueueRecords:
    """Queues and status counts per language; part of ``Repository``."""

    def _queue_query(
        self, columns: Sequence[Any], lang: str, statuses: Sequence[Status] | None, search: str, include_excluded: bool
    ) -> Any:
        il, it = schema.item_languages, schema.items
        query = select(*columns).join(it, it.c.id == il.c.item_id).where(il.c.lang == lang, visible(it))
        if statuses:
            query = query.where(il.c.status.in_([s.value for s in statuses]))
        if not include_excluded:
            query = query.where(it.c.excluded.is_(False))
        if search.strip():
            needle = f"%{search.strip().lower()}%"
            query = query.where(
                or_(
                    func.lower(it.c.lemma).like(needle),
                    func.lower(it.c.target_text).like(needle),
                    func.lower(it.c.id).like(needle),
                    func.lower(it.c.sentence).like(needle),
                )
            )
        return query.order_by(it.c.position)

    def queue(
        self,
        conn: Connection,
        lang: str,
        statuses: Sequence[Status] | None = None,
        search: str = "",
        include_excluded: bool = False,
    ) -> list[QueueEntry]:
        """The ordered list a translator works through: import order, filtered by status and text."""
        il, it = schema.item_languages, schema.items
        columns = (
            *(il.c[name] for name in ("item_id", "lang", "status", "version")),
            *(it.c[name] for name in ("lemma", "pos", "target_text", "sentence", "target_start", "target_end")),
        )
        return [
            _queue_entry(r) for r in conn.execute(self._queue_query(columns, lang, statuses, search, include_excluded))
        ]

    def queue_ids(
        self, conn: Connection, lang: str, statuses: Sequence[Status] | None = None, search: str = ""
    ) -> list[str]:
        """The ids of ``queue`` (excluded items left out), without reading and decoding the rest of each row."""
        query = self._queue_query((schema.item_languages.c.item_id,), lang, statuses, search, False)
        return list(conn.execute(query).scalars())

    def lang_status_counts(self, conn: Connection, lang: str) -> dict[str, int]:
        """status -> count of one language, as ``status_counts`` gives it, from the (lang, status) index alone when
        no import is being staged (the usual case: about a millisecond at 10,000 items instead of ~100 ms)."""
        il, it = schema.item_languages, schema.items
        if conn.execute(select(schema.imports.c.id).limit(1)).first() is not None:
            return self.status_counts(conn).get(lang, {})
        counts = {
            status: int(count)
            for status, count in conn.execute(
                select(il.c.status, func.count()).where(il.c.lang == lang).group_by(il.c.status)
            )
        }
        excluded = list(conn.execute(select(it.c.id).where(it.c.excluded.is_(True))).scalars())
        for start in range(0, len(excluded), IN_CHUNK):
            chunk = excluded[start : start + IN_CHUNK]
            for status, count in conn.execute(
                select(il.c.status, func.count())
                .where(il.c.lang == lang, il.c.item_id.in_(chunk))
                .group_by(il.c.status)
            ):
                counts[status] -= int(count)
        return {status: count for status, count in counts.items() if count}

    def queue_with_states(
        self, conn: Connection, langs: Sequence[str], status: Status
    ) -> list[tuple[QueueEntry, ReviewState]]:
        """Every item-language in ``status`` over ``langs`` (excluded items too), in queue order per language, with
        its notes and who/when — one joined query for the Review lists instead of one look-up per row."""
        il, it = schema.item_languages, schema.items
        query = (
            select(
                *(il.c[name] for name in ("item_id", "lang", "status", "version", "discuss_note", "discard_reason")),
                *(il.c[name] for name in ("discard_note", "status_by", "updated_by", "updated_at")),
                *(it.c[name] for name in ("lemma", "pos", "target_text", "sentence", "target_start", "target_end")),
            )
            .join(it, it.c.id == il.c.item_id)
            .where(il.c.lang.in_(list(langs)), il.c.status == status.value, visible(it), visible(il))
            .order_by(it.c.position)
        )
        order = {lang: n for n, lang in enumerate(langs)}
        found = [
            (
                _queue_entry(r),
                ReviewState(
                    r.item_id,
                    r.lang,
                    Status(r.status),
                    r.version,
                    r.discuss_note,
                    DiscardReason(r.discard_reason) if r.discard_reason else None,
                    r.discard_note,
                    r.status_by,
                    r.updated_by,
                    r.updated_at,
                ),
            )
            for r in conn.execute(query)
        ]
        return sorted(found, key=lambda pair: order[pair[0].lang])  # stable: queue order within a language

    def status_counts(self, conn: Connection) -> dict[str, dict[str, int]]:
        """lang -> status -> count, for progress bars (excluded items left out).

        Counts every row from the (lang, status) index, then subtracts the few excluded items: joining every row
        to ``items`` would read each wide item-language row and takes ~30x longer (the Curate page runs it per click).
        """
        il, it = schema.item_languages, schema.items
        counts: dict[str, dict[str, int]] = {}
        for lang, status, count in conn.execute(
            select(il.c.lang, il.c.status, func.count()).where(visible(il)).group_by(il.c.lang, il.c.status)
        ):
            counts.setdefault(lang, {})[status] = int(count)
        excluded_ids = select(it.c.id).where(it.c.excluded.is_(True), visible(it))
        for lang, status, count in conn.execute(
            select(il.c.lang, il.c.status, func.count())
            .where(il.c.item_id.in_(excluded_ids), visible(il))
            .group_by(il.c.lang, il.c.status)
        ):
            left = counts[lang][status] - int(count)
            if left:
                counts[lang][status] = left
            else:
                del counts[lang][status]
        return {lang: by_status for lang, by_status in counts.items() if by_status}

    def status_counts_by_user(self, conn: Connection) -> list[tuple[str, str, str, int]]:
        """(user, lang, status, count) of item-languages by whoever last set their status."""
        il = schema.item_languages
        rows = conn.execute(
            select(il.c.status_by, il.c.lang, il.c.status, func.count())
            .where(il.c.status_by.is_not(None), visible(il))
            .group_by(il.c.status_by, il.c.lang, il.c.status)
        )
        return [(r[0], r[1], r[2], int(r[3])) for r in rows]


def _queue_entry(row: Any) -> QueueEntry:
    """A queue row (``item_languages`` joined with ``items``) as the entry the Curate and Review lists show."""
    return QueueEntry(
        row.item_id,
        row.lang,
        Status(row.status),
        row.lemma,
        row.pos,
        row.target_text,
        row.sentence,
        row.version,
        row.target_start,
        row.target_end,
    )
