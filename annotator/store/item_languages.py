"""The ``item_languages`` table: an item's curation state per language (status, candidate sets, notes), saved with
optimistic locking; each save appends its ``history`` row in the same transaction.

GOOD and BAD are stored as NULL while they equal G0 and B0 (``initial_good``, ``initial_bad``): a pre-populated
item-language nobody edited holds its lists once, not twice. This is the store's own layout: every reader here
returns the full lists, and SQL over the current lists reads ``CURRENT_GOOD`` / ``CURRENT_BAD``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Connection, func, literal_column, select

from annotator.clock import utc_now
from annotator.domain.model import CandidateEntry, DiscardReason, ItemLanguage, Origin, Status, SuggestedFrom
from annotator.errors import ConflictError
from annotator.store import schema
from annotator.store.rows import IN_CHUNK, dumps, execute_many, insert_many, strings_from_json, visible

_IL = schema.item_languages


def unless_initial(current: str, initial: str) -> str | None:
    """What a GOOD/BAD column stores for the list encoded as ``current``: NULL when it is G0/B0's ``initial``."""
    return None if current == initial else current


#: How a lexicon candidate without tag or suggestion (nearly every G0/B0 candidate) begins in the stored list, and
#: how it begins written out in full (the exported form): ``{"l":[synsets],"text":…}`` stands for
#: ``{"origin":"lexicon","pos":null,"synsets":[synsets],"text":…}``. Inside a JSON string every ``"`` is escaped,
#: so ``{"l":`` only ever starts such an object and a plain text replacement turns one form into the other.
SHORT_LEXICON = '{"l":'
FULL_LEXICON = '{"origin":"lexicon","pos":null,"synsets":'


def candidates_to_json(entries: Sequence[CandidateEntry]) -> str:
    """The stored list: a lexicon candidate without tag or suggestion in short form (``SHORT_LEXICON``), every
    other one as ``{"origin", "pos", "synsets", "text"}``, with ``suggestion`` (source, relation, synset) only on a
    candidate accepted from a suggestion. ``full_lists`` gives the exported form."""
    return dumps(
        [
            {"l": list(e.synsets), "text": e.text}
            if e.origin is Origin.LEXICON and e.pos is None and e.suggested is None
            else {"text": e.text, "pos": e.pos, "origin": e.origin.value, "synsets": list(e.synsets)}
            | ({"suggestion": e.suggested.to_json()} if e.suggested is not None else {})
            for e in entries
        ]
    )


def candidates_from_json(raw: str) -> tuple[CandidateEntry, ...]:
    """A stored list, in short or full form (lists written before the short form existed are full)."""
    if raw == "[]":  # most rows a bulk job reads are untouched (pending, empty)
        return ()
    return tuple(
        CandidateEntry(d["text"], None, Origin.LEXICON, tuple(d["l"]))
        if "l" in d
        else CandidateEntry(
            d["text"],
            d.get("pos"),
            Origin(d.get("origin", "translator")),
            tuple(d.get("synsets", ())),
            SuggestedFrom.from_json(d.get("suggestion")),
        )
        for d in json.loads(raw)
    )


def full_lists(stored: Any) -> Any:
    """SQL: a stored list column (or expression) in its exported form, every candidate ``{"origin", "pos",
    "synsets", "text"}``: what the store hands out as list text. The two forms are written into the statement, not
    bound: a statement the pages' plan checks read must run without parameters."""
    return func.replace(stored, literal_column(f"'{SHORT_LEXICON}'"), literal_column(f"'{FULL_LEXICON}'"))


#: The current GOOD and BAD lists as JSON text in exported form, for SQL reading them (a NULL column means "still
#: G0/B0"); ``full_lists`` for any other list column read as text.
CURRENT_GOOD = full_lists(func.coalesce(_IL.c.good, _IL.c.initial_good))
CURRENT_BAD = full_lists(func.coalesce(_IL.c.bad, _IL.c.initial_bad))


#: The columns an ``ItemLanguage`` is read from, in the order ``item_language_from_row`` unpacks them: rows are
#: unpacked by position because reading 16 attributes off a SQLAlchemy ``Row`` by name is many times slower, which
#: showed in pre-populating a large project.
STATE_COLUMNS = tuple(
    _IL.c[name]
    for name in (
        "item_id",
        "lang",
        "status",
        "version",
        "good",
        "bad",
        "initial_good",
        "initial_bad",
        "overlaps",
        "prepopulated",
        "discuss_note",
        "discard_reason",
        "discard_note",
        "status_by",
        "updated_by",
        "updated_at",
    )
)


def item_language_from_row(row: Sequence[Any]) -> ItemLanguage:
    """An item-language from a row of ``select(*STATE_COLUMNS)``."""
    (
        item_id,
        lang,
        status,
        version,
        good,
        bad,
        initial_good,
        initial_bad,
        overlaps,
        prepopulated,
        discuss_note,
        discard_reason,
        discard_note,
        status_by,
        updated_by,
        updated_at,
    ) = row
    g0, b0 = candidates_from_json(initial_good), candidates_from_json(initial_bad)
    return ItemLanguage(
        item_id=item_id,
        lang=lang,
        status=Status(status),
        version=version,
        good=g0 if good is None else candidates_from_json(good),
        bad=b0 if bad is None else candidates_from_json(bad),
        initial_good=g0,
        initial_bad=b0,
        overlaps=strings_from_json(overlaps),
        prepopulated=bool(prepopulated),
        discuss_note=discuss_note,
        discard_reason=DiscardReason(discard_reason) if discard_reason else None,
        discard_note=discard_note,
        status_by=status_by,
        updated_by=updated_by,
        updated_at=updated_at,
    )


def item_language_values(il: ItemLanguage) -> dict[str, Any]:
    """The stored columns of ``il`` (GOOD/BAD NULL when they are G0/B0)."""
    initial_good, initial_bad = candidates_to_json(il.initial_good), candidates_to_json(il.initial_bad)
    return {
        "status": il.status.value,
        "good": unless_initial(candidates_to_json(il.good), initial_good),
        "bad": unless_initial(candidates_to_json(il.bad), initial_bad),
        "initial_good": initial_good,
        "initial_bad": initial_bad,
        "overlaps": dumps(list(il.overlaps)),
        "prepopulated": il.prepopulated,
        "discuss_note": il.discuss_note,
        "discard_reason": il.discard_reason.value if il.discard_reason else None,
        "discard_note": il.discard_note,
        "status_by": il.status_by,
        "updated_by": il.updated_by,
        "updated_at": il.updated_at,
    }


class CandidateSetsRow(NamedTuple):
    """An item-language for bulk reads (export, statistics): the candidate sets are their stored JSON text (a list
    of ``{"origin", "pos", "synsets", "text"}`` objects, as exported; GOOD/BAD the current lists), because decoding
    every candidate into a dataclass dominates the time of a 10,000-item export; the caller decodes only what it
    needs.

    Only strings (``status`` is the ``Status`` value, which compares equal to the member): an export holds one per
    item-language for its whole run, so a row is one object rather than a dataclass holding an enum member."""

    item_id: str
    lang: str
    status: str
    good: str
    bad: str
    initial_good: str
    discard_reason: str | None
    discard_note: str
    status_by: str | None
    updated_at: str | None


@dataclass(frozen=True)
class PreparedSaves:
    """A batch of item-language saves encoded outside the transaction (``Repository.prepare_saves``)."""

    updates: list[dict[str, Any]]
    history: list[dict[str, Any]]


class ListSave(NamedTuple):
    """A save of an item-language's lists alone (``prepare_list_saves``): every list already encoded as stored, the
    status and notes left as they were read (the version check guarantees they still are)."""

    item_id: str
    lang: str
    #: The version it was read at.
    version: int
    good: str
    bad: str
    initial_good: str
    initial_bad: str
    overlaps: str
    #: Its history row's detail, as JSON.
    detail: str


#: One item-language's save, with optimistic locking (``b_expected``: the version it was read at). Sent through the
#: driver (``rows.execute_many``), for one row or a bulk job's batch.
_SAVE_ITEM_LANGUAGE_SQL = (
    'UPDATE "item_languages" SET '
    + ", ".join(f'"{name}" = :{name}' for name in (*item_language_values(ItemLanguage("", "")).keys(), "version"))
    + ' WHERE "item_id" = :b_item_id AND "lang" = :b_lang AND "version" = :b_expected'
)
#: The columns a save of the lists alone leaves as they were read (``prepare_list_saves``).
_KEPT_BY_LIST_SAVES = frozenset({"status", "discuss_note", "discard_reason", "discard_note", "status_by"})
#: ``_SAVE_ITEM_LANGUAGE_SQL`` without those columns: the version check guarantees they still hold what was read,
#: and leaving them out spares the database rewriting the status index for every row.
_SAVE_LISTS_SQL = (
    'UPDATE "item_languages" SET '
    + ", ".join(
        f'"{name}" = :{name}'
        for name in (*item_language_values(ItemLanguage("", "")).keys(), "version")
        if name not in _KEPT_BY_LIST_SAVES
    )
    + ' WHERE "item_id" = :b_item_id AND "lang" = :b_lang AND "version" = :b_expected'
)


class ItemLanguageRecords:
    """Item-languages and their saves; part of ``Repository``."""

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
        row = conn.execute(
            select(*STATE_COLUMNS).where(il.c.item_id == item_id, il.c.lang == lang, visible(il))
        ).first()
        return item_language_from_row(row) if row else None

    def item_languages_of(self, conn: Connection, item_id: str) -> dict[str, ItemLanguage]:
        il = schema.item_languages
        rows = conn.execute(select(*STATE_COLUMNS).where(il.c.item_id == item_id, visible(il)))
        return {r.lang: item_language_from_row(r) for r in rows}

    def item_languages_of_items(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, list[ItemLanguage]]:
        """Item id -> its item-languages, for many items in a few queries (chunked under SQL's variable limit)."""
        il = schema.item_languages
        found: dict[str, list[ItemLanguage]] = {}
        for start in range(0, len(item_ids), IN_CHUNK):
            chunk = list(item_ids[start : start + IN_CHUNK])
            for row in conn.execute(select(*STATE_COLUMNS).where(il.c.item_id.in_(chunk), visible(il))):
                found.setdefault(row[0], []).append(item_language_from_row(row))
        return found

    def iter_item_languages(self, conn: Connection, lang: str | None = None) -> Iterator[ItemLanguage]:
        il = schema.item_languages
        query = select(*STATE_COLUMNS).where(visible(il)).order_by(il.c.item_id, il.c.lang)
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
                CURRENT_GOOD.label("good"),
                CURRENT_BAD.label("bad"),
                full_lists(il.c.initial_good).label("initial_good"),
                il.c.discard_reason,
                il.c.discard_note,
                il.c.status_by,
                il.c.updated_at,
            )
            .where(visible(il))
            .order_by(il.c.item_id, il.c.lang)
        )
        for row in conn.execute(query):
            yield CandidateSetsRow._make(row)  # not the driver's row object, which holds on to its result's metadata

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
        if execute_many(conn, _SAVE_ITEM_LANGUAGE_SQL, [params]) != 1:
            raise ConflictError(
                f"{new.item_id} [{new.lang}] was changed by someone else; reload to see the current state."
            )
        insert_many(
            conn,
            schema.history,
            [
                {
                    "item_id": new.item_id,
                    "lang": new.lang,
                    "user": user,
                    "at": at,
                    "action": action,
                    "detail": dumps(detail or {}),
                    "version": saved.version,
                },
            ],
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
        encoded: dict[tuple[CandidateEntry, ...], str] | None = None,
        encoded_lists: Sequence[Mapping[str, str]] | None = None,
        prepopulated: bool | None = None,
        details_json: dict[tuple[tuple[str, Any], ...], str] | None = None,
    ) -> PreparedSaves:
        """Encode a batch of saves before taking the write lock, so the transaction only runs the statements.

        A candidate tuple shared by many states is encoded once (a caller running many batches may pass one
        ``encoded`` cache to all). ``encoded_lists``, per state, gives lists already encoded as stored by column
        (``good``, ``bad``, ``initial_good``, ``initial_bad``, and ``overlaps``), which then replace the state's own:
        pre-population keeps its G0/B0 encoded, never as candidate objects. GOOD/BAD equal to G0/B0 are written as
        NULL. ``prepopulated``, when given, is every state's flag (pre-population sets it without copying states).
        ``details_json``: the details already encoded, kept by a caller running many batches (like ``encoded``).
        A save of the lists alone, from rows already encoded: ``prepare_list_saves``.
        """
        at = utc_now()
        encoded = {} if encoded is None else encoded

        def encode(entries: tuple[CandidateEntry, ...]) -> str:
            hit = encoded.get(entries)
            if hit is None:
                hit = encoded[entries] = candidates_to_json(entries)
            return hit

        details_json = {} if details_json is None else details_json

        def encode_detail(detail: dict[str, Any]) -> str:
            """Most details of a bulk job are a few counts, repeated: each distinct one is encoded once."""
            key = tuple(detail.items())
            try:
                hit = details_json.get(key)
            except TypeError:  # a list inside (a redo's previous sets): not repeated, encoded each time
                return dumps(detail)
            if hit is None:
                hit = details_json[key] = dumps(detail)
            return hit

        given = encoded_lists if encoded_lists is not None else [{}] * len(states)
        updates, entries = [], []
        for state, detail, lists in zip(states, details, given, strict=True):
            version = state.version + 1
            initial_good = lists.get("initial_good") or encode(state.initial_good)
            initial_bad = lists.get("initial_bad") or encode(state.initial_bad)
            params = {
                "good": unless_initial(lists.get("good") or encode(state.good), initial_good),
                "bad": unless_initial(lists.get("bad") or encode(state.bad), initial_bad),
                "initial_good": initial_good,
                "initial_bad": initial_bad,
                "overlaps": lists.get("overlaps") or (dumps(list(state.overlaps)) if state.overlaps else "[]"),
                "prepopulated": state.prepopulated if prepopulated is None else prepopulated,
                "updated_by": user,
                "updated_at": at,
                "version": version,
                "b_item_id": state.item_id,
                "b_lang": state.lang,
                "b_expected": state.version,
                "status": state.status.value,
                "discuss_note": state.discuss_note,
                "discard_reason": state.discard_reason.value if state.discard_reason else None,
                "discard_note": state.discard_note,
                "status_by": state.status_by,
            }
            updates.append(params)
            entries.append(
                {
                    "item_id": state.item_id,
                    "lang": state.lang,
                    "user": user,
                    "at": at,
                    "action": action,
                    "detail": encode_detail(detail),
                    "version": version,
                }
            )
        return PreparedSaves(updates, entries)

    @staticmethod
    def prepare_list_saves(
        saves: Sequence[ListSave], user: str, action: str, prepopulated: bool, at: str | None = None
    ) -> PreparedSaves:
        """``prepare_saves`` of lists alone, from rows already encoded: a bulk job (pre-population) builds them from
        strings it keeps, with no state object per item-language. GOOD/BAD equal to G0/B0 are written as NULL; the
        save leaves out the columns ``_KEPT_BY_LIST_SAVES``."""
        at = utc_now() if at is None else at
        updates = [
            {
                "good": None if save.good == save.initial_good else save.good,
                "bad": None if save.bad == save.initial_bad else save.bad,
                "initial_good": save.initial_good,
                "initial_bad": save.initial_bad,
                "overlaps": save.overlaps,
                "prepopulated": prepopulated,
                "updated_by": user,
                "updated_at": at,
                "version": save.version + 1,
                "b_item_id": save.item_id,
                "b_lang": save.lang,
                "b_expected": save.version,
            }
            for save in saves
        ]
        history = [
            {
                "item_id": save.item_id,
                "lang": save.lang,
                "user": user,
                "at": at,
                "action": action,
                "detail": save.detail,
                "version": save.version + 1,
            }
            for save in saves
        ]
        return PreparedSaves(updates, history)

    def apply_saves(self, conn: Connection, prepared: PreparedSaves) -> None:
        if not prepared.updates:
            return
        whole = [params for params in prepared.updates if "status" in params]
        lists = [params for params in prepared.updates if "status" not in params]
        saved = execute_many(conn, _SAVE_ITEM_LANGUAGE_SQL, whole) if whole else 0
        saved += execute_many(conn, _SAVE_LISTS_SQL, lists) if lists else 0
        if saved != len(prepared.updates):
            raise ConflictError("Some item-languages were changed by someone else during the batch; nothing was saved.")
        insert_many(conn, schema.history, prepared.history)

    def versions_of(self, conn: Connection, item_ids: Sequence[str]) -> dict[tuple[str, str], int]:
        """(item id, lang) -> version, for checking a batch computed outside the transaction."""
        il = schema.item_languages
        found: dict[tuple[str, str], int] = {}
        for start in range(0, len(item_ids), IN_CHUNK):
            chunk = list(item_ids[start : start + IN_CHUNK])
            query = select(il.c.item_id, il.c.lang, il.c.version).where(il.c.item_id.in_(chunk), visible(il))
            found.update(((item_id, lang), version) for item_id, lang, version in conn.execute(query).all())
        return found
