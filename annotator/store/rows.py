"""What every table module of the store shares: how values are stored as text (JSON, timestamps), which rows a
reader may see while an import stages, and how many ids one ``IN (...)`` list holds."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnDefault, Connection, CursorResult, Table, exists, select

from annotator.store import schema

#: Ids per ``IN (...)`` list: well under SQLite's and PostgreSQL's bound-parameter limits.
IN_CHUNK = 500


#: One encoder for every stored value: ``json.dumps`` with options builds a new encoder on each call.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def dumps(value: Any) -> str:
    """JSON as stored: compact, keys sorted, non-ASCII kept (the same value is always the same text)."""
    return _JSON.encode(value)


def strings_from_json(raw: str) -> tuple[str, ...]:
    """A stored list of strings; the empty list (most rows' overlaps and filter results) is not decoded."""
    return () if raw == "[]" else tuple(json.loads(raw))


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


def inserted_id(result: CursorResult[Any]) -> int:
    """The id the database gave the row just inserted (one row, one integer key)."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the insert returned no primary key")
    return int(key[0])


_NAMED_PARAMETER = re.compile(r":(\w+)")
#: What ``execute_many``'s SQL may not hold: a literal or a cast (``'10:30'``, ``x::text``) would be taken for a
#: placeholder, and a ``%`` means something else to psycopg; the statements it runs name columns and values only.
_NOT_PLAIN = re.compile(r"['%]|::")


def insert_sql(table: Table, names: Sequence[str]) -> str:
    """``INSERT`` of these columns with ``:name`` placeholders, for ``execute_many``."""
    columns = ", ".join(f'"{name}"' for name in names)
    return f'INSERT INTO "{table.name}" ({columns}) VALUES ({", ".join(":" + name for name in names)})'


def execute_many(conn: Connection, sql: str, rows: Sequence[dict[str, Any]]) -> int:
    """Run one statement (``:name`` placeholders) for many rows through the driver's own ``executemany``; the rows
    it changed.

    Why: SQLAlchemy processes every parameter set of a compiled statement again in Python; bulk jobs write hundreds
    of thousands of rows, and the driver alone is several times faster. Values must already be what the driver takes
    (text, numbers, booleans, None). ``sql`` holds quoted identifiers and ``:name`` placeholders only (no literal,
    cast or ``%``): it is refused otherwise, since rewriting it for psycopg would change its meaning.
    """
    if _NOT_PLAIN.search(sql):
        raise ValueError(f"execute_many takes identifiers and :name placeholders only, not literals: {sql!r}")
    if not rows:
        return 0
    if conn.dialect.paramstyle == "pyformat":  # psycopg
        sql = _NAMED_PARAMETER.sub(r"%(\1)s", sql)
    return int(conn.exec_driver_sql(sql, rows).rowcount)  # type: ignore[arg-type]


def insert_tuples(conn: Connection, table: Table, names: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """``INSERT`` of the columns ``names`` for many rows given as tuples in that order, through the driver's own
    ``executemany`` (as ``execute_many``): a bulk job then builds no dictionary per row. Values as ``execute_many``
    takes them."""
    if not rows:
        return
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    columns = ", ".join(f'"{name}"' for name in names)
    sql = f'INSERT INTO "{table.name}" ({columns}) VALUES ({", ".join([mark] * len(names))})'
    conn.exec_driver_sql(sql, list(rows))  # type: ignore[arg-type]


def insert_many(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """``table.insert()`` of many rows (each with the first row's keys) through ``execute_many``: a column the rows
    leave out takes its scalar default, as SQLAlchemy fills it in, or the database's (NULL, a serial id)."""
    if not rows:
        return
    defaults = {  # plain str names: SQLAlchemy's are a str subclass the GC tracks, as it then does each row's dict
        str(column.name): column.default.arg
        for column in table.columns
        if column.name not in rows[0] and isinstance(column.default, ColumnDefault) and column.default.is_scalar
    }
    names = [*rows[0], *defaults]
    execute_many(conn, insert_sql(table, names), [{**defaults, **row} for row in rows] if defaults else rows)
