"""The Dataset page driven through Streamlit's AppTest, checked against the database and the files it writes."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from app_helpers import plain
from dataset_pages import SCRIPT, build_curated_demo
from openpyxl import load_workbook
from streamlit.testing.v1 import AppTest

from annotator.app.session import USER_KEY
from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, collect
from annotator.data_export.spreadsheet import DATA_SHEET, sheet_bytes
from annotator.domain.jobs import JobState
from annotator.domain.refinement_stats import format_value
from annotator.project import Project
from annotator.services import jobs
from annotator.services.accounts import Session

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture
def curated(copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A copy of the curated demo, named by ANNOTATOR_DATA as the app reads it; the server runs in tmp_path."""
    data = copy_project("curated-demo", build_curated_demo, tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.chdir(tmp_path)
    return Project.open(data)


def start(user: str) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    at.session_state[USER_KEY] = Session(user, 0)  # a login with the user's current session epoch
    at.run()
    assert not at.exception, at.exception
    return at


def frame(at: AppTest, first_column: str):  # the pandas DataFrame of the dataframe whose first column is that
    return next(df.value for df in at.dataframe if df.value.columns[0] == first_column)


def test_the_page_shows_the_tables_the_export_will_hold(curated: Project) -> None:
    at = start("lead")
    assert at.header[0].value == "Dataset"
    stats = frame(at, "language")
    expected = collect(curated).refinement()
    assert list(stats["language"]) == ["DE", "ES", "IT", "RU", "ZH", "Mean"]
    it = stats.set_index("language").loc["IT"]
    assert it["% added"] == format_value(expected.row("IT").added_pct)
    assert it["% removed"] == format_value(expected.row("IT").removed_pct)
    assert it["% shared"] == "100.0" and int(it["done item-languages"]) == 17  # all included items (SPEC §6)
    assert stats.set_index("language").loc["Mean", "% added"] == format_value(expected.mean["added_pct"])
    counts = next(df.value for df in at.dataframe if "all" in df.value.columns)
    assert counts.loc["items"].tolist() == [14, 8, 6]
    progress = next(df.value for df in at.dataframe if "pending" in df.value.columns).set_index("language")
    assert progress.loc["RU", "pending"] == 1 and progress.loc["IT", "done"] == 17 and progress.loc["IT", "total"] == 17
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1  # the bar chart per language: a group of bars per language, one bar per figure
    spec = json.loads(charts[0].proto.spec)
    assert spec["encoding"]["x"]["sort"] == ["DE", "ES", "IT", "RU", "ZH"]
    assert spec["encoding"]["xOffset"]["sort"] == ["% added", "% removed", "% shared"]
    assert len(at.get("progress")) == 5

    at.checkbox(key="dataset_include_incomplete").check().run()
    counts = next(df.value for df in at.dataframe if "all" in df.value.columns)
    assert counts.loc["items"].tolist()[0] == 16  # book-table and match-pipe join
    assert frame(at, "language").equals(stats)  # the option changes what is exported, not the statistics
    assert collect(curated, ExportOptions(include_incomplete=True)).counts().columns["all"].items == 16


def test_the_export_button_writes_the_folder_and_offers_the_files(curated: Project, tmp_path: Path) -> None:
    at = start("lead")
    at.button(key="dataset_export").click().run()
    assert not at.exception, at.exception
    (job,) = jobs.list_jobs(curated)  # the export runs as a background job; wait for it as the panel would
    assert jobs.wait(curated, job.id, timeout=120).state is JobState.DONE
    at.run()
    folders = list((curated.data_dir / "exports").iterdir())  # DATA/exports by default
    assert len(folders) == 1
    assert any("export · done · by lead: Exported 14 item(s)" in plain(s.value) for s in at.success)
    last = next(plain(m.value) for m in at.markdown if m.value.startswith("Last export"))
    finished = jobs.get(curated, job.id).finished_at or ""
    assert finished[:10] in last and re.search(r", \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$", last), last  # as people read it
    assert finished not in last and not re.search(r"\dT\d|\.\d{6}|\+00:00", last), last  # not the ISO string
    names = sorted(p.name for p in folders[0].iterdir())
    labels = [b.label for b in at.get("download_button") if b.key.startswith("dataset_dl_")]
    assert labels == [*names, "all (.zip)"]
    manifest = json.loads((folders[0] / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["items"] == 14 and manifest["options"]["include_incomplete"] is False


def test_a_sheet_imported_on_the_page_is_applied_as_the_leads_edits(curated: Project) -> None:
    name, data = sheet_bytes(curated, "ZH")
    workbook = load_workbook(io.BytesIO(data))
    sheet = workbook[DATA_SHEET]
    good = next(c for c in sheet[1] if c.value == "GOOD").column
    row = next(r for r in range(2, sheet.max_row + 1) if sheet.cell(r, 1).value == "shot-whiskey")
    sheet.cell(row, good).value = "小杯\nprend*"
    bad_bytes = io.BytesIO()
    workbook.save(bad_bytes)

    at = start("lead")
    at.file_uploader(key="dataset_sheet_upload").set_value((name, bad_bytes.getvalue(), XLSX)).run()
    at.button(key="dataset_sheet_apply").click().run()
    assert not at.exception, at.exception
    assert "nothing was applied" in at.error[0].value
    problems = next(df.value for df in at.dataframe if "rule" in df.value.columns)
    assert problems.to_dict("records") == [
        {"row": row, "column": "GOOD", "rule": "wildcard_token", "problem": problems["problem"][0]}
    ]

    sheet.cell(row, good).value = "小杯\n一小杯"
    fixed = io.BytesIO()
    workbook.save(fixed)
    at.file_uploader(key="dataset_sheet_upload").set_value((name, fixed.getvalue(), XLSX)).run()
    at.button(key="dataset_sheet_apply").click().run()
    assert not at.exception, at.exception
    assert "1 row(s) applied" in plain(at.success[0].value)
    with curated.db.read() as conn:
        state = curated.repo.get_item_language(conn, "shot-whiskey", "ZH")
        history = curated.repo.history(conn, "shot-whiskey", "ZH")
    assert state is not None and [e.format() for e in state.good] == ["小杯", "一小杯"]
    assert [(h.user, h.action) for h in history[-3:]] == [("lead", "reopen"), ("lead", "sheet_edit"), ("lead", "done")]


def test_translators_do_not_get_the_page(curated: Project, tmp_path: Path) -> None:
    at = start("translator")
    assert "for leads" in at.error[0].value
    assert not at.button and not at.dataframe
    assert not (curated.data_dir / "exports").exists()


def test_the_page_refuses_an_empty_export_as_the_command_line_does(
    copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34, point 2: nothing done yet — the command line exits 2 with a reason; the page gives the same
    reason, offers the unfinished items explicitly, and writes nothing (no "Exported 0 item(s)")."""
    from annotator.cli import main
    from annotator.data_export.dataset import NothingToExport, export_dataset

    data = copy_project("demo", lambda folder: create_demo(str(folder), quiet=True), tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    project = Project.open(data)
    assert main(["--data", str(data), "export"]) == 2
    reason = "Nothing to export: no item matches the selection (left out: 18 incomplete)."
    assert reason in capsys.readouterr().err

    at = start("lead")
    warning = " ".join(plain(w.value) for w in at.warning)
    assert reason in warning and "export the 18 unfinished item(s)" in warning
    assert "Include items not yet done in every language" in warning
    assert at.button(key="dataset_export").disabled
    with pytest.raises(NothingToExport, match="left out: 18 incomplete"):  # the job refuses it too
        export_dataset(project, tmp_path / "out", allow_empty=False)
    job = jobs.start(project, "export", {"out": str(tmp_path / "out")})
    assert jobs.wait(project, job.id, timeout=120).state is JobState.FAILED
    assert reason in (jobs.get(project, job.id).error or "")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())

    at.checkbox(key="dataset_include_incomplete").check().run()
    assert not at.button(key="dataset_export").disabled and not at.warning
    at.button(key="dataset_export").click().run()
    exported = [j for j in jobs.list_jobs(project) if j.id != job.id]
    assert jobs.wait(project, exported[0].id, timeout=120).state is JobState.DONE
    at.run()
    assert any("Exported 18 item(s)" in plain(s.value) for s in at.success)
