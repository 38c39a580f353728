"""Every writer safe: the atomic writer refuses what it must not replace, never shares a temporary, writes 0600; a
refused command leaves its ``--out`` as it found it; the smaller points (an audited command-line reset, ids that
hold a comma)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS
from sqlalchemy import select

from annotator.atomic_files import OutputRefused, atomic_file, sweep_leftovers, write_text_atomic
from annotator.cli import main
from annotator.project import Project
from annotator.services.importing import import_items
from annotator.store import schema

ROOT = Path(__file__).resolve().parents[2]


def state(path: Path) -> tuple:
    """What a refusal must leave as it was: the kind and mode of ``path`` and, for a folder, every entry's name,
    mode and bytes (for a file its bytes)."""
    if not os.path.lexists(path):
        return ("absent",)
    found = os.lstat(path)
    if stat.S_ISDIR(found.st_mode):
        entries = sorted(
            (str(p.relative_to(path)), stat.S_IMODE(p.lstat().st_mode), p.read_bytes() if p.is_file() else b"")
            for p in path.rglob("*")
        )
        return ("folder", stat.S_IMODE(found.st_mode), entries)
    if stat.S_ISREG(found.st_mode):
        return ("file", stat.S_IMODE(found.st_mode), path.read_bytes())
    return (stat.S_IFMT(found.st_mode), os.readlink(path) if stat.S_ISLNK(found.st_mode) else "")


# --- the atomic writer ------------------------------------------------------------------------------------------


def test_the_writer_refuses_a_folder_a_pipe_and_a_link_to_a_device_before_writing(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    null = tmp_path / "null"
    null.symlink_to("/dev/null")
    for target, kind in ((folder, "a folder"), (pipe, "a named pipe"), (null, "a device (through a link)")):
        before = state(target)
        with pytest.raises(OutputRefused, match=re.escape(f"is {kind}")), atomic_file(target) as temporary:
            temporary.write_text("never")
        assert state(target) == before
    with pytest.raises(OutputRefused, match="names no file"):
        write_text_atomic("", "x")  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "null", "pipe"]  # no temporary left


def test_two_writers_of_one_target_never_share_a_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    with atomic_file(target) as first, atomic_file(target) as second:
        assert first != second and first.parent == second.parent == tmp_path
        assert stat.S_IMODE(first.stat().st_mode) == stat.S_IMODE(second.stat().st_mode) == 0o600
        first.write_text("first\n")
        second.write_text("second\n")
    assert target.read_text() == "first\n"  # the outer block ends last: its file is the one in place
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_link_to_a_regular_file_is_replaced_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    write_text_atomic(link, "new\n")
    assert victim.read_text() == "keep me\n"
    assert not link.is_symlink() and link.read_text() == "new\n"


def test_leftovers_are_swept_only_when_provably_ours(tmp_path: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(ended.stdout)
    ours = tmp_path / f".hf.partial-{dead}-abcdefgh"
    ours.mkdir()
    (ours / "data.parquet").write_bytes(b"x")
    running = tmp_path / f".hf.partial-{os.getppid()}-abcdefgh"  # a writer that still runs
    running.mkdir()
    unlike = tmp_path / ".hf.partial-x"  # not the pattern
    unlike.mkdir()
    mine = tmp_path / "hf"
    mine.mkdir()
    assert sweep_leftovers(tmp_path) == [ours]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([running.name, unlike.name, "hf"])
    old = 2 * 24 * 3600
    os.utime(running, (running.stat().st_atime - old, running.stat().st_mtime - old))
    assert sweep_leftovers(tmp_path) == [running]  # a day old: its number belongs to another process by now


# --- annotator suggestions --out ------------------------------------------------------------------------------


@pytest.fixture
def demo_data(app_demo: Path) -> str:
    return str(app_demo)


def test_suggestions_out_is_refused_in_words_for_what_it_must_not_replace(
    demo_data: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    null = tmp_path / "stdout.jsonl"
    null.symlink_to("/dev/null")
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [(pipe, "is a named pipe"), (null, "is a device (through a link)"), (folder, "is a folder")]
    for target, words in cases:
        before = state(target)
        assert main(["suggestions", "--data", demo_data, "--out", str(target)]) == 2
        err = capsys.readouterr().err
        assert words in err and "Nothing was written" in err and "Traceback" not in err
        assert state(target) == before
    assert main(["suggestions", "--data", demo_data, "--out", ""]) == 2
    assert "--out names no file or folder" in capsys.readouterr().err


def test_suggestions_out_is_private_and_a_link_at_the_old_scratch_name_is_not_followed(
    demo_data: str, tmp_path: Path
) -> None:
    out = tmp_path / "s.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "s.jsonl.part").symlink_to(victim)
    assert main(["suggestions", "--data", demo_data, "--out", str(out)]) == 0
    assert victim.read_text() == "precious\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert len(out.read_text().splitlines()) == 18 * 5


def test_two_suggestion_runs_on_one_file_both_succeed(demo_data: str, tmp_path: Path) -> None:
    (folder := tmp_path / "out").mkdir()
    out = folder / "s.jsonl"
    command = [sys.executable, "-m", "annotator.cli", "suggestions", "--data", demo_data, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    for run in runs:
        _out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    assert len(out.read_text().splitlines()) == 18 * 5
    assert sorted(p.name for p in folder.iterdir()) == ["s.jsonl"]


def test_item_ids_holding_a_comma_are_named_with_item_or_a_file(
    demo_data: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project.open(demo_data)
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({**SAMPLE_ITEMS[0], "id": "shot,whiskey"}) + "\n")
    import_items(project, path)
    project.db.dispose()
    out = tmp_path / "s.jsonl"
    assert main(["suggestions", "--data", demo_data, "--lang", "IT", "--item", "shot,whiskey", "--out", str(out)]) == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["shot,whiskey"]
    ids = tmp_path / "ids.txt"
    ids.write_text("shot,whiskey\n\nhead-stream\n", encoding="utf-8")
    command = ["suggestions", "--data", demo_data, "--lang", "IT", "--items-file", str(ids), "--items", "book-table"]
    assert main([*command, "--out", str(out)]) == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [
        "book-table",
        "head-stream",
        "shot,whiskey",
    ]
    capsys.readouterr()
    assert main(["suggestions", "--data", demo_data, "--items", "shot,whiskey", "--out", str(tmp_path / "x")]) == 2
    assert "No such item(s) in this project: shot, whiskey" in capsys.readouterr().err  # --items splits at commas
    assert main(["suggestions", "--data", demo_data, "--items-file", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert "not a file of item ids" in capsys.readouterr().err


# --- refusals change nothing ---------------------------------------------------------------------------------


def _made(path: Path, mode: int, files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    path.chmod(mode)
    return path


def test_every_command_taking_out_leaves_it_as_found_when_refused(
    demo_data: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _made(tmp_path / "hf", 0o751, {})
    kept = _made(tmp_path / "kept", 0o750, {"notes.txt": "mine\n"})
    old_file = tmp_path / "old.jsonl"
    old_file.write_text("old\n")
    old_file.chmod(0o640)
    bad_translations = tmp_path / "mt.jsonl"
    bad_translations.write_text('{"id": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text("{}\n")
    refusals = [
        (["publish", "--data", demo_data, "--out", str(empty), "--license", "mit-ish"], empty, "'mit-ish'"),
        (["publish", "--data", demo_data, "--out", str(kept)], kept, "not empty"),
        (["evaluate", str(dataset), str(bad_translations), "--out", str(kept)], kept, "line 1"),
        (["report", str(tmp_path / "no-evaluation"), "--out", str(kept)], kept, "no-evaluation"),
        (["contrastive", str(tmp_path / "no-evaluation"), "--out", str(kept)], kept, "no-evaluation"),
        (["sheet", "export", "--data", demo_data, "--lang", "XX", "--out", str(kept)], kept, "'XX'"),
        (["suggestions", "--data", demo_data, "--items", "nope", "--out", str(old_file)], old_file, "nope"),
        (["lexicon", "export-snapshot", str(old_file), "--data", demo_data], old_file, "No BabelNet cache"),
    ]
    for command, out, words in refusals:
        before, around = state(out), sorted(p.name for p in tmp_path.iterdir())
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (command, err)
        assert state(out) == before, command
        assert sorted(p.name for p in tmp_path.iterdir()) == around, command  # no temporary left beside it


# --- the command-line reset is audited ------------------------------------------------------------------------


def test_the_command_line_reset_leaves_an_audit_row_like_the_page(
    demo_data: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["users", "passwd", "translator", "--reset", "--data", demo_data]) == 0
    capsys.readouterr()
    project = Project.open(demo_data)
    audit = schema.audit
    with project.db.read() as conn:
        rows = conn.execute(select(audit.c.user, audit.c.action, audit.c.detail).order_by(audit.c.id.desc())).all()
    project.db.dispose()
    user, action, detail = rows[0]
    assert action == "account_password_reset" and user.startswith("cli")
    assert (json.loads(detail) if isinstance(detail, str) else detail) == {"account": "translator"}
    assert main(["users", "passwd", "nobody", "--reset", "--data", demo_data]) == 2
    assert "No user named 'nobody'" in capsys.readouterr().err


def test_a_command_writing_several_files_refuses_before_writing_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``evaluate`` and ``report`` check every file they will write before the first: a named pipe where the last
    one goes leaves no first one written either."""
    from evaluation_data import jl, write_dataset

    dataset = write_dataset(tmp_path)
    translations = tmp_path / "mt.jsonl"
    translations.write_text(jl(id="shot-photo", lang="IT", system="s", translation="una foto") + "\n")
    out = tmp_path / "eval"
    out.mkdir()
    os.mkfifo(out / "leaderboard.tex")
    before = state(out)
    assert main(["evaluate", str(dataset), str(translations), "--out", str(out), "--leaderboard"]) == 2
    assert "leaderboard.tex is a named pipe" in capsys.readouterr().err
    assert state(out) == before
    (out / "leaderboard.tex").unlink()
    assert main(["evaluate", str(dataset), str(translations), "--out", str(out)]) == 0
    report = tmp_path / "report"
    report.mkdir()
    (report / "report.tex").mkdir()
    before = state(report)
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(report)]) == 2
    assert "report.tex is a folder" in capsys.readouterr().err
    assert state(report) == before


def test_an_interrupt_between_the_work_folders_creation_and_its_use_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signal can land after ``mkdtemp`` made the folder and before the ``with`` block holds its name: the
    folder this process made is removed all the same (another process's, of the same name, is kept)."""
    import tempfile

    from annotator.atomic_files import AtomicFolder

    someone_elses = tmp_path / ".export.partial-1-abcdefgh"
    someone_elses.mkdir()
    made = tempfile.mkdtemp

    def made_then_interrupted(*args: object, **kwargs: object) -> str:
        made(*args, **kwargs)  # type: ignore[call-overload]
        raise KeyboardInterrupt("SIGTERM")

    monkeypatch.setattr(tempfile, "mkdtemp", made_then_interrupted)
    with pytest.raises(KeyboardInterrupt), AtomicFolder(tmp_path, "export"):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == [someone_elses.name]
