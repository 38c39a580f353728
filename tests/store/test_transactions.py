"""Issue 14 item 2: imports write in short transactions yet stay all-or-nothing; a busy database is a "try again"
user error; read-only commands never take the write lock."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS, dump

from annotator.domain.model import Role, Side
from annotator.errors import DatabaseBusyError, UserError
from annotator.project import DATABASE_FILE, Project
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.importing import (
    INSERT_CHUNK,
    ImportInProgressError,
    clean_interrupted_imports,
    import_items,
)
from annotator.store.database import BUSY_TIMEOUT_ENV

#: Rows of the "long" import run in another process: slow only by its size.
LONG_IMPORT_ROWS = 40_000


@contextmanager
def write_lock_held(project: Project) -> Iterator[None]:
    """Another process's long write transaction, as SQLite sees it."""
    other = sqlite3.connect(project.data_dir / DATABASE_FILE, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta (key, value) VALUES ('held-by-test', '1')")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def cli(data: Path, *args: str, env: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "annotator.cli", "--data", str(data), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def start_cli(data: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "annotator.cli", "--data", str(data), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def staged_rows(project: Project) -> int:
    """Rows written to the file by an import that has not committed yet (invisible to the repository)."""
    with project.db.read() as conn:
        return int(
            conn.exec_driver_sql("SELECT count(*) FROM items WHERE import_id IN (SELECT id FROM imports)").scalar()
        )


def wait_for_staging(project: Project, process: subprocess.Popen, at_least: int) -> None:
    deadline = time.monotonic() + 300
    while staged_rows(project) < at_least:
        assert process.poll() is None, f"the import ended before staging {at_least} rows: {process.communicate()}"
        assert time.monotonic() < deadline, "the import never started staging"
        time.sleep(0.01)


def long_item_file(tmp_path: Path) -> Path:
    path = tmp_path / "long.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for n in range(LONG_IMPORT_ROWS):
            handle.write(json.dumps(dict(SAMPLE_ITEMS[n % 2], id=f"long-{n:06d}")) + "\n")
    return path


@pytest.fixture
def started(project: Project, write_jsonl) -> Project:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    return project


def test_a_busy_database_is_a_try_again_user_error_and_changes_nothing(
    started: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    lead = add_user(started, "lena", Role.LEAD, (), "lead-password")
    monkeypatch.setenv(BUSY_TIMEOUT_ENV, "300")
    impatient = Project.open(started.data_dir)  # opening reads the schema version only: no lock needed
    before = dump(started)
    with write_lock_held(started):
        with pytest.raises(DatabaseBusyError) as caught:
            CurationService(impatient, lead).add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
        assert isinstance(caught.value, UserError)
        assert str(caught.value) == (
            "The database is busy (another change held it for more than 0.3 s); nothing was changed. "
            "Try again in a moment."
        )
        with impatient.db.read() as conn:  # readers are never blocked by the writer
            assert impatient.repo.count_items(conn) == 2
    assert dump(started) == before
    saved = CurationService(impatient, lead).add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    assert [c.text for c in saved.good] == ["goccio"] and saved.version == 1


def test_read_only_commands_never_wait_for_the_write_lock(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    assert cli(data, "demo").returncode == 0
    project = Project.open(data)
    before = dump(project)
    impatient = {BUSY_TIMEOUT_ENV: "500"}
    with write_lock_held(project):
        for command in (
            ["info"],
            ["stats"],
            ["export", "--out", str(tmp_path / "exports"), "--allow-empty"],
            ["sheet", "export", "--lang", "IT", "--out", str(tmp_path / "sheets")],
            ["users", "list"],
        ):
            result = cli(data, *command, env=impatient)
            assert result.returncode == 0, (command, result.stderr)
            assert "Traceback" not in result.stderr
        refused = cli(
            data,
            "users",
            "add",
            "newbie",
            "--languages",
            "IT",
            "--password-stdin",
            env=impatient,
            stdin="a-long-password\n",
        )
    assert refused.returncode == 2
    assert "annotator users: error: The database is busy" in refused.stderr and "Try again" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert dump(project) == before
    assert list((tmp_path / "exports").iterdir()) and list((tmp_path / "sheets").iterdir())


def test_an_edit_is_saved_while_a_long_import_runs_in_another_process(
    started: Project, tmp_path: Path, write_jsonl
) -> None:
    lead = add_user(started, "lena", Role.LEAD, (), "lead-password")
    importer = start_cli(started.data_dir, "import", str(long_item_file(tmp_path)))
    try:
        wait_for_staging(started, importer, 1)
        with started.db.read() as conn:  # another connection never sees a half import
            assert started.repo.count_items(conn) == 2
            assert sum(started.repo.status_counts(conn)["IT"].values()) == 2
        saved = CurationService(started, lead).add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
        assert staged_rows(started) > 0  # the edit was saved while the import was still staging
        with pytest.raises(ImportInProgressError, match="Another import is running"):
            import_items(started, write_jsonl("second.jsonl", [dict(SAMPLE_ITEMS[0], id="second")]))
        out, err = importer.communicate(timeout=600)
    finally:
        importer.kill()
    assert importer.returncode == 0, err
    assert "Traceback" not in err and f"{LONG_IMPORT_ROWS} added" in out
    with started.db.read() as conn:
        assert started.repo.count_items(conn) == 2 + LONG_IMPORT_ROWS
        assert started.repo.get_item_language(conn, "shot-whiskey", "IT") == saved
        assert started.repo.status_counts(conn)["IT"]["pending"] == 1 + LONG_IMPORT_ROWS
        assert conn.exec_driver_sql("SELECT count(*) FROM imports").scalar() == 0


def test_a_killed_import_changes_nothing_and_the_rerun_imports_everything(started: Project, tmp_path: Path) -> None:
    before = dump(started)
    path = long_item_file(tmp_path)
    importer = start_cli(started.data_dir, "import", str(path))
    try:
        wait_for_staging(started, importer, 3000)
    finally:
        importer.kill()
        importer.wait(timeout=60)
    assert importer.returncode == -9
    assert staged_rows(started) >= 3000  # its batches were committed, hidden
    with started.db.read() as conn:
        assert started.repo.count_items(conn) == 2
        assert [i.id for i in started.repo.list_items(conn)] == ["shot-whiskey", "head-stream"]
        assert len(list(started.repo.iter_item_languages(conn))) == 10
    assert clean_interrupted_imports(started) >= 3000  # what the next import does first
    assert dump(started) == before
    report = import_items(started, path)
    assert (report.added, report.cleaned) == (LONG_IMPORT_ROWS, 0)
    with started.db.read() as conn:
        assert started.repo.count_items(conn) == 2 + LONG_IMPORT_ROWS


def test_the_next_import_removes_what_a_dead_import_staged(started: Project, write_jsonl) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    from annotator.data_import.items import content_hash, parse_item_file

    leftover = parse_item_file(write_jsonl("left.jsonl", [dict(SAMPLE_ITEMS[0], id=f"left-{n}") for n in range(5)]))
    with started.db.write() as conn:
        import_id = started.repo.begin_import(conn, "left.jsonl", "cli:someone", socket.gethostname(), dead.pid, 0.0)
        started.repo.stage_new_items(
            conn, import_id, [(item, content_hash(item), 100 + n) for n, item in enumerate(leftover.items)], ("IT",)
        )
    report = import_items(started, write_jsonl("new.jsonl", [dict(SAMPLE_ITEMS[1], id="new")]))
    assert (report.added, report.cleaned) == (1, 5)
    assert "removed 5 hidden row(s) of an interrupted earlier import" in report.summary()
    with started.db.read() as conn:
        assert sorted(i.id for i in started.repo.list_items(conn)) == ["head-stream", "new", "shot-whiskey"]
        assert conn.exec_driver_sql("SELECT count(*) FROM items").scalar() == 3
        assert conn.exec_driver_sql("SELECT count(*) FROM item_languages").scalar() == 15


def test_every_write_transaction_is_reported_to_the_recorder(started: Project, write_jsonl) -> None:
    durations: list[float] = []
    started.db.write_recorder = durations.append
    import_items(started, write_jsonl("more.jsonl", [dict(SAMPLE_ITEMS[0], id=f"more-{n}") for n in range(2500)]))
    # begin, one transaction per staging batch, commit; each one short and measured
    assert len(durations) == 1 + -(-2500 // INSERT_CHUNK) + 1 and all(d > 0 for d in durations)
