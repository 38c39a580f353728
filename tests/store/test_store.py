"""The store on both engines: SQLite's WAL and busy timeout, one writer at a time, Alembic migrations.

The schema is created and migrated by Alembic on SQLite and PostgreSQL alike; a newer schema is refused; a
database made by annotator 0.1 (schema version 1, no Alembic) still migrates and keeps its data.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from annotator.errors import UserError
from annotator.project import Project
from annotator.store.database import ALEMBIC_MANAGED, Database, StoreConflictError, head_revision

pytestmark = pytest.mark.both_engines
HEAD = head_revision()  # "0003" in this release; every test migrates to whatever the newest is


@pytest.fixture
def url(engine: str, tmp_path: Path) -> str:
    """A fresh database on the test's engine, with no schema yet."""
    import os

    return os.environ["ANNOTATOR_DATABASE_URL"] if engine == "postgresql" else f"sqlite:///{tmp_path / 'db.sqlite'}"


def _drop_tables_of_later_revisions(conn) -> None:  # type: ignore[no-untyped-def]
    """Undo every revision after 0003 (see conftest.LATER_REVISIONS)."""
    from project_helpers import rewind_schema

    rewind_schema(conn, "0003")


def test_sqlite_is_configured_for_a_threaded_server(tmp_path: Path) -> None:
    project = Project.open(tmp_path / "data", create=True)
    with project.db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_the_alembic_revision_is_recorded_and_a_newer_one_refused(url: str) -> None:
    database = Database(url)
    database.create_or_migrate()
    assert database.schema_revision() == HEAD
    with database.read() as conn:  # annotator 0.1 reads this number: it must refuse, not re-create tables
        assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() == str(
            ALEMBIC_MANAGED
        )
    with database.write() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num='9999_from_the_future'")
    with pytest.raises(UserError, match="9999_from_the_future, newer than this annotator"):
        Database(url).create_or_migrate()


def test_write_transactions_queue_behind_each_other(url: str) -> None:
    """The second writer starts only after the first committed, on both engines (BEGIN IMMEDIATE / advisory lock)."""
    first, second = Database(url), Database(url)
    first.create_or_migrate()
    events: list[str] = []
    started = threading.Event()

    def other_writer() -> None:
        started.set()
        with second.write() as conn:
            events.append("second in")
            seen = conn.exec_driver_sql("SELECT value FROM meta WHERE key='a'").scalar()
            events.append(f"second saw {seen}")

    with first.write() as conn:
        conn.exec_driver_sql("INSERT INTO meta (key, value) VALUES ('a', '1')")
        thread = threading.Thread(target=other_writer)
        thread.start()
        started.wait(5)
        time.sleep(0.5)  # the other writer has had every chance to get in
        events.append("first commits")
    thread.join(30)
    assert events == ["first commits", "second in", "second saw 1"]


def test_a_bulk_job_writing_back_to_back_lets_a_waiting_writer_in(tmp_path: Path) -> None:
    """SQLite: a bulk job with nothing to compute between its transactions still leaves the gap
    (``pause_for_other_writers``) in which a waiting writer takes the lock: at the job's next turn, not whenever
    its retry happens to fall between two of the job's transactions."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    bulk, other = Database(url), Database(url)
    bulk.create_or_migrate()
    done: list[int] = []
    other_in_after: list[int] = []
    waiting = threading.Event()

    def other_writer() -> None:
        waiting.set()
        with other.write():
            other_in_after.append(len(done))

    thread = threading.Thread(target=other_writer)
    for n in range(200):
        if other_in_after:
            break
        bulk.pause_for_other_writers()
        with bulk.write() as conn:
            conn.exec_driver_sql(f"INSERT INTO meta (key, value) VALUES ('bulk-{n}', '')")
            if n == 10:
                thread.start()
                waiting.wait(5)
            time.sleep(0.001)  # the lock is held a while, as a real batch's statements hold it
        done.append(n)
    thread.join(30)
    assert other_in_after, "the waiting writer never got in during 200 bulk transactions"
    assert other_in_after[0] <= 12, f"the waiting writer got in only after {other_in_after[0]} bulk transactions"


def test_a_read_transaction_sees_one_snapshot(url: str) -> None:
    """What a page reads in one ``read()`` is consistent, even if a writer commits meanwhile (both engines)."""
    reader, writer = Database(url), Database(url)
    reader.create_or_migrate()
    with reader.read() as conn:
        before = conn.exec_driver_sql("SELECT count(*) FROM meta").scalar()
        with writer.write() as other:
            other.exec_driver_sql("INSERT INTO meta (key, value) VALUES ('b', '2')")
        assert conn.exec_driver_sql("SELECT count(*) FROM meta").scalar() == before
    with reader.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM meta").scalar() == before + 1


def test_write_transactions_are_immediate(tmp_path: Path) -> None:
    """SQLite: a second writer waits for the first instead of failing half-way (BEGIN IMMEDIATE + busy timeout)."""
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
    from project_helpers import SAMPLE_ITEMS

    from annotator.services.importing import import_items

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    with project.db.write() as conn:  # make it what release 0.1.0 wrote: no audit, no Alembic, version 1, no id
        conn.exec_driver_sql("DROP TABLE audit")
        conn.exec_driver_sql("DROP TABLE alembic_version")
        conn.exec_driver_sql("DROP INDEX ux_items_position")
        conn.exec_driver_sql("DELETE FROM meta WHERE key='project_id'")
        _drop_tables_of_later_revisions(conn)
        conn.exec_driver_sql("UPDATE meta SET value='1' WHERE key='schema_version'")
    project.db.dispose()
    reopened = Project.open(project.data_dir)
    assert reopened.db.schema_revision() == HEAD
    with reopened.db.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM audit").scalar() == 0
        assert conn.exec_driver_sql("SELECT count(*) FROM meta WHERE key='project_id'").scalar() == 1
        assert reopened.repo.count_items(conn) == 2
        assert [i.id for i in reopened.repo.list_items(conn)] == [row["id"] for row in SAMPLE_ITEMS]


def test_duplicate_queue_positions_left_by_an_old_release_are_renumbered(project: Project, write_jsonl) -> None:
    """Before revision 0003 concurrent PostgreSQL imports could share positions; the migration renumbers them."""
    from project_helpers import SAMPLE_ITEMS

    from annotator.services.importing import import_items

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    with project.db.write() as conn:
        conn.exec_driver_sql("DROP INDEX ux_items_position")
        conn.exec_driver_sql("UPDATE items SET position = 7")
        _drop_tables_of_later_revisions(conn)
        conn.exec_driver_sql("UPDATE alembic_version SET version_num='0002'")
    project.db.dispose()
    reopened = Project.open(project.data_dir)
    with reopened.db.read() as conn:
        positions = conn.exec_driver_sql("SELECT position FROM items ORDER BY position").scalars().all()
    assert positions == [1, 2]


def test_a_value_the_database_refuses_is_a_clear_error_and_changes_nothing(project: Project, write_jsonl) -> None:
    from project_helpers import SAMPLE_ITEMS, dump

    from annotator.services.importing import import_items

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    before = dump(project)
    refusal = pytest.raises(StoreConflictError, match="conflicts with data already saved")
    with refusal as refused, project.db.write() as conn:
        conn.exec_driver_sql("INSERT INTO meta (key, value) VALUES ('x', 'changed')")
        conn.exec_driver_sql("UPDATE items SET position = 1")  # two items, one queue position
    assert "nothing was changed" in str(refused.value)
    assert dump(project) == before


def test_a_version_2_project_keeps_its_audit_trail_when_alembic_takes_over(project: Project, write_jsonl) -> None:
    from project_helpers import SAMPLE_ITEMS

    from annotator.services.importing import import_items

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    with project.db.write() as conn:  # what the last pre-Alembic release wrote: version 2, audit, no id
        conn.exec_driver_sql("DROP TABLE alembic_version")
        conn.exec_driver_sql("DROP INDEX ux_items_position")
        conn.exec_driver_sql("DELETE FROM meta WHERE key='project_id'")
        _drop_tables_of_later_revisions(conn)
        conn.exec_driver_sql("UPDATE meta SET value='2' WHERE key='schema_version'")
        audited = conn.exec_driver_sql("SELECT count(*) FROM audit").scalar()
    assert audited == 1  # the import
    project.db.dispose()
    reopened = Project.open(project.data_dir)
    assert reopened.db.schema_revision() == HEAD
    with reopened.db.read() as conn:
        assert conn.exec_driver_sql("SELECT action FROM audit").scalars().all() == ["import"]
        assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() == "1000"


def test_a_legacy_number_above_2_without_alembic_is_refused(url: str) -> None:
    database = Database(url)
    with database.write() as conn:
        conn.exec_driver_sql("CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)")
        conn.exec_driver_sql("INSERT INTO meta (key, value) VALUES ('schema_version', '3')")
    with pytest.raises(UserError, match="schema version 3, newer than this annotator"):
        database.create_or_migrate()
    with database.read() as conn:  # refused before anything was created
        from sqlalchemy import inspect

        assert inspect(conn).get_table_names() == ["meta"]


def test_the_migrations_build_exactly_the_tables_schema_py_describes(url: str) -> None:
    """A table or column added to schema.py without an Alembic revision (or the reverse) fails here."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from annotator.store import schema
    from annotator.store.schema_migrations import migrate

    database = Database(url)
    with database.write() as conn:  # every revision replayed (a new database is otherwise created in one step)
        migrate(conn, url)
    with database.read() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    assert differences == []
