"""``Database.background_checkpoints``: inside the block, each write's WAL checkpoint runs on a thread of its own,
started by the first write (not by entering), ended with the block; outside it, checkpoints stay on the writer's
thread at most every ``CHECKPOINT_EVERY_S``."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from annotator.store import database
from annotator.store.database import Database
from annotator.store.engines import sqlite_url

#: Bytes written by one transaction: far more than a new database file holds before a checkpoint copies them.
WRITTEN = 2_000_000


def _checkpoint_threads() -> list[str]:
    return [thread.name for thread in threading.enumerate() if thread.name == "sqlite-checkpoints"]


def _write(db: Database) -> None:
    with db.write() as conn:
        conn.exec_driver_sql("INSERT INTO blobs VALUES (randomblob(?))", (WRITTEN,))


def _grows_past(path: Path, size: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.stat().st_size > size:
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Database:
    monkeypatch.setattr(database, "CHECKPOINT_EVERY_S", 3600.0)  # no checkpoint on the writer's thread in a test
    made = Database(sqlite_url(tmp_path / "db.sqlite"))
    with made.write() as conn:
        conn.exec_driver_sql("CREATE TABLE blobs (data BLOB)")
    yield made
    made.dispose()


def test_outside_the_block_a_write_is_left_in_the_log_until_a_checkpoint_is_due(db: Database, tmp_path: Path) -> None:
    _write(db)
    assert (tmp_path / "db.sqlite").stat().st_size < WRITTEN
    assert Path(f"{tmp_path / 'db.sqlite'}-wal").stat().st_size > WRITTEN
    assert not _checkpoint_threads()


def test_in_the_block_the_thread_starts_with_the_first_write_and_copies_it_into_the_file(
    db: Database, tmp_path: Path
) -> None:
    with db.background_checkpoints():
        assert not _checkpoint_threads()  # entering starts nothing: a job may fork after it
        _write(db)
        assert _checkpoint_threads() == ["sqlite-checkpoints"]
        assert _grows_past(tmp_path / "db.sqlite", WRITTEN)  # copied from the log by that thread
        _write(db)
    assert not _checkpoint_threads()
    with db.read() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM blobs").scalar() == 2


def test_disposing_inside_the_block_ends_the_thread_and_a_nested_block_starts_no_second_one(db: Database) -> None:
    with db.background_checkpoints(), db.background_checkpoints():
        _write(db)
        _write(db)
        assert _checkpoint_threads() == ["sqlite-checkpoints"]
        db.dispose()
        assert not _checkpoint_threads()
