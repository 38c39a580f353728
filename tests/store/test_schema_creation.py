"""A new database gets the head schema in one step (``create_schema``): the same schema, to the column, index,
constraint and stored row, as replaying every Alembic revision (``migrate``), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect

from annotator.store.database import Database, head_revision, sqlite_url
from annotator.store.schema_migrations import create_schema, migrate

pytestmark = pytest.mark.both_engines


def _reset(database: Database) -> None:
    """An empty database again (PostgreSQL: one database per test, so the second schema is built in its place)."""
    with database.write() as conn:
        if database.is_sqlite:
            for name in inspect(conn).get_table_names():
                conn.exec_driver_sql(f'DROP TABLE "{name}"')
        else:
            conn.exec_driver_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public")


def _plain(value: Any) -> str:
    """A reflected value as text (a partial index's condition as its SQL)."""
    return json.dumps(value, default=str, sort_keys=True)


def _described(database: Database) -> dict[str, Any]:
    """Everything the engine says about the schema, and every row stored in it."""
    with database.read() as conn:
        found = inspect(conn)
        tables: dict[str, Any] = {}
        for name in sorted(found.get_table_names()):
            tables[name] = {
                "columns": [_plain(column) for column in found.get_columns(name)],
                "primary key": _plain(found.get_pk_constraint(name)),
                "foreign keys": sorted(map(_plain, found.get_foreign_keys(name))),
                "indexes": sorted(map(_plain, found.get_indexes(name))),
                "unique": sorted(map(_plain, found.get_unique_constraints(name))),
                "checks": sorted(map(_plain, found.get_check_constraints(name))),
                "rows": sorted(map(repr, conn.exec_driver_sql(f'SELECT * FROM "{name}"'))),
            }
        described: dict[str, Any] = {"tables": tables}
        if database.is_sqlite:  # the statements SQLite keeps, spaces and quoting aside
            rows = conn.exec_driver_sql("SELECT type, name, tbl_name, sql FROM sqlite_master")
            described["sqlite_master"] = sorted(
                (kind, name, table, " ".join((sql or "").replace('"', "").split())) for kind, name, table, sql in rows
            )
        else:
            described["sequences"] = sorted(found.get_sequence_names())
        return described


@pytest.fixture
def database(engine: str, tmp_path: Path) -> Database:
    url = os.environ["ANNOTATOR_DATABASE_URL"] if engine == "postgresql" else sqlite_url(tmp_path / "db.sqlite")
    return Database(url)


def test_the_schema_created_in_one_step_is_the_migrated_one(database: Database) -> None:
    with database.write() as conn:
        migrate(conn, database.url)
    migrated = _described(database)
    _reset(database)
    assert _described(database)["tables"] == {}
    with database.write() as conn:
        create_schema(conn)
    created = _described(database)
    assert len(created["tables"]) > 20
    assert created["tables"]["alembic_version"]["rows"] == [repr((head_revision(),))]
    assert created == migrated


def test_a_new_database_is_created_without_alembic_and_an_older_one_still_migrates(database: Database) -> None:
    script = (
        "import sys\n"
        "from annotator.store.database import Database\n"
        f"db = Database({database.url!r})\n"
        "db.create_or_migrate()\n"
        "print(db.schema_revision(), 'alembic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [head_revision(), "False"]
    from project_helpers import rewind_schema

    with database.write() as conn:  # as an older release left it: Alembic brings it to the head
        rewind_schema(conn, "0013_suggestions")
    assert database.schema_revision() == "0013_suggestions"
    database.create_or_migrate()
    with database.read() as conn:
        assert inspect(conn).has_table("provenance_sources")
    assert database.schema_revision() == head_revision()


def test_a_process_on_sqlite_never_loads_the_postgresql_dialect(tmp_path: Path) -> None:
    """The partial indexes get PostgreSQL's condition only when a PostgreSQL engine is made (the test above checks
    they are partial there too): a SQLite process creating, writing and reading loads none of its drivers."""
    script = (
        "import sys\n"
        "from annotator.store.database import Database\n"
        f"db = Database({sqlite_url(tmp_path / 'new.sqlite')!r})\n"
        "db.create_or_migrate()\n"
        "with db.read() as conn:\n"
        "    indexes = conn.exec_driver_sql(\"SELECT count(*) FROM sqlite_master WHERE sql LIKE '%WHERE%'\").scalar()\n"
        "print(indexes, sorted(n for n in sys.modules if n.startswith('sqlalchemy.dialects.postgresql')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["2", "[]"]
