"""Small data for the store's per-table tests (tests/test_store_*.py): items written straight through the
repository, so each test builds only the rows it reads."""

from __future__ import annotations

import os
import re
import socket
import zlib
from collections.abc import Iterable

from sqlalchemy import select

from annotator.domain.model import Item, SenseEntry, Target
from annotator.project import Project
from annotator.store import schema


def item(item_id: str, lemma: str = "bank", sentence: str = "", **fields: object) -> Item:
    """An item whose target is ``lemma`` at the start of its sentence."""
    text = sentence or f"{lemma} of item {item_id}."
    return Item(
        id=item_id,
        sentence=text,
        target=Target(lemma, 0, len(lemma), lemma, "NOUN"),
        synset=f"bn:{zlib.crc32(item_id.encode()) % 10**8:08d}n",
        **fields,  # type: ignore[arg-type]
    )


def add_items(project: Project, items: list[Item], langs: tuple[str, ...] = ("IT", "DE")) -> None:
    """Insert ``items`` in this order (their import order) with pending item-languages of ``langs``."""
    with project.db.write() as conn:
        start = project.repo.next_position(conn)
        project.repo.insert_items(conn, [(it, f"hash-{it.id}", start + n) for n, it in enumerate(items)])
        project.repo.ensure_item_languages(conn, [it.id for it in items], langs)


def begin_staging(project: Project, items: list[Item], langs: tuple[str, ...] = ("IT", "DE")) -> int:
    """An import of this live process that stages ``items`` (hidden) and is still running; returns its id."""
    with project.db.write() as conn:
        import_id = project.repo.begin_import(conn, "staged.jsonl", "cli:test", socket.gethostname(), os.getpid(), 1.0)
        start = project.repo.next_position(conn)
        rows = [(it, f"hash-{it.id}", start + n) for n, it in enumerate(items)]
        project.repo.stage_new_items(conn, import_id, rows, langs)
    return import_id


SENSES = (SenseEntry("bn:00008364n", 1, "a financial institution", 1), SenseEntry("bn:00008363n", 2, "", None))


def table_rows(project: Project, tables: Iterable[str], drawn: re.Pattern[str]) -> dict[str, list[tuple[object, ...]]]:
    """Each table's rows, sorted, with what ``drawn`` matches in their text masked: two runs that store the same work
    (times and random ids aside) give equal answers."""
    with project.db.read() as conn:
        return {
            name: sorted(
                tuple(drawn.sub("<drawn>", v) if isinstance(v, str) else v for v in row)
                for row in conn.execute(select(schema.metadata.tables[name]))
            )
            for name in tables
        }
