"""Reading and writing the domain model: the only module that turns rows into dataclasses and back.

Every write goes through ``Repository`` methods that take a connection from ``Database.write()``, so a
caller composes several of them into one all-or-nothing transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, CursorResult, and_, bindparam, exists, func, null, or_, select, union_all, update

from annotator.domain.model import (
    CandidateEntry,
    Comment,
    DiscardReason,
    HistoryEntry,
    Item,
    ItemLanguage,
    Origin,
    Role,
    SenseEntry,
    Status,
    Target,
    User,
)
from annotator.errors import ConflictError, UserError
from annotator.store import schema
from annotator.store.database import Database


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


# --- row <-> domain -------------------------------------------------------------------------------------


def candidates_to_json(entries: Sequence[CandidateEntry]) -> str:
    return _dumps(
        [{"text": e.text, "pos": e.pos, "origin": e.origin.value, "synsets": list(e.synsets)} for e in entries]
    )


def candidates_from_json(raw: str) -> tuple[CandidateEntry, ...]:
    if raw == "[]":  # most rows a bulk job reads are untouched (pending, empty)
        return ()
    return tuple(
        CandidateEntry(d["text"], d.get("pos"), Origin(d.get("origin", "translator")), tuple(d.get("synsets", ())))
        for d in json.loads(raw)
    )


def senses_to_json(senses: Sequence[SenseEntry]) -> str:
    return _dumps(
        [
            {"synset": s.synset, "rank": s.rank, "gloss": s.gloss, "wordnet_sense_number": s.wordnet_sense_number}
            for s in senses
        ]
    )


def item_from_row(row: Any) -> Item:
    return Item(
        id=row.id,
        sentence=row.sentence,
        target=Target(row.target_text, row.target_start, row.target_end, row.lemma, row.pos),
        synset=row.synset,
        source=row.source,
        gloss=row.gloss,
        senses=tuple(
            SenseEntry(d["synset"], d["rank"], d.get("gloss", ""), d.get("wordnet_sense_number"))
            for d in json.loads(row.senses)
        ),
        filter_failures=tuple(json.loads(row.filter_failures)),
        excluded=bool(row.excluded),
        domain=row.domain or "",
    )


def item_language_from_row(row: Any) -> ItemLanguage:
    return ItemLanguage(
        item_id=row.item_id,
        lang=row.lang,
        status=Status(row.status),
        version=row.version,
        good=candidates_from_json(row.good),
        bad=candidates_from_json(row.bad),
        initial_good=candidates_from_json(row.initial_good),
        initial_bad=candidates_from_json(row.initial_bad),
        overlaps=tuple(json.loads(row.overlaps)),
        prepopulated=bool(row.prepopulated),
        discuss_note=row.discuss_note,
        discard_reason=DiscardReason(row.discard_reason) if row.discard_reason else None,
        discard_note=row.discard_note,
        status_by=row.status_by,
        updated_by=row.updated_by,
        updated_at=row.updated_at,
    )


def item_language_values(il: ItemLanguage) -> dict[str, Any]:
    return {
        "status": il.status.value,
        "good": candidates_to_json(il.good),
        "bad": candidates_to_json(il.bad),
        "initial_good": candidates_to_json(il.initial_good),
        "initial_bad": candidates_to_json(il.initial_bad),
        "overlaps": _dumps(list(il.overlaps)),
        "prepopulated": il.prepopulated,
        "discuss_note": il.discuss_note,
        "discard_reason": il.discard_reason.value if il.discard_reason else None,
        "discard_note": il.discard_note,
        "status_by": il.status_by,
        "updated_by": il.updated_by,
        "updated_at": il.updated_at,
    }


def user_from_row(row: Any) -> User:
    return User(
        name=row.name,
        role=Role(row.role),
        languages=tuple(json.loads(row.languages)),
        display_name=row.display_name,
        disabled=bool(row.disabled),
        email=row.email,
    )


@dataclass(frozen=True)
class CandidateSetsRow:
    """An item-language for bulk reads (export, statistics): the candidate sets are their stored JSON text (a list
    of ``{"origin", "pos", "synsets", "text"}`` objects), because decoding every candidate into a dataclass
    dominates the time of a 10,000-item export; the caller decodes only what it needs."""

    item_id: str
    lang: str
    status: Status
    good: str
    bad: str
    initial_good: str
    discard_reason: str | None
    discard_note: str
    status_by: str | None
    updated_at: str | None


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


class EvaluationRow(NamedTuple):
    """A row of ``Repository.evaluation_rows``: an item's own row (``lang`` None: its columns up to ``senses``, the
    item-language's None) or one of its item-languages' (``id`` and ``lang`` to ``bad``, the item's columns None).
    ``senses``, ``good`` and ``bad`` stay stored JSON text, decoded once by the caller. The layout of the rows;
    they are read as plain tuples (50,000 of them at 10,000 items × 5 languages)."""

    id: str
    sentence: str | None
    target_text: str | None
    target_start: int | None
    target_end: int | None
    lemma: str | None
    pos: str | None
    synset: str | None
    gloss: str | None
    source: str | None
    senses: str | None
    domain: str | None
    lang: str | None
    status: str | None
    good: str | None
    bad: str | None


def not_staged(item_id: Any) -> Any:
    """For tables without an ``import_id`` (assignments, copies): the row's item is not one an import in progress
    is staging. A primary-key look-up per row, and nothing to look up while no import runs."""
    it = schema.items
    return ~exists().where(it.c.id == item_id, it.c.import_id.in_(select(schema.imports.c.id)))


def visible(table: Any) -> Any:
    """Rows of an import still being staged are hidden from every reader until that import commits.

    The subquery is evaluated once per statement; with no import running it is empty and costs nothing.
    """
    return table.c.import_id.not_in(select(schema.imports.c.id))


@dataclass(frozen=True)
class PreparedSaves:
    """A batch of item-language saves encoded outside the transaction (``Repository.prepare_saves``)."""

    updates: list[dict[str, Any]]
    history: list[dict[str, Any]]


@dataclass(frozen=True)
class PrepopulationTodo:
    item_ids: list[str]
    already_done: int
    excluded: list[str]


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


#: Built once: SQLAlchemy then reuses the compiled form instead of re-deriving cache keys per call.
_IL = schema.item_languages
_SAVE_ITEM_LANGUAGE = (
    update(_IL)
    .where(
        and_(
            _IL.c.item_id == bindparam("b_item_id"),
            _IL.c.lang == bindparam("b_lang"),
            _IL.c.version == bindparam("b_expected"),
        )
    )
    .values({name: bindparam(name) for name in (*item_language_values(ItemLanguage("", "")).keys(), "version")})
)
_INSERT_HISTORY = schema.history.insert()
#: Ids per ``IN (...)`` list: well under SQLite's and PostgreSQL's bound-parameter limits.
_IN_CHUNK = 500


class Repository:
    """Typed access to the tables; methods take the connection so callers own the transaction."""

    def __init__(self, database: Database) -> None:
        self.db = database

    # --- meta -------------------------------------------------------------------------------------------

    def get_meta(self, conn: Connection, key: str, default: Any = None) -> Any:
        row = conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == key)).first()
        return json.loads(row[0]) if row else default

    def set_meta(self, conn: Connection, key: str, value: Any) -> None:
        text = _dumps(value)
        updated = conn.execute(schema.meta.update().where(schema.meta.c.key == key).values(value=text))
        if updated.rowcount == 0:
            conn.execute(schema.meta.insert().values(key=key, value=text))

    # --- users ------------------------------------------------------------------------------------------

    def add_user(self, conn: Connection, user: User, password_hash: str | None) -> None:
        exists = conn.execute(select(schema.users.c.name).where(schema.users.c.name == user.name)).first()
        if exists:
            raise UserError(f"User {user.name!r} already exists.")
        conn.execute(
            schema.users.insert().values(
                name=user.name,
                display_name=user.display_name,
                role=user.role.value,
                languages=_dumps(list(user.languages)),
                password_hash=password_hash,
                disabled=user.disabled,
                created_at=utc_now(),
                email=user.email,
            )
        )

    def get_user(self, conn: Connection, name: str) -> User | None:
        row = conn.execute(select(schema.users).where(schema.users.c.name == name)).first()
        return user_from_row(row) if row else None

    def get_user_by_email(self, conn: Connection, email: str) -> User | None:
        """The account with this (already lower-cased) e-mail address, or None."""
        row = conn.execute(select(schema.users).where(schema.users.c.email == email)).first()
        return user_from_row(row) if row else None

    def get_password_hash(self, conn: Connection, name: str) -> str | None:
        row = conn.execute(select(schema.users.c.password_hash).where(schema.users.c.name == name)).first()
        return row[0] if row else None

    def list_users(self, conn: Connection) -> list[User]:
        return [user_from_row(r) for r in conn.execute(select(schema.users).order_by(schema.users.c.name))]

    def count_users(self, conn: Connection) -> int:
        return int(conn.execute(select(func.count()).select_from(schema.users)).scalar_one())

    def update_user(self, conn: Connection, name: str, **values: Any) -> None:
        if "languages" in values:
            values["languages"] = _dumps(list(values["languages"]))
        if "role" in values and isinstance(values["role"], Role):
            values["role"] = values["role"].value
        result = conn.execute(schema.users.update().where(schema.users.c.name == name).values(**values))
        if result.rowcount == 0:
            raise UserError(f"No user named {name!r}.")

    # --- items ------------------------------------------------------------------------------------------

    def item_hashes(self, conn: Connection) -> dict[str, str]:
        it = schema.items
        return dict(conn.execute(select(it.c.id, it.c.content_hash).where(visible(it))).all())

    def item_hashes_of(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, str]:
        """Content hashes of the given items (missing ids left out), in a few chunked queries."""
        it = schema.items
        found: dict[str, str] = {}
        for start in range(0, len(item_ids), _IN_CHUNK):
            chunk = list(item_ids[start : start + _IN_CHUNK])
            found.update(conn.execute(select(it.c.id, it.c.content_hash).where(it.c.id.in_(chunk), visible(it))).all())
        return found

    def items_by_id(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, Item]:
        it = schema.items
        found: dict[str, Item] = {}
        for start in range(0, len(item_ids), _IN_CHUNK):
            chunk = list(item_ids[start : start + _IN_CHUNK])
            found.update(
                (r.id, item_from_row(r)) for r in conn.execute(select(it).where(it.c.id.in_(chunk), visible(it)))
            )
        return found

    def item_glosses(self, conn: Connection) -> dict[str, str]:
        it = schema.items
        return dict(conn.execute(select(it.c.id, it.c.gloss).where(visible(it))).all())

    def set_glosses(self, conn: Connection, rows: Sequence[tuple[str, str]]) -> None:
        """Batch: (item id, gloss) from a re-import whose only change is the gloss."""
        if rows:
            conn.execute(
                schema.items.update().where(schema.items.c.id == bindparam("b_id")).values(gloss=bindparam("gloss")),
                [{"b_id": item_id, "gloss": gloss} for item_id, gloss in rows],
            )

    def next_position(self, conn: Connection) -> int:
        value = conn.execute(select(func.max(schema.items.c.position))).scalar()
        return int(value or 0) + 1

    def insert_items(self, conn: Connection, rows: list[tuple[Item, str, int]], import_id: int = 0) -> None:
        """Insert many new items at once: (item, content hash, position); hidden while ``import_id`` stages."""
        if rows:
            at = utc_now()
            conn.execute(
                schema.items.insert(),
                [
                    {
                        **self._item_values(i),
                        "content_hash": h,
                        "position": p,
                        "imported_at": at,
                        "import_id": import_id,
                    }
                    for i, h, p in rows
                ],
            )

    def insert_item(self, conn: Connection, item: Item, content_hash: str, position: int) -> None:
        conn.execute(
            schema.items.insert().values(
                **self._item_values(item), content_hash=content_hash, position=position, imported_at=utc_now()
            )
        )

    def replace_item(self, conn: Connection, item: Item, content_hash: str, keep_lexicon: bool) -> None:
        """Replace an item's imported fields. The lead's exclusion is kept; filter results are cleared (stale).

        With ``keep_lexicon`` (λ and σ unchanged) Ω(λ) and the gloss learnt by pre-population stay too.
        """
        values = self._item_values(item)
        del values["excluded"]
        values["filter_failures"] = "[]"
        if keep_lexicon:
            del values["senses"]
            if not item.gloss:
                del values["gloss"]
        conn.execute(
            schema.items.update()
            .where(schema.items.c.id == item.id)
            .values(**values, content_hash=content_hash, imported_at=utc_now())
        )

    @staticmethod
    def _item_values(item: Item) -> dict[str, Any]:
        return {
            "id": item.id,
            "sentence": item.sentence,
            "target_text": item.target.text,
            "target_start": item.target.start,
            "target_end": item.target.end,
            "lemma": item.target.lemma,
            "pos": item.target.pos,
            "synset": item.synset,
            "source": item.source,
            "gloss": item.gloss,
            "senses": senses_to_json(item.senses),
            "filter_failures": _dumps(list(item.filter_failures)),
            "excluded": item.excluded,
            "domain": item.domain,
        }

    def update_item_lexicon(self, conn: Connection, item_id: str, gloss: str, senses: Sequence[SenseEntry]) -> None:
        conn.execute(
            schema.items.update().where(schema.items.c.id == item_id).values(gloss=gloss, senses=senses_to_json(senses))
        )

    def update_items_lexicon(self, conn: Connection, rows: Sequence[tuple[str, str, Sequence[SenseEntry]]]) -> None:
        """Batch: (item id, gloss, Ω(λ)) learnt by pre-population."""
        if rows:
            conn.execute(
                schema.items.update()
                .where(schema.items.c.id == bindparam("b_id"))
                .values(gloss=bindparam("gloss"), senses=bindparam("senses")),
                [{"b_id": i, "gloss": g, "senses": senses_to_json(s)} for i, g, s in rows],
            )

    def set_filter_results(self, conn: Connection, failures: dict[str, list[str]]) -> None:
        for item_id, rules in failures.items():
            conn.execute(
                schema.items.update().where(schema.items.c.id == item_id).values(filter_failures=_dumps(rules))
            )

    def set_excluded(self, conn: Connection, item_ids: Iterable[str], excluded: bool) -> int:
        ids = list(item_ids)
        if not ids:
            return 0
        it = schema.items
        result = conn.execute(it.update().where(it.c.id.in_(ids), visible(it)).values(excluded=excluded))
        return int(result.rowcount)

    def get_item(self, conn: Connection, item_id: str) -> Item | None:
        it = schema.items
        row = conn.execute(select(it).where(it.c.id == item_id, visible(it))).first()
        return item_from_row(row) if row else None

    def list_items(self, conn: Connection) -> list[Item]:
        return list(self.iter_items(conn))

    def iter_items(
        self, conn: Connection, after_position: int | None = None, limit: int | None = None
    ) -> Iterator[Item]:
        """Items in import order; ``after_position`` and ``limit`` page through them (bounded memory)."""
        it = schema.items
        query = select(it).where(visible(it)).order_by(it.c.position)
        if after_position is not None:
            query = query.where(it.c.position > after_position)
        if limit is not None:
            query = query.limit(limit)
        for row in conn.execute(query):
            yield item_from_row(row)

    def count_items(self, conn: Connection) -> int:
        it = schema.items
        return int(conn.execute(select(func.count()).select_from(it).where(visible(it))).scalar_one())

    # --- item-languages ---------------------------------------------------------------------------------

    def ensure_item_languages(self, conn: Connection, item_ids: Iterable[str], langs: Iterable[str]) -> int:
        """Create missing (item, lang) rows as pending; existing ones are left alone."""
        langs = list(langs)
        existing = {
            (r.item_id, r.lang)
            for r in conn.execute(select(schema.item_languages.c.item_id, schema.item_languages.c.lang))
        }
        rows = [
            {"item_id": item_id, "lang": lang, "status": Status.PENDING.value, "version": 0}
            for item_id in item_ids
            for lang in langs
            if (item_id, lang) not in existing
        ]
        if rows:
            conn.execute(schema.item_languages.insert(), rows)
        return len(rows)

    def get_item_language(self, conn: Connection, item_id: str, lang: str) -> ItemLanguage | None:
        il = schema.item_languages
        row = conn.execute(select(il).where(il.c.item_id == item_id, il.c.lang == lang, visible(il))).first()
        return item_language_from_row(row) if row else None

    def item_languages_of(self, conn: Connection, item_id: str) -> dict[str, ItemLanguage]:
        il = schema.item_languages
        rows = conn.execute(select(il).where(il.c.item_id == item_id, visible(il)))
        return {r.lang: item_language_from_row(r) for r in rows}

    def item_languages_of_items(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, list[ItemLanguage]]:
        """Item id -> its item-languages, for many items in a few queries (chunked under SQL's variable limit)."""
        il = schema.item_languages
        found: dict[str, list[ItemLanguage]] = {}
        for start in range(0, len(item_ids), _IN_CHUNK):
            chunk = list(item_ids[start : start + _IN_CHUNK])
            for row in conn.execute(select(il).where(il.c.item_id.in_(chunk), visible(il))):
                found.setdefault(row.item_id, []).append(item_language_from_row(row))
        return found

    def iter_item_languages(self, conn: Connection, lang: str | None = None) -> Iterator[ItemLanguage]:
        il = schema.item_languages
        query = select(il).where(visible(il)).order_by(il.c.item_id, il.c.lang)
        if lang:
            query = query.where(il.c.lang == lang)
        for row in conn.execute(query):
            yield item_language_from_row(row)

    def iter_candidate_sets(self, conn: Connection) -> Iterator[CandidateSetsRow]:
        """Every item-language as a ``CandidateSetsRow``, ordered by item id and language."""
        il = schema.item_languages
        query = (
            select(
                il.c.item_id,
                il.c.lang,
                il.c.status,
                il.c.good,
                il.c.bad,
                il.c.initial_good,
                il.c.discard_reason,
                il.c.discard_note,
                il.c.status_by,
                il.c.updated_at,
            )
            .where(visible(il))
            .order_by(il.c.item_id, il.c.lang)
        )
        statuses = {s.value: s for s in Status}
        for item_id, lang, status, good, bad, initial_good, reason, note, by, at in conn.execute(query):
            yield CandidateSetsRow(item_id, lang, statuses[status], good, bad, initial_good, reason, note, by, at)

    def evaluation_rows(self, conn: Connection, langs: Sequence[str]) -> Sequence[Sequence[Any]]:
        """Every visible, non-excluded item's row and the rows of its visible item-languages in ``langs``, laid out
        as ``EvaluationRow`` (an item's row has ``lang`` None), in no particular order: what scoring the current
        curation reads, without decoding rows into items first.

        One statement (``UNION ALL``), so one snapshot on every engine (PostgreSQL's READ COMMITTED takes one per
        statement) and the items' columns are sent once, not with each of their item-languages; no ``ORDER BY``
        (the caller groups the rows), so PostgreSQL sends the rows as it scans them instead of sorting 60 MB first.
        An item-language of an excluded item is left out too (the item's row is missing).
        """
        it, il = schema.items, schema.item_languages
        items = select(
            *(it.c[name] for name in ("id", "sentence", "target_text", "target_start", "target_end", "lemma")),
            *(it.c[name] for name in ("pos", "synset", "gloss", "source", "senses", "domain")),
            *(null().label(name) for name in ("lang", "status", "good", "bad")),
        ).where(visible(it), it.c.excluded.is_(False))
        item_languages = select(
            il.c.item_id,
            *(null().label(name) for name in EvaluationRow._fields[1 : EvaluationRow._fields.index("lang")]),
            il.c.lang,
            il.c.status,
            il.c.good,
            il.c.bad,
        ).where(
            il.c.lang.in_(list(langs)),
            visible(il),
            il.c.item_id.in_(select(it.c.id).where(visible(it), it.c.excluded.is_(False))),
        )
        return conn.execute(union_all(items, item_languages)).all()

    def save_item_language(
        self,
        conn: Connection,
        new: ItemLanguage,
        expected_version: int,
        user: str,
        action: str,
        detail: dict[str, Any] | None = None,
    ) -> ItemLanguage:
        """Write ``new`` if nobody saved since ``expected_version``; append the history row. Returns the saved state."""
        at = utc_now()
        saved = ItemLanguage(**{**new.__dict__, "version": expected_version + 1, "updated_by": user, "updated_at": at})
        params = item_language_values(saved)
        params.update(version=saved.version, b_item_id=new.item_id, b_lang=new.lang, b_expected=expected_version)
        result = conn.execute(_SAVE_ITEM_LANGUAGE, params)
        if result.rowcount != 1:
            raise ConflictError(
                f"{new.item_id} [{new.lang}] was changed by someone else; reload to see the current state."
            )
        conn.execute(
            _INSERT_HISTORY,
            {
                "item_id": new.item_id,
                "lang": new.lang,
                "user": user,
                "at": at,
                "action": action,
                "detail": _dumps(detail or {}),
                "version": saved.version,
            },
        )
        return saved

    def save_item_languages(
        self,
        conn: Connection,
        states: Sequence[ItemLanguage],
        user: str,
        action: str,
        details: Sequence[dict[str, Any]],
    ) -> None:
        """Batch form of ``save_item_language`` (each state's own version is the expected one); all or none."""
        self.apply_saves(conn, self.prepare_saves(states, user, action, details))

    @staticmethod
    def prepare_saves(
        states: Sequence[ItemLanguage],
        user: str,
        action: str,
        details: Sequence[dict[str, Any]],
        encoded: dict[int, tuple[object, str]] | None = None,
    ) -> PreparedSaves:
        """Encode a batch of saves before taking the write lock, so the transaction only runs the statements.

        Pre-populated sets are shared by many item-languages (one tuple per synset and language), so each
        distinct tuple is encoded once; a caller running many batches passes one ``encoded`` cache to all.
        """
        at = utc_now()
        encoded = {} if encoded is None else encoded

        def encode(entries: tuple[CandidateEntry, ...]) -> str:
            hit = encoded.get(id(entries))
            if hit is None:
                hit = encoded[id(entries)] = (entries, candidates_to_json(entries))  # keeps ``entries`` alive
            return hit[1]

        updates, entries = [], []
        for state, detail in zip(states, details, strict=True):
            version = state.version + 1
            params = {
                "status": state.status.value,
                "good": encode(state.good),
                "bad": encode(state.bad),
                "initial_good": encode(state.initial_good),
                "initial_bad": encode(state.initial_bad),
                "overlaps": _dumps(list(state.overlaps)),
                "prepopulated": state.prepopulated,
                "discuss_note": state.discuss_note,
                "discard_reason": state.discard_reason.value if state.discard_reason else None,
                "discard_note": state.discard_note,
                "status_by": state.status_by,
                "updated_by": user,
                "updated_at": at,
                "version": version,
                "b_item_id": state.item_id,
                "b_lang": state.lang,
                "b_expected": state.version,
            }
            updates.append(params)
            entries.append(
                {
                    "item_id": state.item_id,
                    "lang": state.lang,
                    "user": user,
                    "at": at,
                    "action": action,
                    "detail": _dumps(detail),
                    "version": version,
                }
            )
        return PreparedSaves(updates, entries)

    def apply_saves(self, conn: Connection, prepared: PreparedSaves) -> None:
        if not prepared.updates:
            return
        result = conn.execute(_SAVE_ITEM_LANGUAGE, prepared.updates)
        if result.rowcount != len(prepared.updates):
            raise ConflictError("Some item-languages were changed by someone else during the batch; nothing was saved.")
        conn.execute(_INSERT_HISTORY, prepared.history)

    def versions_of(self, conn: Connection, item_ids: Sequence[str]) -> dict[tuple[str, str], int]:
        """(item id, lang) -> version, for checking a batch computed outside the transaction."""
        il = schema.item_languages
        found: dict[tuple[str, str], int] = {}
        for start in range(0, len(item_ids), _IN_CHUNK):
            chunk = list(item_ids[start : start + _IN_CHUNK])
            query = select(il.c.item_id, il.c.lang, il.c.version).where(il.c.item_id.in_(chunk), visible(il))
            found.update(((item_id, lang), version) for item_id, lang, version in conn.execute(query))
        return found

    # --- pre-population work lists (bounded memory: ids first, rows a page at a time) ---

    def prepopulation_todo(self, conn: Connection, langs: Sequence[str]) -> PrepopulationTodo:
        """Which items still have item-languages of ``langs`` to pre-populate, in import order."""
        il, it = schema.item_languages, schema.items
        pending = set(
            conn.execute(
                select(il.c.item_id).where(il.c.prepopulated.is_(False), il.c.lang.in_(list(langs)), visible(il))
            ).scalars()
        )
        done = conn.execute(
            select(func.count())
            .select_from(il)
            .where(il.c.prepopulated.is_(True), il.c.lang.in_(list(langs)), visible(il))
        ).scalar_one()
        todo: list[str] = []
        excluded: list[str] = []
        for item_id, is_excluded in conn.execute(
            select(it.c.id, it.c.excluded).where(visible(it)).order_by(it.c.position)
        ):
            if item_id in pending:
                (excluded if is_excluded else todo).append(item_id)
        return PrepopulationTodo(todo, int(done), excluded)

    def to_prepopulate(
        self, conn: Connection, item_ids: Sequence[str], langs: Sequence[str]
    ) -> dict[str, list[ItemLanguage]]:
        """The not yet pre-populated item-languages of ``langs`` of these items."""
        il = schema.item_languages
        found: dict[str, list[ItemLanguage]] = {}
        for start in range(0, len(item_ids), _IN_CHUNK):
            chunk = list(item_ids[start : start + _IN_CHUNK])
            query = select(il).where(
                il.c.item_id.in_(chunk), il.c.prepopulated.is_(False), il.c.lang.in_(list(langs)), visible(il)
            )
            for row in conn.execute(query.order_by(il.c.item_id, il.c.lang)):
                found.setdefault(row.item_id, []).append(item_language_from_row(row))
        return found

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
            _queue_entry(r)
            for r in conn.execute(self._queue_query(columns, lang, statuses, search, include_excluded))
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
        for start in range(0, len(excluded), _IN_CHUNK):
            chunk = excluded[start : start + _IN_CHUNK]
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

    def flagged_items(self, conn: Connection) -> list[Item]:
        """Items that failed a selection filter or that a lead excluded, in import order (the Project page)."""
        it = schema.items
        query = (
            select(it)
            .where(or_(it.c.filter_failures != "[]", it.c.excluded.is_(True)), visible(it))
            .order_by(it.c.position)
        )
        return [item_from_row(r) for r in conn.execute(query)]

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

    # --- imports staged behind one row (see ``schema.imports``) ---------------------------------------------

    def staging_imports(self, conn: Connection) -> list[StagingImport]:
        rows = conn.execute(select(schema.imports).order_by(schema.imports.c.id))
        return [StagingImport(r.id, r.file, r.user, r.host, r.pid, r.started_at, r.heartbeat) for r in rows]

    def begin_import(self, conn: Connection, file: str, user: str, host: str, pid: int, now: float) -> int:
        """Register an import; rows it stages with the returned id stay hidden until ``commit_import``."""
        result = conn.execute(
            schema.imports.insert().values(
                file=file, user=user, host=host, pid=pid, started_at=utc_now(), heartbeat=now
            )
        )
        return _inserted_id(result)

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
        if not rows:
            return
        self.insert_items(conn, rows, import_id)
        conn.execute(
            schema.item_languages.insert(),
            [
                {"item_id": item.id, "lang": lang, "status": Status.PENDING.value, "version": 0, "import_id": import_id}
                for item, _digest, _position in rows
                for lang in langs
            ],
        )

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

    # --- project-level audit ---

    def add_audit(self, conn: Connection, user: str, action: str, detail: dict[str, Any]) -> None:
        conn.execute(schema.audit.insert().values(user=user, at=utc_now(), action=action, detail=_dumps(detail)))

    def audit(self, conn: Connection, limit: int = 200) -> list[dict[str, Any]]:
        """The newest project-level changes first."""
        a = schema.audit
        rows = conn.execute(select(a).order_by(a.c.id.desc()).limit(limit))
        return [{"user": r.user, "at": r.at, "action": r.action, "detail": json.loads(r.detail)} for r in rows]

    # --- history and comments ---------------------------------------------------------------------------

    def history(self, conn: Connection, item_id: str, lang: str) -> list[HistoryEntry]:
        h = schema.history
        rows = conn.execute(select(h).where(and_(h.c.item_id == item_id, h.c.lang == lang)).order_by(h.c.id))
        return [HistoryEntry(r.item_id, r.lang, r.user, r.at, r.action, json.loads(r.detail), r.version) for r in rows]

    def add_comment(self, conn: Connection, comment: Comment) -> None:
        conn.execute(
            schema.comments.insert().values(
                item_id=comment.item_id, lang=comment.lang, user=comment.user, at=comment.at, text=comment.text
            )
        )

    def comments(self, conn: Connection, item_id: str, lang: str) -> list[Comment]:
        c = schema.comments
        rows = conn.execute(select(c).where(and_(c.c.item_id == item_id, c.c.lang == lang)).order_by(c.c.id))
        return [Comment(r.item_id, r.lang, r.user, r.at, r.text) for r in rows]

    def table_counts(self, conn: Connection) -> dict[str, int]:
        """Rows per table: tests use it to prove a refused import changed nothing."""
        return {
            table.name: int(conn.execute(select(func.count()).select_from(table)).scalar_one())
            for table in schema.metadata.sorted_tables
        }


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


def _inserted_id(result: CursorResult[Any]) -> int:
    """The id the database gave the row just inserted (one row, one integer key)."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the insert returned no primary key")
    return int(key[0])
