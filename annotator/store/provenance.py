"""Where a project's data came from: the sources with their licences as recorded when they
were used, and the lexicon sources of each item-language's pre-populated candidates."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, select

from annotator.clock import utc_now
from annotator.domain.licences import SourceRecord
from annotator.store import schema
from annotator.store.rows import execute_many

_COLUMNS = SourceRecord._fields


class ProvenanceRecords:
    """The recorded sources and the item-languages' lexicon sources; part of ``Repository``."""

    def put_sources(self, conn: Connection, records: Sequence[SourceRecord], replace: bool = True) -> None:
        """Record sources; an existing key is replaced (``replace``) or kept as it was first recorded."""
        if not records:
            return
        names = ", ".join(f'"{name}"' for name in (*_COLUMNS, "recorded_at"))
        values = ", ".join(f":{name}" for name in (*_COLUMNS, "recorded_at"))
        updates = ", ".join(f'"{name}" = excluded."{name}"' for name in (*_COLUMNS, "recorded_at") if name != "key")
        action = f"DO UPDATE SET {updates}" if replace else "DO NOTHING"
        sql = f'INSERT INTO "provenance_sources" ({names}) VALUES ({values}) ON CONFLICT ("key") {action}'
        at = utc_now()
        execute_many(conn, sql, [{**record._asdict(), "recorded_at": at} for record in records])

    def sources_by_key(self, conn: Connection, keys: Iterable[str] | None = None) -> dict[str, SourceRecord]:
        """The recorded sources (all of them, or those of ``keys``), by key."""
        wanted = None if keys is None else set(keys)
        table = schema.provenance_sources
        found = {}
        for row in conn.execute(select(*(table.c[name] for name in _COLUMNS))):
            if wanted is None or row[0] in wanted:
                found[row[0]] = SourceRecord(*row)
        return found

    def put_item_language_sources(self, conn: Connection, rows: Sequence[tuple[str, str, str]]) -> None:
        """Record (item id, language, source keys as a JSON list) of pre-populated item-languages, each replacing the
        earlier ones."""
        sql = (
            'INSERT INTO "item_language_sources" ("item_id", "lang", "sources") VALUES (:item_id, :lang, :sources) '
            'ON CONFLICT ("item_id", "lang") DO UPDATE SET "sources" = excluded."sources"'
        )
        execute_many(conn, sql, [{"item_id": i, "lang": lang, "sources": keys} for i, lang, keys in rows])

    def item_language_sources(self, conn: Connection) -> dict[tuple[str, str], tuple[str, ...]]:
        """Every recorded item-language's source keys (item-languages pre-populated before they were kept: none)."""
        table = schema.item_language_sources
        return {
            (item_id, lang): tuple(json.loads(sources))
            for item_id, lang, sources in conn.execute(select(table.c.item_id, table.c.lang, table.c.sources))
        }

    def item_imports(self, conn: Connection) -> dict[str, int]:
        """Each item's import (``items.import_id``): the corpus its sentence came from is recorded per import."""
        return {
            item_id: import_id
            for item_id, import_id in conn.execute(select(schema.items.c.id, schema.items.c.import_id))
        }
