"""The ``inspections`` table: per evaluated result (item, language, system), who marked it for inspection and a
lead's verdict with the hash of what it was given for."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from annotator.store import schema


class InspectionRecords:
    """Inspections of evaluation results; part of ``Repository``."""

    def inspection_rows(self, conn: Connection) -> list[dict[str, Any]]:
        """Every stored inspection as a mapping of its columns."""
        return [dict(row) for row in conn.execute(select(schema.inspections)).mappings()]

    def upsert_inspection(self, conn: Connection, key: tuple[str, str, str], values: dict[str, Any]) -> None:
        """Set ``values`` on the inspection of ``key`` (item id, language, system), creating it (empty note) first."""
        table = schema.inspections
        item_id, lang, system = key
        where = (table.c.item_id == item_id) & (table.c.lang == lang) & (table.c.system == system)
        if conn.execute(select(table.c.item_id).where(where)).first() is None:
            conn.execute(table.insert().values(item_id=item_id, lang=lang, system=system, note="", **values))
        else:
            conn.execute(table.update().where(where).values(**values))
