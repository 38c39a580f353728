"""How the ``annotator`` program ends (``cli.console``): the command's exit code, its databases closed with their
write-ahead log checkpointed into the file, what is alive frozen for the interpreter's exit, exit handlers run."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Runs ``console`` as the program does, with an exit handler that reports whether the heap was frozen by then.
PROGRAM = """
import atexit, gc, sys
atexit.register(lambda: print("exit handler: frozen", gc.get_freeze_count() > 0, flush=True))
sys.argv = ["annotator", *sys.argv[1:]]
from annotator.cli import console
console()
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_a_command_that_wrote_leaves_its_database_closed_and_its_output_whole(tmp_path: Path) -> None:
    data = tmp_path / "project"
    done = _run("--data", str(data), "init", "--name", "closing", "--languages", "DE,IT")
    assert done.returncode == 0, done.stderr
    assert "Created project 'closing'" in done.stdout
    assert "exit handler: frozen True" in done.stdout  # frozen before the exit handlers, which still ran
    database = data / "annotator.sqlite"
    assert not Path(f"{database}-wal").exists()  # the last connection closed: the log is in the file
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'project_id'").fetchone() == (1,)


def test_a_refused_command_exits_with_its_code_and_message(tmp_path: Path) -> None:
    done = _run("--data", str(tmp_path / "nothing-here"), "info")
    assert done.returncode == 2
    assert "No project in" in done.stderr
    assert "exit handler: frozen True" in done.stdout


def test_a_command_without_a_database_ends_the_same_way() -> None:
    done = _run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "annotator"
