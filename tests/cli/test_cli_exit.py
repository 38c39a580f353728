"""How the ``annotator`` program ends (``cli.console``): the command's exit code, its databases closed with their
write-ahead log checkpointed into the file, what is alive frozen for the interpreter's exit, exit handlers run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from program_run import printed, run_program


def test_a_command_that_wrote_leaves_its_database_closed_and_its_output_whole(tmp_path: Path) -> None:
    data = tmp_path / "project"
    done = run_program("--data", str(data), "init", "--name", "closing", "--languages", "DE,IT")
    assert done.returncode == 0, done.stderr
    out, _forked, frozen = printed(done)
    assert out == f"Created project 'closing' in {data}\n"
    assert frozen  # frozen before the exit handlers, which still ran
    database = data / "annotator.sqlite"
    assert not Path(f"{database}-wal").exists()  # the last connection closed: the log is in the file
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'project_id'").fetchone() == (1,)


def test_a_refused_command_exits_with_its_code_and_message(tmp_path: Path) -> None:
    done = run_program("--data", str(tmp_path / "nothing-here"), "info")
    assert done.returncode == 2
    assert "No project in" in done.stderr
    assert printed(done).frozen


def test_a_command_without_a_database_ends_the_same_way() -> None:
    done = run_program("--version")
    assert done.returncode == 0, done.stderr
    assert printed(done).out.split()[0] == "annotator"
