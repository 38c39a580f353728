"""Issue 20 point 8: a full disk gives a clear message — in the app (SQLite's "database or disk is full") and from
``annotator evaluate --out`` / ``annotator report --out`` (an OSError naming the folder, exit 2) — never a
traceback, and nothing half-written.

The disk is real: a small tmpfs mounted in a private mount namespace (``unshare --user --map-root-user --mount``,
which needs no root where unprivileged user namespaces are allowed, as on stock Linux), filled to the last byte.
The mount vanishes with the process, so what it held is reported by the process itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS

from annotator.project import Project, ProjectSettings, builtin_path
from annotator.services.importing import import_items

HERE = Path(__file__).resolve().parents[1] / "support"
ROOT = HERE.parents[1]
LEFT = "--- left on the disk:"
#: Mount a tmpfs of size $1 at $2, fill it when $3 is "fill", run the rest, then list what is left on it.
SHELL = f"""
mount -t tmpfs -o size="$1" tmpfs "$2" || exit 97
if [ "$3" = fill ]; then cat /dev/zero > "$2/.filler" 2>/dev/null; fi
disk="$2"; shift 3
"$@"; status=$?
echo "{LEFT}"; cd "$disk" && find . -mindepth 1 ! -name .filler | sort
exit $status
"""


def on_a_small_disk(disk: Path, size: str, fill: bool, *command: str) -> subprocess.CompletedProcess[str]:
    disk.mkdir(parents=True, exist_ok=True)
    namespace = ["unshare", "--user", "--map-root-user", "--mount"]
    return subprocess.run(
        [*namespace, "sh", "-c", SHELL, "sh", size, str(disk), "fill" if fill else "-", *command],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
    )


def left_on_disk(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert LEFT in result.stdout, (result.stdout, result.stderr)
    return result.stdout.split(LEFT, 1)[1].split()


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "annotator.cli", *args]


def test_the_app_on_a_full_disk_says_so_keeps_the_input_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    source = tmp_path / "project"
    project = Project.open(source, create=True)  # no accounts: the local lead, as a one-person project runs
    project.save_settings(ProjectSettings(name="disk"))
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in SAMPLE_ITEMS), encoding="utf-8")
    import_items(project, items)
    project.db.dispose()

    script = [sys.executable, str(HERE / "disk_full_app.py"), str(source), str(tmp_path / "disk"), "shot-whiskey", "IT"]
    result = on_a_small_disk(tmp_path / "disk", "16m", False, *script)
    assert result.returncode == 0, result.stderr[-3000:]
    shown = json.loads(result.stdout.split(LEFT, 1)[0].strip().splitlines()[-1])
    assert shown["opened"] == []
    assert shown["exceptions"] == []  # no traceback
    assert [e.replace("\\", "") for e in shown["errors"]] == [
        "The disk holding the database is full; your last change was not saved. Free some space, then try again."
    ]
    assert shown["kept_input"] == "sorso"  # what the user typed is there to redo
    assert shown["good"] == []  # nothing was saved


UPLOAD = """
import sys
from pathlib import Path
from annotator.project import Project
from annotator.services import jobs
from annotator.store.database import Database, sqlite_url

project = Project(Path(sys.argv[1]), Database(sqlite_url(Path(sys.argv[2]))))  # only the folder is on the disk
try:
    jobs.save_upload(project, "items.csv", b"id,sentence\\n" * 10_000)
except jobs.JobRefused as error:
    print(error)
"""


def test_an_upload_kept_for_a_job_on_a_full_disk_is_refused_with_a_message(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    result = on_a_small_disk(
        disk, "64k", True, sys.executable, "-c", UPLOAD, str(disk / "data"), str(tmp_path / "db.sqlite")
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "Cannot keep the uploaded file 'items.csv' on the server: No space left on device. Nothing was started; "
    ), result.stdout
    assert left_on_disk(result) == ["./data", "./data/jobs"]  # no half-written upload


@pytest.fixture
def evaluation_inputs(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "demo"
    assert subprocess.run(cli("demo", "--data", str(data)), capture_output=True, cwd=ROOT).returncode == 0
    exported = subprocess.run(
        cli("--data", str(data), "export", "--include-incomplete", "--out", str(tmp_path / "exports")),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert exported.returncode == 0, exported.stderr
    (dataset,) = (tmp_path / "exports").glob("*/dataset.jsonl")
    return dataset, builtin_path("demo/translations.jsonl")


def test_evaluate_out_on_a_full_disk_is_a_message_naming_the_folder(
    tmp_path: Path, evaluation_inputs: tuple[Path, Path]
) -> None:
    dataset, translations = evaluation_inputs
    out = tmp_path / "disk" / "scores"
    result = on_a_small_disk(
        tmp_path / "disk", "64k", True, *cli("evaluate", str(dataset), str(translations), "--out", str(out))
    )
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert f"annotator evaluate: error: Cannot write to {out}: No space left on device." in result.stderr
    assert "free some space or choose another folder" in result.stderr
    assert left_on_disk(result) == ["./scores"]  # the folder, and no half-written or temporary file in it


def test_report_out_on_a_full_disk_is_a_message_naming_the_folder(
    tmp_path: Path, evaluation_inputs: tuple[Path, Path]
) -> None:
    dataset, translations = evaluation_inputs
    scores = tmp_path / "scores"
    scored = subprocess.run(
        cli("evaluate", str(dataset), str(translations), "--out", str(scores)), capture_output=True, text=True
    )
    assert scored.returncode == 0, scored.stderr
    out = tmp_path / "disk" / "report"
    result = on_a_small_disk(tmp_path / "disk", "64k", True, *cli("report", str(scores), "--out", str(out)))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert f"annotator report: error: Cannot write to {out}: No space left on device." in result.stderr
    assert left_on_disk(result) == ["./report"]
