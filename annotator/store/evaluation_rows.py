"""What scoring the live curation reads: items and their item-languages as raw rows of one statement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, null, select, union_all

from annotator.store import schema
from annotator.store.item_languages import CURRENT_BAD, CURRENT_GOOD
from annotator.store.rows import visible


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


class EvaluationRowRecords:
    """The rows an evaluation of the live curation scores; part of ``Repository``."""

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
            CURRENT_GOOD.label("good"),
            CURRENT_BAD.label("bad"),
        ).where(
            il.c.lang.in_(list(langs)),
            visible(il),
            il.c.item_id.in_(select(it.c.id).where(visible(it), it.c.excluded.is_(False))),
        )
        # exact tuples, each ``Row`` dropped as it is read: the collector stops tracking them, where a large project's
        # rows fetched at once reached its oldest generation and set off passes over the whole heap
        return [tuple(row) for row in conn.execute(union_all(items, item_languages))]
