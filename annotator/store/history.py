"""The ``history`` table: every saved change of an item-language (written by ``ItemLanguageRecords`` with the
save itself, read here)."""

from __future__ import annotations

import json

from sqlalchemy import Connection, and_, select

from annotator.domain.model import HistoryEntry
from annotator.store import schema


class HistoryRecords:
    """An item-language's change history, oldest first; part of ``Repository``."""

    def history(self, conn: Connection, item_id: str, lang: str) -> list[HistoryEntry]:
        h = schema.history
        rows = conn.execute(select(h).where(and_(h.c.item_id == item_id, h.c.lang == lang)).order_by(h.c.id))
        return [HistoryEntry(r.item_id, r.lang, r.user, r.at, r.action, json.loads(r.detail), r.version) for r in rows]
