"""Imports staged behind one row of ``imports``: their items and item-languages stay hidden from every reader
(``rows.visible``) until the import's row is deleted, so an import appears at once or not at all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, literal, select, true, union_all

from annotator.clock import utc_now
from annotator.domain.model import Item, Status
from annotator.store import schema
from annotator.store.items import ItemRecords
from annotator.store.rows import IN_CHUNK, inserted_id


@dataclass(frozen=True)
class StagingImport:
    """An import that is writing hidden rows (a row of ``imports``)."""

    id: int
    file: str
    user: str
    host: str
    pid: int
    started_at: str
    heartbeat: float


class StagingRecords(ItemRecords):
    """Running imports and their hidden rows; part of ``Repository``. Staging inserts items, so it builds on
    ``ItemRecords``."""

    def staging_imports(self, conn: Connection) -> list[StagingImport]:
        rows = conn.execute(select(schema.imports).order_by(schema.imports.c.id))
        return [StagingImport(r.id, r.file, r.user, r.host, r.pid, r.started_at, r.heartbeat) for r in rows]

    def begin_import(self, conn: Connection, file: str, user: str, host: str, pid: int, now: float) -> int:
        """Register an import; rows it stages with the returned id stay hidden until ``end_import``."""
        result = conn.execute(
            schema.imports.insert().values(
                file=file, user=user, host=host, pid=pid, started_at=utc_now(), heartbeat=now
            )
        )
        return inserted_id(result)

    def touch_import(self, conn: Connection, import_id: int, now: float) -> bool:
        """Refresh the heartbeat; False when the import was cleaned away (another process judged it dead)."""
        imports = schema.imports
        result = conn.execute(imports.update().where(imports.c.id == import_id).values(heartbeat=now))
        return result.rowcount == 1

    def stage_new_items(
        self, conn: Connection, import_id: int, rows: list[tuple[Item, str, int]], langs: Sequence[str]
    ) -> None:
        """Insert new items and their pending item-languages, hidden behind ``import_id``.

        The ids are new, so no existing pair needs reading (the old ``ensure_item_languages`` per chunk read
        every pair in the project, which made imports quadratic).
        """
        values = [{**self._item_values(i), "content_hash": h, "position": p} for i, h, p in rows]
        self.stage_new_values(conn, import_id, values, langs)

    def stage_new_values(
        self, conn: Connection, import_id: int, rows: Sequence[Mapping[str, Any]], langs: Sequence[str]
    ) -> None:
        """``stage_new_items`` of items given as their columns' values (see ``insert_new_items``)."""
        if not rows:
            return
        self.insert_new_items(conn, rows, import_id)
        self._stage_item_languages(conn, import_id, [values["id"] for values in rows], langs)

    @staticmethod
    def _stage_item_languages(conn: Connection, import_id: int, item_ids: Sequence[str], langs: Sequence[str]) -> None:
        """The pending item-languages of the import's items ``item_ids``, by ``INSERT … SELECT``: the database makes
        the rows (items × languages, in item then language order) from the items just written, rather than binding
        each row's values from Python."""
        if not langs:
            return
        it, il = schema.items, schema.item_languages
        wanted = union_all(
            *(select(literal(lang).label("lang"), literal(order).label("n")) for order, lang in enumerate(langs))
        ).subquery("langs")
        for start in range(0, len(item_ids), IN_CHUNK):
            rows = (
                select(it.c.id, wanted.c.lang, literal(Status.PENDING.value), literal(0), literal(import_id))
                .select_from(it.join(wanted, true()))
                .where(it.c.import_id == import_id, it.c.id.in_(list(item_ids[start : start + IN_CHUNK])))
                .order_by(it.c.position, wanted.c.n)
            )
            conn.execute(il.insert().from_select(["item_id", "lang", "status", "version", "import_id"], rows))

    def delete_staged(self, conn: Connection, import_id: int, limit: int) -> int:
        """Delete up to ``limit`` hidden items of an abandoned import (and their item-languages); returns how many."""
        it, il = schema.items, schema.item_languages
        ids = list(conn.execute(select(it.c.id).where(it.c.import_id == import_id).limit(limit)).scalars())
        if ids:
            conn.execute(il.delete().where(il.c.item_id.in_(ids), il.c.import_id == import_id))
            conn.execute(it.delete().where(it.c.id.in_(ids), it.c.import_id == import_id))
        return len(ids)

    def end_import(self, conn: Connection, import_id: int) -> bool:
        """Delete the import's row: its staged rows become visible at once (or, once deleted, nothing is left)."""
        result = conn.execute(schema.imports.delete().where(schema.imports.c.id == import_id))
        return result.rowcount == 1
