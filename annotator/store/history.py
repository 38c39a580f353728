"""The ``history`` table: every saved change of an item-language (written by ``ItemLanguageRecords`` with the
save itself, read here)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NamedTuple

from sqlalchemy import Connection, and_, distinct, func, select

from annotator.domain.model import HistoryEntry
from annotator.domain.throughput import Change
from annotator.store import schema

#: The user a tool's own change is recorded under starts with this (``system:prepopulate``, ``system:import``):
#: anyone else is a person.
SYSTEM_PREFIX = "system:"


class PersonChange(NamedTuple):
    """One person's changes in one language, for the published card: never the name, only the role (the account's,
    or ``unknown`` when it was deleted) and how many item-languages the person changed there."""

    person: int
    lang: str
    role: str
    item_languages: int


class HistoryRecords:
    """The change history: an item-language's, what people changed, this week's; part of ``Repository``."""

    def history(self, conn: Connection, item_id: str, lang: str) -> list[HistoryEntry]:
        h = schema.history
        rows = conn.execute(select(h).where(and_(h.c.item_id == item_id, h.c.lang == lang)).order_by(h.c.id))
        return [HistoryEntry(r.item_id, r.lang, r.user, r.at, r.action, json.loads(r.detail), r.version) for r in rows]

    def changes_by_people(self, conn: Connection) -> list[PersonChange]:
        """Per person (numbered, not named) and language: the item-languages they changed (an edit or a status)."""
        h, users = schema.history, schema.users
        query = (
            select(h.c.user, h.c.lang, users.c.role, func.count(distinct(h.c.item_id)))
            .select_from(h.outerjoin(users, users.c.name == h.c.user))
            .where(~h.c.user.startswith(SYSTEM_PREFIX, autoescape=True))
            .group_by(h.c.user, h.c.lang, users.c.role)
            .order_by(h.c.user, h.c.lang)
        )
        numbers: dict[str, int] = {}
        found = []
        for user, lang, role, count in conn.execute(query):
            number = numbers.setdefault(user, len(numbers) + 1)
            found.append(PersonChange(number, lang, role or "unknown", int(count)))
        return found

    def item_languages_changed_by_people(self, conn: Connection) -> Iterator[tuple[str, str]]:
        """Every (item id, language) a person changed at least once (an edit or a status), each once."""
        h = schema.history
        query = select(h.c.item_id, h.c.lang).where(~h.c.user.startswith(SYSTEM_PREFIX, autoescape=True)).distinct()
        for row in conn.execute(query):
            yield (row[0], row[1])  # a plain tuple: a set of them is kept for the whole publish

    def changes_since(self, conn: Connection, since: str) -> list[Change]:
        """The history rows at or after ``since`` (a stored UTC time stamp), people's changes only."""
        h = schema.history
        query = (
            select(h.c.item_id, h.c.lang, h.c.user, h.c.at, h.c.action)
            .where(h.c.at >= since)
            .where(~h.c.user.startswith(SYSTEM_PREFIX, autoescape=True))
        )
        return [Change(*row) for row in conn.execute(query)]
