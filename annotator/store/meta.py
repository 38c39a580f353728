"""The ``meta`` table (project settings and markers as JSON values by key), and row counts of every table."""

from __future__ import annotations

import json
import uuid
from typing import Any

from sqlalchemy import Connection, func, inspect, select

from annotator.store import schema
from annotator.store.rows import dumps


class MetaRecords:
    """Project-wide values by key; part of ``Repository``."""

    def get_meta(self, conn: Connection, key: str, default: Any = None) -> Any:
        row = conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == key)).first()
        return json.loads(row[0]) if row else default

    def set_meta(self, conn: Connection, key: str, value: Any) -> None:
        text = dumps(value)
        updated = conn.execute(schema.meta.update().where(schema.meta.c.key == key).values(value=text))
        if updated.rowcount == 0:
            conn.execute(schema.meta.insert().values(key=key, value=text))

    def table_counts(self, conn: Connection) -> dict[str, int]:
        """Rows per table: tests use it to prove a refused import changed nothing."""
        return {
            table.name: int(conn.execute(select(func.count()).select_from(table)).scalar_one())
            for table in schema.metadata.sorted_tables
        }

    def holds_project(self, conn: Connection) -> bool:
        """True when the database holds a project: its ``project_id`` (or, before migration 0003, its settings)."""
        if not inspect(conn).has_table("meta"):
            return False
        keys = select(schema.meta.c.key).where(schema.meta.c.key.in_(("project_id", "settings")))
        return conn.execute(keys).first() is not None

    def claim_project_id(self, conn: Connection) -> bool:
        """Give a fresh database its project identity; False (nothing written) when it already holds a project."""
        if self.holds_project(conn):
            return False
        conn.execute(schema.meta.insert().values(key="project_id", value=uuid.uuid4().hex))
        return True

    def project_id(self, conn: Connection) -> str | None:
        """The project's id as stored (plain text, not JSON); None when the database holds none."""
        row = conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == "project_id")).first()
        return str(row[0]) if row is not None and row[0] else None
