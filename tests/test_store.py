"""The SQLite store: WAL and busy timeout are on, the schema is versioned, a newer schema is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.errors import UserError
from annotator.project import Project
from annotator.store import schema
from annotator.store.database import Database


def test_sqlite_is_configured_for_a_threaded_server(project: Project) -> None:
    with project.db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_schema_version_is_recorded_and_a_newer_one_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    database = Database(url)
    database.create_or_migrate()
    with database.read() as conn:
        assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() == str(
            schema.SCHEMA_VERSION
        )
    with database.write() as conn:
        conn.exec_driver_sql("UPDATE meta SET value='999' WHERE key='schema_version'")
    with pytest.raises(UserError, match="newer than this annotator"):
        Database(url).create_or_migrate()


def test_write_transactions_are_immediate(tmp_path: Path) -> None:
    """A second writer waits for the first instead of failing half-way (BEGIN IMMEDIATE + busy timeout)."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    first, second = Database(url), Database(url)
    first.create_or_migrate()
    with first.write() as conn:
        assert conn.connection.dbapi_connection.in_transaction
        conn.exec_driver_sql("INSERT INTO meta (key, value) VALUES ('a', '1')")
        with second.read() as other:  # a reader is never blocked and sees only committed data
            assert other.exec_driver_sql("SELECT count(*) FROM meta WHERE key='a'").scalar() == 0
    with second.read() as other:
        assert other.exec_driver_sql("SELECT count(*) FROM meta WHERE key='a'").scalar() == 1


def test_a_version_1_project_is_migrated_and_keeps_its_data(project: Project, write_jsonl) -> None:
    from conftest import SAMPLE_ITEMS

    from annotator.services.importing import import_items

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    with project.db.write() as conn:  # make it what release 0.1.0 wrote: no audit table, version 1
        conn.exec_driver_sql("DROP TABLE audit")
        conn.exec_driver_sql("UPDATE meta SET value='1' WHERE key='schema_version'")
    reopened = Project.open(project.data_dir)
    with reopened.db.read() as conn:
        version = conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar()
        assert version == str(schema.SCHEMA_VERSION)
        assert conn.exec_driver_sql("SELECT count(*) FROM audit").scalar() == 0
        assert reopened.repo.count_items(conn) == 2
