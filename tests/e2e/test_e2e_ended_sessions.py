"""Issue 31: an ended session gets nothing more — no file from a download button, no jobs panel redrawn.

Real ``annotator serve``, real Chromium. A download button whose file is made on the click runs its function
outside any script run, and the jobs panel reruns alone every 2 s: both used to serve a lead who had been disabled
meanwhile. The panel's own timed reruns are held back at the websocket (Playwright's route) while the download is
clicked, so the click surely comes before the panel could notice; let go, the panel's next run must end the tab.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env, settle
from playwright.sync_api import Browser, Download, Page, WebSocketRoute, expect
from streamlit.proto.BackMsg_pb2 import BackMsg

from annotator.data_export.dataset import ExportOptions, default_export_root
from annotator.domain.jobs import JobKind, JobState
from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import accounts, jobs

pytestmark = pytest.mark.e2e
ENDED = "Your session has ended"


@pytest.fixture
def exported(demo: Path) -> Path:
    """The demo project with one finished export, so the Dataset page offers its files and its jobs panel shows it."""
    data = demo
    project = Project.open(data)
    lead = accounts.authenticate(project, "lead", "demo-lead-pass")
    accounts.add_user(project, "second-lead", Role.LEAD, (), "second-lead-pass")  # so "lead" may be disabled
    options = ExportOptions(include_incomplete=True).to_json()
    job = jobs.start(project, JobKind.EXPORT, {"out": str(default_export_root(project)), **options}, user=lead)
    assert jobs.wait(project, job.id, timeout=120).state is JobState.DONE
    return data


@pytest.fixture
def server(exported: Path, tmp_path: Path) -> Iterator[str]:
    with serve_app(exported, server_env("ANNOTATOR_DATABASE_URL"), cwd=tmp_path, log=tmp_path / "server.log") as url:
        yield url


class TimedReruns:
    """Holds back the page's timed fragment reruns (``rerun_script`` with ``is_auto_rerun``) while ``held``; the
    rest of the page's messages, and all the server's, pass. Let go, the held ones are sent in order."""

    def __init__(self, page: Page) -> None:
        self.held = False
        self.waiting: list[bytes | str] = []
        self.server: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r".*/_stcore/stream$"), self._route)

    def _route(self, socket: WebSocketRoute) -> None:
        self.server = socket.connect_to_server()
        socket.on_message(self._from_page)

    def _from_page(self, message: bytes | str) -> None:
        assert self.server is not None
        if self.held and isinstance(message, bytes):
            back = BackMsg()
            back.ParseFromString(message)
            if back.WhichOneof("type") == "rerun_script" and back.rerun_script.is_auto_rerun:
                self.waiting.append(message)
                return
        self.server.send(message)

    def let_go(self) -> None:
        assert self.server is not None
        self.held = False
        for message in self.waiting:
            self.server.send(message)
        self.waiting.clear()


def open_dataset(page: Page, url: str) -> None:
    page.goto(url)
    log_in(page, "lead", "demo-lead-pass")
    page.goto(f"{url}/dataset")
    expect(page.get_by_text("Last export:")).to_be_visible()
    expect(page.get_by_text("export · done · by lead")).to_be_visible()  # the jobs panel (a fragment) draws it
    settle(page)


def test_a_disabled_leads_open_dataset_tab_downloads_nothing(
    server: str, exported: Path, tmp_path: Path, chromium: Browser
) -> None:
    context = new_context(chromium, 1440, 1400, accept_downloads=True)
    try:
        page = context.new_page()
        reruns = TimedReruns(page)
        open_dataset(page, server)
        manifest = page.get_by_role("button", name="manifest.json")
        with page.expect_download() as first:  # while the lead may: the file itself
            manifest.click()
        saved = tmp_path / "manifest.json"
        first.value.save_as(saved)
        assert json.loads(saved.read_text(encoding="utf-8"))["counts"]["items"] > 0

        downloads: list[Download] = []
        page.on("download", lambda download: downloads.append(download))
        reruns.held = True  # from now on the panel cannot notice anything before the clicks below
        accounts.set_disabled(Project.open(exported), "lead", True)  # from the command line, another session
        for name in ("manifest.json", "all (.zip)"):
            page.get_by_role("button", name=name).click()
        sheet = page.get_by_role("button", name=re.compile(r"^Download the [A-Z]+ sheet$"))
        sheet.click()  # a spreadsheet made from the database at the click
        errors = page.get_by_test_id("stDownloadButtonError")
        expect(errors).to_have_count(3)  # each button says its download failed
        expect(errors.first).to_contain_text("Failed to generate file")
        page.wait_for_timeout(500)
        assert downloads == []  # not a byte: no download reached the browser

        reruns.let_go()  # the panel's next timed run checks the session and ends the tab
        expect(page.get_by_text(ENDED)).to_be_visible()
        expect(page.get_by_role("textbox", name="Password")).to_be_visible()
        expect(page.get_by_role("button", name="manifest.json")).to_have_count(0)
        expect(page.get_by_text("export · done")).to_have_count(0)
    finally:
        context.close()


def test_the_jobs_panel_stops_drawing_when_the_session_ends_elsewhere(
    server: str, exported: Path, chromium: Browser
) -> None:
    context = new_context(chromium, 1440, 1400)
    try:
        page = context.new_page()
        open_dataset(page, server)
        accounts.end_sessions(Project.open(exported), "lead")  # logged out in another browser
        # no click here: the panel's own timed run (every 2 s) is the session's only action
        expect(page.get_by_text(ENDED)).to_be_visible()
        expect(page.get_by_text("export · done")).to_have_count(0)
        expect(page.get_by_text("Recent jobs")).to_have_count(0)
        page.wait_for_timeout(2500)  # a further timed run draws no job either
        expect(page.get_by_text("export · done")).to_have_count(0)
        expect(page.get_by_text(ENDED)).to_be_visible()
    finally:
        context.close()
