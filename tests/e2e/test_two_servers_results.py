"""Issue 22: two app servers (two data folders) on one PostgreSQL database show the same evaluation results and
offer the same last export, whichever server's worker ran the job — the files are kept in the database, so no
server ever shows a path of another (or "gone") and the first server's disk is not needed."""

from __future__ import annotations

import io
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from browser import RunCounter, log_in, new_context, serve_app, server_env, settle
from evaluate_pages import metrics_table, run_evaluation, shown_items
from playwright.sync_api import Browser, expect
from streamlit.testing.v1 import AppTest

from annotator.app.session import USER_KEY
from annotator.domain.jobs import JobKind, JobState
from annotator.project import Project
from annotator.services import job_files, jobs
from annotator.services.accounts import Session


class Server:
    """One app server's view in this process: its own data folder and working folder (``ANNOTATOR_DATA`` and the
    current folder are what the app reads), the database shared."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder, self.monkeypatch = folder, monkeypatch
        folder.mkdir(parents=True, exist_ok=True)

    def __enter__(self) -> Server:
        self.monkeypatch.setenv("ANNOTATOR_DATA", str(self.folder / "data"))
        self.monkeypatch.chdir(self.folder)
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def texts(at: AppTest) -> list[str]:
    """Everything the page wrote as text (Markdown, captions, messages)."""
    found = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return found + [e.value for e in (*at.info, *at.success, *at.warning, *at.error)]


def dataset_page(user: str) -> AppTest:
    at = AppTest.from_string("from annotator.app.pages.dataset import render\nrender()\n", default_timeout=60)
    at.session_state[USER_KEY] = Session(user, 0)
    at.run()
    assert not at.exception, at.exception
    return at


def test_an_evaluation_run_on_one_server_is_shown_identically_by_the_other(
    shared_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_a, server_b = Server(tmp_path / "a", monkeypatch), Server(tmp_path / "b", monkeypatch)
    with server_a:
        a = logged_in("lead", "demo-lead-pass")
        a.switch_page("pages/evaluate.py").run()
        run_evaluation(a)  # its worker runs with server A's data folder
        a_table, a_items, a_texts = metrics_table(a), shown_items(a), texts(a)
    shutil.rmtree(tmp_path / "a" / "data")  # server A's disk is not needed to show the results
    with server_b:
        b = logged_in("lead", "demo-lead-pass")
        b.switch_page("pages/evaluate.py").run()
        assert not b.exception, b.exception
        assert metrics_table(b).equals(a_table)
        assert shown_items(b) == a_items and a_items
        assert texts(b) == a_texts  # the run's caption, the MISS list, ω and its senses: all the same
        assert not [t for t in texts(b) if "gone" in t or str(tmp_path / "a") in t]
        b.button(key="evaluate_report").click().run()  # the report is built from the kept results too
        assert not b.exception, b.exception
        assert len(b.get("vega_lite_chart")) >= 5


@pytest.fixture
def server_b_process(shared_database: str, tmp_path: Path) -> Iterator[str]:
    env = {**server_env(), "ANNOTATOR_DATABASE_URL": shared_database}
    with serve_app(tmp_path / "b-served", env, deadline_s=60) as url:
        yield url


@pytest.mark.e2e
def test_the_last_export_of_one_server_is_downloaded_from_the_other(
    shared_database: str, server_b_process: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chromium: Browser
) -> None:
    with Server(tmp_path / "a", monkeypatch):
        a = dataset_page("lead")
        a.checkbox(key="dataset_include_incomplete").check().run()  # the demo is not curated: nothing done yet
        a.button(key="dataset_export").click().run()
        assert not a.exception, a.exception
        project = Project.open(tmp_path / "a" / "data")
        (job,) = jobs.list_jobs(project, kinds=[JobKind.EXPORT])
        assert jobs.wait(project, job.id, timeout=120).state is JobState.DONE
        a.run()
        (folder,) = (tmp_path / "a" / "data" / "exports").iterdir()  # beside the project (DATA/exports)
        written = {path.name: path.read_bytes() for path in folder.iterdir()}
        a_labels = [b.label for b in a.get("download_button") if b.key.startswith("dataset_dl_")]
        a_last = [plain(t) for t in texts(a) if t.startswith("Last export")]
    shutil.rmtree(tmp_path / "a")  # server A (its disk) is gone: server B still offers the files
    assert a_labels == [*sorted(written), "all (.zip)"] and a_last and str(tmp_path) not in a_last[0]

    with Server(tmp_path / "b", monkeypatch):
        b = dataset_page("lead")
        assert [b.label for b in b.get("download_button") if b.key.startswith("dataset_dl_")] == a_labels
        assert [plain(t) for t in texts(b) if t.startswith("Last export")] == a_last

    # and the bytes a browser downloads from server B are the files written
    context = new_context(chromium, 1440, 1500, accept_downloads=True)
    page = context.new_page()
    runs = RunCounter(page)
    page.goto(server_b_process)
    log_in(page, "lead", "demo-lead-pass")
    page.goto(f"{server_b_process}/dataset")
    expect(page.get_by_text("Last export", exact=False)).to_be_visible()
    settle(page)
    before = runs.page_runs
    for label in ("dataset.jsonl", "all (.zip)"):
        with page.expect_download() as download:
            page.get_by_role("button", name=label, exact=True).click()
        data = Path(download.value.path()).read_bytes()
        if label == "dataset.jsonl":
            assert data == written["dataset.jsonl"]
        else:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                assert {name: archive.read(name) for name in archive.namelist()} == written
    page.wait_for_timeout(500)
    # no rerun: one would register the files under new ids while the browser asks for the old ones, and a
    # download lost that race under load ("Failed to generate file for download")
    assert runs.page_runs == before  # the jobs panel's timed fragment runs redraw only the panel
    assert (
        job_files.read_bytes(Project.open(tmp_path / "elsewhere"), job.id, "manifest.json") == written["manifest.json"]
    )
