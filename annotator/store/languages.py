"""A project language's rows across the tables: how many of its item-languages were curated, and removing it.

An item-language counts as curated when a person touched it: its status left ``pending``, a history row written by
someone other than the import and pre-population jobs (``system:…``), a comment, a double-curation assignment or a
lead's inspection verdict. A language without any can be removed whole (``services.languages``).
"""

from __future__ import annotations

from sqlalchemy import Connection, delete, func, select, union

from annotator.store import schema

#: The user names the import and pre-population jobs write their history rows under (``system:prepopulate`` …).
SYSTEM_PREFIX = "system:"


class LanguageRecords:
    """Counting and deleting one language's rows; part of ``Repository``."""

    def curated_item_languages(self, conn: Connection, lang: str) -> int:
        """How many of ``lang``'s item-languages a person has touched (one count per item)."""
        il, h, c = schema.item_languages, schema.history, schema.comments
        a, i = schema.assignments, schema.inspections
        touched = union(
            select(il.c.item_id).where(il.c.lang == lang, il.c.status != "pending"),
            select(h.c.item_id).where(h.c.lang == lang, ~h.c.user.startswith(SYSTEM_PREFIX)),
            select(c.c.item_id).where(c.c.lang == lang),
            select(a.c.item_id).where(a.c.lang == lang),
            select(i.c.item_id).where(i.c.lang == lang),
        ).subquery()
        return int(conn.execute(select(func.count()).select_from(touched)).scalar_one())

    def delete_language(self, conn: Connection, lang: str) -> int:
        """Delete ``lang``'s item-languages, their machine-written history and what was kept for their cards (the
        lexicon's records, the computed suggestions, the dismissed ones); returns the item-languages deleted.

        Called only when ``curated_item_languages`` is 0, in the same transaction, so nothing a person wrote goes."""
        il = schema.item_languages
        kept_for_cards = (schema.lexicon_records, schema.suggestion_cache, schema.suggestion_dismissals)
        for table in (
            schema.history,
            schema.copies,
            schema.assignments,
            schema.comments,
            schema.inspections,
            *kept_for_cards,
        ):
            conn.execute(delete(table).where(table.c.lang == lang))
        return int(conn.execute(delete(il).where(il.c.lang == lang)).rowcount or 0)
