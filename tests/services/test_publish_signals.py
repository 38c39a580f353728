"""Signals leave nothing behind: ``annotator publish`` in a real process, stopped (SIGSTOP) at several points of its
work and then sent a real SIGTERM or SIGHUP, removes its hidden work folder as Ctrl-C does; a run killed outright
(SIGKILL, which nothing can catch) leaves one that the next run sweeps, since its writer no longer runs.

The points are seen from outside, in the folder: the export being written inside the work folder, the Parquet
files written (the card not yet), the card being written. A run that finished before its point was caught is
started again (the machine decides how fast it runs); the test fails if no run was caught.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ATTEMPTS = 4


def _partials(folder: Path) -> list[Path]:
    return [entry for entry in folder.iterdir() if ".partial-" in entry.name]


def _exporting(work: Path) -> bool:
    """The export is being written inside the work folder (its own hidden folder, no Parquet yet)."""
    return any(".partial-" in entry.name for entry in _entries(work)) and not (work / "data").exists()


def _parquet_written(work: Path) -> bool:
    """Every Parquet file is written and the card is not."""
    return (work / "data" / "discarded" / "test.parquet").exists() and not (work / "croissant.json").exists()


def _card_being_written(work: Path) -> bool:
    return (work / "croissant.json").exists()


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))
    except OSError:
        return []


def _publish(data: Path, out: Path) -> subprocess.Popen:
    command = ["publish", "--data", str(data), "--out", str(out), "--include-incomplete", "--include-unusable"]
    return subprocess.Popen(
        [sys.executable, "-m", "annotator.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _stopped_at(process: subprocess.Popen, folder: Path, point: Callable[[Path], bool]) -> Path | None:
    """Watch ``folder`` until the work folder reaches ``point``, then stop the process there (SIGSTOP) and check,
    now that it cannot move, that it is still there; None (the process left to finish) when it was not caught."""
    while process.poll() is None:
        for work in _partials(folder) if folder.exists() else []:
            if point(work):
                os.kill(process.pid, signal.SIGSTOP)
                if work.exists() and point(work):
                    return work
                os.kill(process.pid, signal.SIGCONT)  # it moved on between the look and the stop
                return None
        time.sleep(0.002)  # a look every 2 ms: the shortest point (the export) lasts some 100 ms
    return None


@pytest.mark.parametrize(
    ("point", "signum"),
    [
        (_exporting, signal.SIGTERM),
        (_parquet_written, signal.SIGHUP),
        (_parquet_written, signal.SIGTERM),
        (_card_being_written, signal.SIGHUP),
    ],
    ids=["exporting-SIGTERM", "parquet-SIGHUP", "parquet-SIGTERM", "card-SIGHUP"],
)
def test_a_signal_at_each_point_removes_the_work_folder(
    point: Callable[[Path], bool], signum: signal.Signals, app_demo: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "published"
    folder.mkdir()
    out = folder / "hf"
    for _attempt in range(ATTEMPTS):
        process = _publish(app_demo, out)
        work = _stopped_at(process, folder, point)
        if work is None:  # finished before the point was seen: start again on a clean folder
            process.communicate()
            assert process.returncode == 0
            for entry in folder.iterdir():
                subprocess.run(["rm", "-rf", str(entry)], check=True)
            continue
        assert work.exists()
        os.kill(process.pid, signum)
        os.kill(process.pid, signal.SIGCONT)
        _out, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        assert "interrupted" in err and "Traceback" not in err
        assert list(folder.iterdir()) == []  # no work folder, no half-published one
        return
    pytest.fail(f"publish finished {ATTEMPTS} times before the point was seen")


def test_a_killed_runs_work_folder_is_swept_by_the_next_run(app_demo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "published"
    folder.mkdir()
    for _attempt in range(ATTEMPTS):
        process = _publish(app_demo, folder / "first")
        work = _stopped_at(process, folder, _parquet_written)
        if work is not None:
            break
        process.communicate()
        subprocess.run(["rm", "-rf", str(folder / "first")], check=True)
    else:
        pytest.fail("publish finished every time before it was caught")
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert _partials(folder) == [work]  # nothing can catch SIGKILL: its work folder stays …
    someone_elses = folder / f".other.partial-{os.getppid()}-abcdefgh"  # … and one whose writer still runs
    someone_elses.mkdir()
    second = _publish(app_demo, folder / "second")
    _out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert sorted(entry.name for entry in folder.iterdir()) == sorted(["second", someone_elses.name])


def test_an_export_sent_sigterm_while_writing_leaves_no_work_folder(app_demo: Path) -> None:
    """``annotator export`` builds its folder aside in DATA/exports the same way."""
    exports = app_demo / "exports"
    command = [sys.executable, "-m", "annotator.cli", "export", "--data", str(app_demo), "--include-incomplete"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _attempt in range(ATTEMPTS):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        work = _stopped_at(process, exports, lambda found: found.exists())
        if work is None:
            process.communicate()
            assert process.returncode == 0
            subprocess.run(["rm", "-rf", str(exports)], check=True)
            continue
        os.kill(process.pid, signal.SIGTERM)
        os.kill(process.pid, signal.SIGCONT)
        _out, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        assert list(exports.iterdir()) == []
        return
    pytest.fail(f"export finished {ATTEMPTS} times before its work folder was seen")
