"""Issue 14 item 11 (command line and files): user-supplied text reaches the terminal with control, bidi and
invisible characters escaped; the database (and its -wal/-shm) is created readable by its owner only."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.domain.unicode_rules import escape_controls
from annotator.progress import TerminalProgress
from annotator.project import DATABASE_FILE, Project
from annotator.terminal import SafeStream

HOSTILE = "deepl\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil\u2066\u200b\ud800"
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u200b", "\ud800")


def test_escape_controls_makes_every_control_visible_and_keeps_text() -> None:
    assert escape_controls(HOSTILE) == "deepl\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eevil\\u2066\\u200b\\ud800"
    assert escape_controls("a\tb\nc\r\u2028\U000e0041") == "a\\x09b\nc\\x0d\\u2028\\U000e0041"
    plain = "Schlückchen 小杯 держит пекарню — naïve\n"
    assert escape_controls(plain) == plain


def test_a_progress_bar_redraws_with_a_raw_carriage_return_but_escapes_its_text() -> None:
    sink = io.StringIO()
    bar = TerminalProgress("importing \x1b[31m", stream=SafeStream(sink), interactive=True)  # type: ignore[arg-type]
    bar(1, 1, f"item {HOSTILE}")
    out = sink.getvalue()
    assert out.startswith("\rimporting \\x1b[31m [") and out.endswith("\n")
    assert not any(char in out for char in RAW_CONTROLS)


def test_progress_into_a_log_file_is_plain_lines_without_carriage_returns() -> None:
    """Not a terminal (a log file, CI): one plain line per report, no redraws, the end always written."""
    sink = io.StringIO()
    bar = TerminalProgress("exporting", stream=SafeStream(sink), plain_every_s=0.0)  # type: ignore[arg-type]
    for done in range(1, 4):
        bar(done, 3, "items")
    bar(3, 3, "items")  # a repeated final report adds nothing
    lines = sink.getvalue().splitlines()
    assert "\r" not in sink.getvalue()
    assert lines == [f"exporting [{'#' * (10 * n)}{'-' * (30 - 10 * n)}] {n}/3 items" for n in range(1, 4)]


def test_progress_on_a_slow_log_is_thinned_but_keeps_its_last_line() -> None:
    sink = io.StringIO()
    bar = TerminalProgress("importing", stream=sink, plain_every_s=3600.0)
    for done in range(1, 101):
        bar(done, 100)
    lines = sink.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].endswith("1/100") and lines[-1].endswith("100/100")


def test_a_command_error_naming_a_hostile_path_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], project: Project
) -> None:
    hostile = tmp_path / "sheet\x1b[2J\x07\u202e.xlsx"
    assert main(["--data", str(project.data_dir), "sheet", "import", str(hostile)]) == 2
    captured = capsys.readouterr()
    assert "sheet\\x1b[2J\\x07\\u202e.xlsx" in captured.err and "no such file" in captured.err
    assert not any(char in captured.err + captured.out for char in RAW_CONTROLS)


def test_a_hostile_system_name_never_reaches_the_terminal_raw(tmp_path: Path) -> None:
    """The issue's case, end to end in a real process: a system name with ESC/BEL/CSI/bidi in a translations file."""
    data = tmp_path / "data"
    create_demo(str(data), quiet=True)
    export = export_dataset(Project.open(data), tmp_path / "exports", ExportOptions(include_incomplete=True))
    translations = tmp_path / "translations.jsonl"
    system = HOSTILE.replace("\ud800", "")  # lone surrogates in JSONL are the item readers' concern
    line = {"id": "shot-whiskey", "lang": "IT", "system": system, "translation": "Ha versato un goccio di whisky."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PYTHONIOENCODING": "utf-8"}
    command = [sys.executable, "-m", "annotator.cli", "evaluate", str(export.path / "dataset.jsonl"), str(translations)]
    process = subprocess.run(command, capture_output=True, env=env, cwd=tmp_path, timeout=120, check=False)
    output = (process.stdout + process.stderr).decode("utf-8", errors="surrogateescape")
    assert "Traceback" not in output
    assert "\\x1b]0;owned\\x07" in output  # shown, escaped, wherever the command names the system
    assert not any(char in output for char in RAW_CONTROLS)


@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask-022", "umask-000"])
def test_the_database_and_its_wal_and_shm_are_created_owner_only(
    tmp_path: Path, umask: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)  # the SQLite file in the data folder
    old = os.umask(umask)
    try:
        project = Project.open(tmp_path / "data", create=True)
        with project.db.write() as conn:  # a write: the WAL and shared-memory files now exist
            project.repo.set_meta(conn, "probe", {"x": 1})
        files = {
            name: tmp_path / "data" / name for name in (DATABASE_FILE, f"{DATABASE_FILE}-wal", f"{DATABASE_FILE}-shm")
        }
        assert all(path.exists() for path in files.values())
        assert {name: stat.S_IMODE(path.stat().st_mode) for name, path in files.items()} == dict.fromkeys(files, 0o600)
        project.db.dispose()
    finally:
        os.umask(old)
