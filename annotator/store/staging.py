"""Imports staged behind one row of ``imports``: their items and item-languages stay hidden from every reader
(``rows.visible``) until the import's row is deleted, so an import appears at once or not at all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

from sqlalchemy import Connection, literal, select, true, union_all

from annotator.clock import utc_now
from annotator.domain.model import Item, SenseEntry, Status
from annotator.store import schema
from annotator.store.item_languages import ListSave
from annotator.store.items import NEW_ITEM, ItemRecords, senses_to_json
from annotator.store.rows import IN_CHUNK, insert_tuples, inserted_id

#: The columns of an item-language staged with its lists (``prepopulated_rows``), in the order its rows give them.
_STAGED_COLUMNS = (
    "item_id", "lang", "status", "version", "good", "bad", "initial_good", "initial_bad", "overlaps", "prepopulated",
    "discuss_note", "discard_reason", "discard_note", "status_by", "updated_by", "updated_at", "import_id",
)  # fmt: skip
_HISTORY_COLUMNS = ("item_id", "lang", "user", "at", "action", "detail", "version")
#: The columns of a staged item (``prepopulated_rows``): those its values give, then what pre-population and the
#: import add.
_ITEM_FILE_COLUMNS = (
    "id", "sentence", "target_text", "target_start", "target_end", "lemma", "pos", "synset", "source", "domain",
    "content_hash", "position",
)  # fmt: skip
_ITEM_COLUMNS = (*_ITEM_FILE_COLUMNS, "gloss", "senses", "filter_failures", "excluded", "imported_at", "import_id")
#: A new item's values of ``_ITEM_FILE_COLUMNS``, as a tuple.
_item_file_values = itemgetter(*_ITEM_FILE_COLUMNS)


class KeptRows(NamedTuple):
    """What pre-population keeps with staged item-languages, as new rows (their items are new; a cancelled import's
    go with its items): (item id, lang, record) of ``lexicon_records``, (item id, lang, stamp, related JSON) of
    ``suggestion_cache`` (no MT part yet), (item id, lang, sources) of ``item_language_sources``."""

    records: Sequence[tuple[str, str, str]] = ()
    related: Sequence[tuple[str, str, str, str]] = ()
    sources: Sequence[tuple[str, str, str]] = ()


NOTHING_KEPT = KeptRows()


class StagedRows(NamedTuple):
    """A chunk of new items staged with their lists, each table's rows as tuples in its columns' order
    (``_STAGED_TABLE_COLUMNS``): plain values only, so they are cheap to send from the process that made them to the
    one that writes them."""

    items: list[tuple[Any, ...]]
    item_languages: list[tuple[Any, ...]]
    history: list[tuple[Any, ...]]
    lexicon_records: list[tuple[Any, ...]]
    suggestion_cache: list[tuple[Any, ...]]
    item_language_sources: list[tuple[Any, ...]]


#: The tables of ``StagedRows``, in its fields' order (the order they are written in), and their columns.
_STAGED_TABLES = (
    schema.items, schema.item_languages, schema.history, schema.lexicon_records, schema.suggestion_cache,
    schema.item_language_sources,
)  # fmt: skip
_STAGED_TABLE_COLUMNS = (
    _ITEM_COLUMNS, _STAGED_COLUMNS, _HISTORY_COLUMNS, ("item_id", "lang", "record"),
    ("item_id", "lang", "lexicon_stamp", "related", "mt_stamp", "mt"), ("item_id", "lang", "sources"),
)  # fmt: skip


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


class StagingRecords(ItemRecords):
    """Running imports and their hidden rows; part of ``Repository``. Staging inserts items, so it builds on
    ``ItemRecords``."""

    def staging_imports(self, conn: Connection) -> list[StagingImport]:
        rows = conn.execute(select(schema.imports).order_by(schema.imports.c.id))
        return [StagingImport(r.id, r.file, r.user, r.host, r.pid, r.started_at, r.heartbeat) for r in rows]

    def begin_import(self, conn: Connection, file: str, user: str, host: str, pid: int, now: float) -> int:
        """Register an import; rows it stages with the returned id stay hidden until ``end_import``."""
        result = conn.execute(
            schema.imports.insert().values(
                file=file, user=user, host=host, pid=pid, started_at=utc_now(), heartbeat=now
            )
        )
        return inserted_id(result)

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
        values = [{**self._item_values(i), "content_hash": h, "position": p} for i, h, p in rows]
        self.stage_new_values(conn, import_id, values, langs)

    def stage_new_values(
        self, conn: Connection, import_id: int, rows: Sequence[Mapping[str, Any]], langs: Sequence[str]
    ) -> None:
        """``stage_new_items`` of items given as their columns' values (see ``insert_new_items``)."""
        if not rows:
            return
        self.insert_new_items(conn, rows, import_id)
        self._stage_item_languages(conn, import_id, [values["id"] for values in rows], langs)

    @staticmethod
    def prepopulated_rows(
        import_id: int,
        rows: Sequence[Mapping[str, Any]],
        langs: Sequence[str],
        saves: Sequence[ListSave],
        user: str,
        action: str,
        lexicon: Mapping[str, tuple[str, Sequence[SenseEntry]]],
        senses_json: dict[tuple[str, str], str],
        kept: KeptRows = NOTHING_KEPT,
    ) -> StagedRows:
        """The rows that stage the new items ``rows`` pre-populated before they are written, hidden behind
        ``import_id`` (``write_staged_rows`` writes them): each item-language of ``saves`` (of the lists alone, as
        ``prepare_list_saves`` writes them over a pending row of version 0) as that save leaves it, with its history
        row by ``user`` for ``action``; one ``saves`` has none of is staged pending. ``lexicon``: item id -> the gloss
        and Ω(λ) pre-population gave it, Ω(λ) encoded once per (λ case-folded, POS) in ``senses_json`` (the items
        of a lemma share it; a caller building many chunks keeps one). ``kept``: what pre-population keeps with the
        item-languages. Pure: made outside any transaction (a second process may make them), so the write holds
        the lock only for the inserts."""
        at = utc_now()
        items: list[tuple[Any, ...]] = []
        no_senses, failures, excluded = NEW_ITEM["senses"], NEW_ITEM["filter_failures"], NEW_ITEM["excluded"]
        for values in rows:
            found = lexicon.get(values["id"])
            if found is None:
                gloss, senses = values["gloss"], no_senses
            else:
                key = (values["lemma"].casefold(), values["pos"])
                senses = senses_json.get(key)
                if senses is None:
                    senses = senses_json[key] = senses_to_json(found[1])
                gloss = found[0]
            items.append((*_item_file_values(values), gloss, senses, failures, excluded, at, import_id))
        pending = Status.PENDING.value
        saved = {(save.item_id, save.lang): save for save in saves}
        staged: list[tuple[Any, ...]] = []
        for values in rows:
            item_id = values["id"]
            for lang in langs:
                save = saved.get((item_id, lang))
                if save is None:
                    staged.append(
                        (item_id, lang, pending, 0, None, None, "[]", "[]", "[]", False, "", None, "", None, None, None,
                         import_id)
                    )  # fmt: skip
                else:
                    good = None if save.good == save.initial_good else save.good
                    bad = None if save.bad == save.initial_bad else save.bad
                    staged.append(
                        (item_id, lang, pending, save.version + 1, good, bad, save.initial_good, save.initial_bad,
                         save.overlaps, True, "", None, "", None, user, at, import_id)
                    )  # fmt: skip
        history = [(s.item_id, s.lang, user, at, action, s.detail, s.version + 1) for s in saves]
        related = [(*row, "", "[]") for row in kept.related]
        return StagedRows(items, staged, history, list(kept.records), related, list(kept.sources))

    @staticmethod
    def write_staged_rows(conn: Connection, rows: StagedRows) -> None:
        """Insert the rows ``prepopulated_rows`` made: the items first, the rows that name them after."""
        for table, columns, values in zip(_STAGED_TABLES, _STAGED_TABLE_COLUMNS, rows, strict=True):
            insert_tuples(conn, table, columns, values)

    @staticmethod
    def _stage_item_languages(conn: Connection, import_id: int, item_ids: Sequence[str], langs: Sequence[str]) -> None:
        """The pending item-languages of the import's items ``item_ids``, by ``INSERT … SELECT``: the database makes
        the rows (items × languages, in item then language order) from the items just written, rather than binding
        each row's values from Python."""
        if not langs:
            return
        it, il = schema.items, schema.item_languages
        wanted = union_all(
            *(select(literal(lang).label("lang"), literal(order).label("n")) for order, lang in enumerate(langs))
        ).subquery("langs")
        for start in range(0, len(item_ids), IN_CHUNK):
            rows = (
                select(it.c.id, wanted.c.lang, literal(Status.PENDING.value), literal(0), literal(import_id))
                .select_from(it.join(wanted, true()))
                .where(it.c.import_id == import_id, it.c.id.in_(list(item_ids[start : start + IN_CHUNK])))
                .order_by(it.c.position, wanted.c.n)
            )
            conn.execute(il.insert().from_select(["item_id", "lang", "status", "version", "import_id"], rows))

    def delete_staged(self, conn: Connection, import_id: int, limit: int) -> int:
        """Delete up to ``limit`` hidden items of an abandoned import (and their item-languages, their history and
        the records kept with them); returns how many."""
        it, il = schema.items, schema.item_languages
        ids = list(conn.execute(select(it.c.id).where(it.c.import_id == import_id).limit(limit)).scalars())
        if ids:
            # the history rows of item-languages pre-populated while staged (the new ids have no other)
            conn.execute(schema.history.delete().where(schema.history.c.item_id.in_(ids)))
            conn.execute(il.delete().where(il.c.item_id.in_(ids), il.c.import_id == import_id))
            conn.execute(it.delete().where(it.c.id.in_(ids), it.c.import_id == import_id))
        return len(ids)

    def end_import(self, conn: Connection, import_id: int) -> bool:
        """Delete the import's row: its staged rows become visible at once (or, once deleted, nothing is left)."""
        result = conn.execute(schema.imports.delete().where(schema.imports.c.id == import_id))
        return result.rowcount == 1
