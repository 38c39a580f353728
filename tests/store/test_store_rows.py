"""``store/rows.py``: the stored text of values and timestamps, and which rows readers see while an import stages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from store_rows import add_items, begin_staging, item

from annotator.clock import utc_now
from annotator.project import Project
from annotator.store import schema
from annotator.store.rows import (
    dumps,
    execute_many,
    insert_many,
    insert_sql,
    inserted_id,
    not_staged,
    visible,
)

pytestmark = pytest.mark.both_engines


def test_equal_values_are_stored_as_the_same_compact_text() -> None:
    assert dumps({"b": 1, "a": ["x", None]}) == dumps({"a": ["x", None], "b": 1}) == '{"a":["x",null],"b":1}'
    assert dumps(["città", "銀行"]) == '["città","銀行"]'  # non-ASCII kept as it is, not \\u-escaped


def test_timestamps_are_utc_with_microseconds_and_sort_as_text() -> None:
    first, second = utc_now(), utc_now()
    parsed = datetime.fromisoformat(first)
    assert parsed.tzinfo is not None and parsed.utcoffset() == UTC.utcoffset(None)
    assert len(first.split(".")[1].split("+")[0]) == 6
    assert first <= second


def test_rows_of_a_staging_import_are_not_visible_until_it_ends(project: Project) -> None:
    add_items(project, [item("kept")])
    import_id = begin_staging(project, [item("staged")])
    it, a = schema.items, schema.assignments
    with project.db.write() as conn:
        for item_id in ("kept", "staged"):
            row = {"item_id": item_id, "lang": "IT", "state": "open", "assigned_by": "lena", "assigned_at": "t"}
            conn.execute(a.insert().values(**row))
    with project.db.read() as conn:
        assert set(conn.execute(select(it.c.id).where(visible(it))).scalars()) == {"kept"}
        assert set(conn.execute(select(a.c.item_id).where(not_staged(a.c.item_id))).scalars()) == {"kept"}
        assert set(conn.execute(select(it.c.id)).scalars()) == {"kept", "staged"}  # the rows are there, hidden
    with project.db.write() as conn:
        assert project.repo.end_import(conn, import_id)
    with project.db.read() as conn:
        assert set(conn.execute(select(it.c.id).where(visible(it))).scalars()) == {"kept", "staged"}
        assert set(conn.execute(select(a.c.item_id).where(not_staged(a.c.item_id))).scalars()) == {"kept", "staged"}


def test_inserted_id_is_the_key_the_database_gave(project: Project) -> None:
    audit = schema.audit
    with project.db.write() as conn:
        first = inserted_id(conn.execute(audit.insert().values(user="u", at="t", action="a", detail="{}")))
        second = inserted_id(conn.execute(audit.insert().values(user="u", at="t", action="b", detail="{}")))
        actions = dict(conn.execute(select(audit.c.id, audit.c.action)).all())
    assert second > first
    assert actions[first] == "a" and actions[second] == "b"


def test_execute_many_writes_through_the_driver_and_counts_only_the_rows_it_changed(project: Project) -> None:
    """The bulk path: ``:name`` placeholders on both drivers, a quoted reserved word (``user``), text and numbers
    stored as given, and an update's count leaving out a row its condition does not match (a stale version)."""
    rows = [
        {"item_id": f"i{n}", "lang": "IT", "user": "lena", "at": "t", "action": "bulk", "detail": "{}", "version": n}
        for n in range(1_200)
    ]
    names = ("item_id", "lang", "user", "at", "action", "detail", "version")
    with project.db.write() as conn:
        assert execute_many(conn, insert_sql(schema.history, names), rows) == 1_200
        assert execute_many(conn, insert_sql(schema.history, names), []) == 0
        changed = execute_many(
            conn,
            'UPDATE "history" SET "detail" = :detail WHERE "item_id" = :item_id AND "version" = :version',
            [{"detail": '{"n":1}', "item_id": "i1", "version": 1}, {"detail": "x", "item_id": "i2", "version": 99}],
        )
    assert changed == 1
    h = schema.history
    with project.db.read() as conn:
        stored = {r.item_id: (r.user, r.version, r.detail) for r in conn.execute(select(h).where(h.c.action == "bulk"))}
    assert len(stored) == 1_200
    assert stored["i1"] == ("lena", 1, '{"n":1}') and stored["i2"] == ("lena", 2, "{}")


@pytest.mark.parametrize(
    "sql",
    [
        """UPDATE "history" SET "detail" = '10:30' WHERE "item_id" = :item_id""",
        'UPDATE "history" SET "version" = :version::integer WHERE "item_id" = :item_id',
        """UPDATE "history" SET "detail" = :detail WHERE "action" LIKE 'bulk%'""",
    ],
)
def test_execute_many_refuses_sql_its_placeholder_rewrite_would_change(project: Project, sql: str) -> None:
    """A literal's colon, a PostgreSQL cast or a ``%`` would be rewritten or misread on psycopg: refused on both
    engines before anything runs, so a statement that works on SQLite cannot do something else on PostgreSQL."""
    add_items(project, [item("kept")])
    h = schema.history
    with project.db.write() as conn:
        conn.execute(h.insert().values(item_id="kept", lang="IT", user="u", at="t", action="bulk", version=0))
    with pytest.raises(ValueError, match="placeholders only"), project.db.write() as conn:
        execute_many(conn, sql, [{"item_id": "kept", "detail": "x", "version": 5}])
    with project.db.read() as conn:
        stored = conn.execute(select(h.c.detail, h.c.version).where(h.c.action == "bulk")).one()
    assert tuple(stored) == ("{}", 0)  # the row as it was


def test_insert_many_gives_a_left_out_column_its_default(project: Project) -> None:
    """As ``table.insert()`` would: the schema's scalar default (``detail`` '{}'), a serial id, nothing else."""
    rows = [{"item_id": "a", "lang": "IT", "user": "lena", "at": "t", "action": "many", "version": 1}] * 3
    with project.db.write() as conn:
        insert_many(conn, schema.history, rows)
        insert_many(conn, schema.history, [])
    h = schema.history
    with project.db.read() as conn:
        stored = conn.execute(select(h.c.id, h.c.detail).where(h.c.action == "many")).all()
    assert [detail for _id, detail in stored] == ["{}"] * 3
    assert len({row_id for row_id, _detail in stored}) == 3
