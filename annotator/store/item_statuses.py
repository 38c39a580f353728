"""Every item-language's status per language, for the Items page's table."""

from __future__ import annotations

from sqlalchemy import Connection, select

from annotator.store import schema
from annotator.store.rows import visible


class ItemStatusRecords:
    """Statuses by language for the Items page; part of ``Repository``."""

    def statuses_by_language(self, conn: Connection, languages: list[str]) -> dict[str, dict[str, str]]:
        """lang -> item id -> stored status of every visible item's item-language in ``languages``, as plain strings
        (no row objects: the Items page reads every item-language)."""
        il, it = schema.item_languages, schema.items
        status: dict[str, dict[str, str]] = {lang: {} for lang in languages}
        query = (
            select(il.c.lang, il.c.item_id, il.c.status)
            .join(it, it.c.id == il.c.item_id)
            .where(il.c.lang.in_(languages), visible(it))
        )
        for lang, item_id, value in conn.execute(query):
            status[lang][item_id] = value
        return status
