"""The suggestions' tables: what pre-population consulted (``lexicon_records``), suggestions kept with their stamp
(``suggestion_cache``), dismissals (``suggestion_dismissals``); the team's curated GOOD lists of a few synsets; and
the empty GOOD lists the Project page counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import BindParameter, Connection, and_, bindparam, delete, literal_column, select, tuple_

from annotator.domain.model import CandidateEntry
from annotator.store import schema
from annotator.store.item_languages import CURRENT_BAD, CURRENT_GOOD, candidates_from_json
from annotator.store.languages import SYSTEM_PREFIX
from annotator.store.rows import IN_CHUNK, execute_many, insert_many, visible

#: Statuses whose GOOD list counts as the team's curation (a pending list is still the lexicon's).
CURATED_STATUSES = ("in_progress", "done", "discuss")


class CachedSuggestions(NamedTuple):
    lexicon_stamp: str
    related: str
    mt_stamp: str
    mt: str


class TeamRow(NamedTuple):
    """A curated item-language of another item: its item, σ, stored GOOD list, who last changed it."""

    item_id: str
    synset: str
    good: str
    user: str | None

    def good_entries(self) -> tuple[CandidateEntry, ...]:
        """The stored GOOD list, decoded."""
        return candidates_from_json(self.good)


def _replace(conn: Connection, table: Any, rows: Sequence[dict[str, Any]]) -> None:
    """Upsert by (item_id, lang) on both engines: delete the keys, then insert the rows (one batch each)."""
    if not rows:
        return
    sql = f'DELETE FROM "{table.name}" WHERE "item_id" = :item_id AND "lang" = :lang'
    execute_many(conn, sql, [{"item_id": row["item_id"], "lang": row["lang"]} for row in rows])
    insert_many(conn, table, rows)


#: The one-item-language statements a card runs, built once: building a statement costs more CPU than running it
#: on SQLite, and a statement built once is compiled once too.
_ONE: dict[str, BindParameter[Any]] = {"item_id": bindparam("item_id"), "lang": bindparam("lang")}
_RECORD = select(schema.lexicon_records.c.record).where(
    *(schema.lexicon_records.c[name] == value for name, value in _ONE.items())
)
_CACHED = select(*(schema.suggestion_cache.c[name] for name in CachedSuggestions._fields)).where(
    *(schema.suggestion_cache.c[name] == value for name, value in _ONE.items())
)


def _team_query() -> Any:
    it, il = schema.items, schema.item_languages
    return (
        select(it.c.id, it.c.synset, CURRENT_GOOD.label("good"), il.c.updated_by, il.c.status)
        .join(il, and_(il.c.item_id == it.c.id, il.c.lang == bindparam("lang")))
        .where(
            il.c.item_id.in_(select(it.c.id).where(it.c.synset.in_(bindparam("of_synsets", expanding=True)))),
            it.c.synset.in_(bindparam("synsets", expanding=True)),
            it.c.id != bindparam("other_than"),
            it.c.excluded.is_(False),
            visible(it),
            visible(il),
        )
    )


#: Built once (see ``_RECORD``).
_TEAM = _team_query()


_DISMISSED = select(schema.suggestion_dismissals.c.key).where(
    *(schema.suggestion_dismissals.c[name] == value for name, value in _ONE.items()),
    schema.suggestion_dismissals.c.user == bindparam("user"),
)


class Decision(NamedTuple):
    """A suggestion the team accepted (``detail``: the history row's JSON) or dismissed (``key``)."""

    item_id: str
    lang: str
    accepted: bool
    key: str
    detail: str


class EmptyGoodRow(NamedTuple):
    """A visible, included item-language pre-populated with an empty GOOD list."""

    item_id: str
    lang: str
    good: str
    bad: str
    #: Another curated item-language of its σ in its language has a GOOD list (the team has words to offer).
    team_has_good: bool
    #: A person worked on it: a status other than pending, or a history row by someone other than a tool.
    worked_on: bool

    def good_entries(self) -> tuple[CandidateEntry, ...]:
        """The stored GOOD list, decoded."""
        return candidates_from_json(self.good)

    def bad_entries(self) -> tuple[CandidateEntry, ...]:
        """The stored BAD list, decoded."""
        return candidates_from_json(self.bad)


class SuggestionRecords:
    """Pre-population's records, kept suggestions, dismissals and the team's lists; part of ``Repository``."""

    def put_lexicon_records(self, conn: Connection, rows: Sequence[tuple[str, str, str]]) -> None:
        """Keep (item id, language, record JSON) rows, each replacing the item-language's earlier record (an upsert,
        ``INSERT … ON CONFLICT``, which SQLite and PostgreSQL both take: a first pre-population only inserts)."""
        sql = (
            'INSERT INTO "lexicon_records" ("item_id", "lang", "record") VALUES (:item_id, :lang, :record) '
            'ON CONFLICT ("item_id", "lang") DO UPDATE SET "record" = excluded."record"'
        )
        execute_many(conn, sql, [{"item_id": i, "lang": lang, "record": r} for i, lang, r in rows])

    def lexicon_record(self, conn: Connection, item_id: str, lang: str) -> str | None:
        return conn.execute(_RECORD, {"item_id": item_id, "lang": lang}).scalar_one_or_none()

    def cached_suggestions(self, conn: Connection, item_id: str, lang: str) -> CachedSuggestions | None:
        """``cached_suggestions_of`` for one item-language (the card's)."""
        row = conn.execute(_CACHED, {"item_id": item_id, "lang": lang}).first()
        return CachedSuggestions(*row) if row is not None else None

    def lexicon_records_of(self, conn: Connection, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The records of these (item id, language) pairs that have one."""
        table = schema.lexicon_records
        found: dict[tuple[str, str], str] = {}
        for start in range(0, len(keys), IN_CHUNK):
            chunk = list(keys[start : start + IN_CHUNK])
            query = select(table.c.item_id, table.c.lang, table.c.record).where(
                tuple_(table.c.item_id, table.c.lang).in_(chunk)
            )
            for item_id, lang, record in conn.execute(query):
                found[(item_id, lang)] = record
        return found

    def put_cached_suggestions(self, conn: Connection, rows: Sequence[tuple[str, str, CachedSuggestions]]) -> None:
        _replace(conn, schema.suggestion_cache, [{"item_id": i, "lang": lang, **c._asdict()} for i, lang, c in rows])

    def put_related_suggestions(self, conn: Connection, rows: Sequence[tuple[str, str, str, str]]) -> None:
        """Keep (item id, language, lexicon stamp, related JSON) rows, each replacing the item-language's related
        part and keeping its MT part (an upsert, as ``put_lexicon_records``): what pre-population computes for every
        item-language."""
        sql = (
            'INSERT INTO "suggestion_cache" ("item_id", "lang", "lexicon_stamp", "related", "mt_stamp", "mt") '
            "VALUES (:item_id, :lang, :lexicon_stamp, :related, :mt_stamp, :mt) "
            'ON CONFLICT ("item_id", "lang") DO UPDATE SET "lexicon_stamp" = excluded."lexicon_stamp", '
            '"related" = excluded."related"'
        )
        execute_many(
            conn,
            sql,
            [{"item_id": i, "lang": lang, "lexicon_stamp": st, "related": r, "mt_stamp": "", "mt": "[]"}
             for i, lang, st, r in rows],
        )  # fmt: skip

    def cached_suggestions_of(
        self, conn: Connection, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], CachedSuggestions]:
        table = schema.suggestion_cache
        found: dict[tuple[str, str], CachedSuggestions] = {}
        for start in range(0, len(keys), IN_CHUNK):
            chunk = list(keys[start : start + IN_CHUNK])
            query = select(
                table.c.item_id, table.c.lang, table.c.lexicon_stamp, table.c.related, table.c.mt_stamp, table.c.mt
            ).where(tuple_(table.c.item_id, table.c.lang).in_(chunk))
            for item_id, lang, *values in conn.execute(query):
                found[(item_id, lang)] = CachedSuggestions(*values)
        return found

    def team_rows(self, conn: Connection, synsets: Sequence[str], lang: str, other_than: str) -> list[TeamRow]:
        """Curated item-languages in ``lang`` of the visible, included items (but ``other_than``) whose σ is one of
        ``synsets``: an indexed look-up (items by synset, item-languages by key), a few rows per synset.

        The item-languages are read by key for the items of those synsets (``item_id IN (items by synset)``) and their
        status is checked here: with ``lang = ? AND status IN (…)`` in the statement SQLite walked the language's whole
        curated list through ``ix_item_languages_lang_status`` instead, one language's whole list per card."""
        wanted = list(synsets)
        values = {"lang": lang, "of_synsets": wanted, "synsets": wanted, "other_than": other_than}
        return [TeamRow(*row[:4]) for row in conn.execute(_TEAM, values) if row[4] in CURATED_STATUSES]

    def add_dismissal(
        self, conn: Connection, item_id: str, lang: str, user: str, key: str, text: str, at: str, source: str = "",
        relation: str = "",
    ) -> bool:
        """Remember a dismissal with the suggestion's source and relation; False when it was already dismissed."""
        table = schema.suggestion_dismissals
        exists = conn.execute(
            select(table.c.key).where(
                table.c.item_id == item_id, table.c.lang == lang, table.c.user == user, table.c.key == key
            )
        ).first()
        if exists:
            return False
        conn.execute(
            table.insert().values(
                item_id=item_id, lang=lang, user=user, key=key, text=text, at=at, source=source[:20],
                relation=relation[:200],
            )
        )  # fmt: skip
        return True

    def remove_dismissal(self, conn: Connection, item_id: str, lang: str, user: str, key: str) -> bool:
        table = schema.suggestion_dismissals
        result = conn.execute(
            delete(table).where(
                table.c.item_id == item_id, table.c.lang == lang, table.c.user == user, table.c.key == key
            )
        )
        return bool(result.rowcount)

    def dismissed_keys(self, conn: Connection, item_id: str, lang: str, user: str) -> set[str]:
        return set(conn.execute(_DISMISSED, {"item_id": item_id, "lang": lang, "user": user}).scalars())

    def suggestion_decisions(self, conn: Connection) -> list[Decision]:
        """Every accepted suggestion (history rows ``accept_suggestion``) and every dismissal of the project."""
        history, dismissals = schema.history, schema.suggestion_dismissals
        accepted = select(history.c.item_id, history.c.lang, history.c.detail).where(
            history.c.action == "accept_suggestion"
        )
        found = [Decision(item_id, lang, True, "", detail) for item_id, lang, detail in conn.execute(accepted)]
        found += [
            Decision(item_id, lang, False, key, "{}")
            for item_id, lang, key in conn.execute(select(dismissals.c.item_id, dismissals.c.lang, dismissals.c.key))
        ]
        return found

    def all_item_languages(self, conn: Connection) -> list[tuple[str, str]]:
        """(item id, language) of every visible item-language, in item and language order."""
        il = schema.item_languages
        query = select(il.c.item_id, il.c.lang).where(visible(il)).order_by(il.c.item_id, il.c.lang)
        return [(item_id, lang) for item_id, lang in conn.execute(query)]

    def empty_good_rows(self, conn: Connection) -> list[EmptyGoodRow]:
        """Every item-language pre-populated with an empty GOOD list, in item and language order.

        The rows come from the partial index holding only the empty ones (scanning every item-language's wide JSON
        lists for them grows with the project); the team's lists are read only for the σ of the empty rows (a subquery
        through ``ix_items_synset``)."""
        il, it, h = schema.item_languages, schema.items, schema.history
        by_person = (
            select(h.c.id)
            .where(  # the prefix written into the statement: the page's plan check reads it without parameters
                h.c.item_id == il.c.item_id,
                h.c.lang == il.c.lang,
                h.c.user.not_like(literal_column(f"'{SYSTEM_PREFIX}%'")),
            )
            .exists()
        )
        empty_where: tuple[Any, ...] = (
            literal_column(schema.EMPTY_GOOD_WHERE),  # its partial index's very text (a bound '[]' would not use it)
            visible(il),
            it.c.excluded.is_(False),
        )
        query = (
            select(il.c.item_id, il.c.lang, it.c.synset, CURRENT_GOOD, CURRENT_BAD, il.c.status, by_person)
            .join(it, it.c.id == il.c.item_id)
            .where(*empty_where)
            .order_by(il.c.item_id, il.c.lang)
        )
        empty = list(conn.execute(query))
        curated: dict[tuple[str, str], set[str]] = {}
        if empty:
            empty_synsets = select(it.c.synset).join(il, it.c.id == il.c.item_id).where(*empty_where)
            team_query = (
                select(il.c.lang, it.c.synset, il.c.item_id)
                .join(it, it.c.id == il.c.item_id)
                .where(il.c.status.in_(CURATED_STATUSES), CURRENT_GOOD != "[]", visible(il))
                .where(it.c.synset.in_(empty_synsets))
            )
            for lang, synset, item_id in conn.execute(team_query):
                curated.setdefault((lang, synset), set()).add(item_id)
        return [
            EmptyGoodRow(
                item_id,
                lang,
                good,
                bad,
                bool(curated.get((lang, synset), set()) - {item_id}),
                status != "pending" or bool(touched),
            )
            for item_id, lang, synset, good, bad, status, touched in empty
        ]
