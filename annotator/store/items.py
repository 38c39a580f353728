"""The ``items`` table: the imported sentences with their target, synset, Ω(λ) and the lead's exclusion."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, bindparam, func, literal_column, select

from annotator.clock import utc_now
from annotator.domain.model import Item, SenseEntry, Target
from annotator.store import schema
from annotator.store.rows import IN_CHUNK, dumps, execute_many, insert_many, strings_from_json, visible


def senses_to_json(senses: Sequence[SenseEntry]) -> str:
    return dumps(
        [
            {"synset": s.synset, "rank": s.rank, "gloss": s.gloss, "wordnet_sense_number": s.wordnet_sense_number}
            for s in senses
        ]
    )


#: The columns an ``Item`` is read from, in the order ``item_from_row`` unpacks them (by position, not by name: see
#: ``item_languages.STATE_COLUMNS``).
ITEM_COLUMNS = tuple(
    schema.items.c[name]
    for name in (
        "id",
        "sentence",
        "target_text",
        "target_start",
        "target_end",
        "lemma",
        "pos",
        "synset",
        "source",
        "gloss",
        "senses",
        "filter_failures",
        "excluded",
        "domain",
    )
)


def item_from_row(row: Sequence[Any]) -> Item:
    """An item from a row of ``select(*ITEM_COLUMNS)``."""
    (
        item_id,
        sentence,
        target_text,
        target_start,
        target_end,
        lemma,
        pos,
        synset,
        source,
        gloss,
        senses,
        filter_failures,
        excluded,
        domain,
    ) = row
    return Item(
        id=item_id,
        sentence=sentence,
        target=Target(target_text, target_start, target_end, lemma, pos),
        synset=synset,
        source=source,
        gloss=gloss,
        senses=()
        if senses == "[]"  # not pre-populated yet
        else tuple(
            SenseEntry(d["synset"], d["rank"], d.get("gloss", ""), d.get("wordnet_sense_number"))
            for d in json.loads(senses)
        ),
        filter_failures=strings_from_json(filter_failures),
        excluded=bool(excluded),
        domain=domain or "",
    )


class ItemRow(NamedTuple):
    """An item for bulk reads that keep the whole project in memory (export, statistics): only strings, numbers
    and tuples of strings, with Ω(λ) left as its stored JSON text, so a row is one object rather than an ``Item``
    and its parts."""

    id: str
    sentence: str
    target_text: str
    target_start: int
    target_end: int
    lemma: str
    pos: str
    synset: str
    source: str
    gloss: str
    #: Ω(λ) as stored (JSON text).
    senses: str
    filter_failures: tuple[str, ...]
    excluded: bool
    domain: str


#: The values of a newly imported item's columns that no item file gives: not pre-populated, not filtered, included.
NEW_ITEM: dict[str, Any] = {"senses": "[]", "filter_failures": "[]", "excluded": False}


class ItemRecords:
    """Items (hidden while an import stages them, see ``rows.visible``); part of ``Repository``."""

    def item_hashes(self, conn: Connection) -> dict[str, str]:
        it = schema.items
        return dict(conn.execute(select(it.c.id, it.c.content_hash).where(visible(it))).all())

    def item_hashes_of(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, str]:
        """Content hashes of the given items (missing ids left out), in a few chunked queries."""
        it = schema.items
        found: dict[str, str] = {}
        for start in range(0, len(item_ids), IN_CHUNK):
            chunk = list(item_ids[start : start + IN_CHUNK])
            found.update(conn.execute(select(it.c.id, it.c.content_hash).where(it.c.id.in_(chunk), visible(it))).all())
        return found

    def items_by_id(self, conn: Connection, item_ids: Sequence[str]) -> dict[str, Item]:
        it = schema.items
        found: dict[str, Item] = {}
        for start in range(0, len(item_ids), IN_CHUNK):
            chunk = list(item_ids[start : start + IN_CHUNK])
            found.update(
                (r[0], item_from_row(r))
                for r in conn.execute(select(*ITEM_COLUMNS).where(it.c.id.in_(chunk), visible(it)))
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
        self.insert_new_items(
            conn, [{**self._item_values(i), "content_hash": h, "position": p} for i, h, p in rows], import_id
        )

    def insert_new_items(self, conn: Connection, rows: Sequence[Mapping[str, Any]], import_id: int = 0) -> None:
        """Insert many new items given as their columns' values: those of the file (``id`` … ``domain``), the
        ``content_hash`` and ``position``; Ω(λ), filter results and exclusion start empty unless given."""
        if rows:
            at = utc_now()
            insert_many(
                conn, schema.items, [{**NEW_ITEM, **v, "imported_at": at, "import_id": import_id} for v in rows]
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
            "filter_failures": dumps(list(item.filter_failures)),
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
            execute_many(
                conn,
                'UPDATE "items" SET "gloss" = :gloss, "senses" = :senses WHERE "id" = :b_id',
                [{"b_id": i, "gloss": g, "senses": senses_to_json(s)} for i, g, s in rows],
            )

    def set_filter_results(self, conn: Connection, failures: dict[str, list[str]]) -> None:
        for item_id, rules in failures.items():
            conn.execute(schema.items.update().where(schema.items.c.id == item_id).values(filter_failures=dumps(rules)))

    def set_excluded(self, conn: Connection, item_ids: Iterable[str], excluded: bool) -> int:
        ids = list(item_ids)
        if not ids:
            return 0
        it = schema.items
        result = conn.execute(it.update().where(it.c.id.in_(ids), visible(it)).values(excluded=excluded))
        return int(result.rowcount)

    def get_item(self, conn: Connection, item_id: str) -> Item | None:
        it = schema.items
        row = conn.execute(select(*ITEM_COLUMNS).where(it.c.id == item_id, visible(it))).first()
        return item_from_row(row) if row else None

    def list_items(self, conn: Connection) -> list[Item]:
        return list(self.iter_items(conn))

    def iter_items(
        self, conn: Connection, after_position: int | None = None, limit: int | None = None
    ) -> Iterator[Item]:
        """Items in import order; ``after_position`` and ``limit`` page through them (bounded memory)."""
        it = schema.items
        query = select(*ITEM_COLUMNS).where(visible(it)).order_by(it.c.position)
        if after_position is not None:
            query = query.where(it.c.position > after_position)
        if limit is not None:
            query = query.limit(limit)
        for row in conn.execute(query):
            yield item_from_row(row)

    def iter_item_rows(self, conn: Connection) -> Iterator[ItemRow]:
        """Every item as an ``ItemRow``, in import order (bulk reads: export, statistics)."""
        it = schema.items
        query = select(*ITEM_COLUMNS).where(visible(it)).order_by(it.c.position)
        for row in conn.execute(query):  # the stored columns as they are, but the three item_from_row decodes
            yield ItemRow._make((*row[:11], strings_from_json(row[11]), bool(row[12]), row[13] or ""))

    def count_items(self, conn: Connection) -> int:
        it = schema.items
        return int(conn.execute(select(func.count()).select_from(it).where(visible(it))).scalar_one())

    def flagged_items(self, conn: Connection) -> list[Item]:
        """Items that failed a selection filter or that a lead excluded, in import order (the Project page)."""
        it = schema.items
        query = (
            select(*ITEM_COLUMNS)
            .where(literal_column(f"({schema.FLAGGED_WHERE})"), visible(it))  # its partial index's very text
            .order_by(it.c.position)
        )
        return [item_from_row(r) for r in conn.execute(query)]
