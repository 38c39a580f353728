"""Several app servers, one PostgreSQL database (issue 10): two ``annotator serve`` processes on their own ports,
a translator on each editing the same item-language in headless Chromium — the second save is refused and the
page shows the current state, with the first server's change in it.

The servers get different ``--data`` folders: the project is the database, not a folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ProjectTemplates, build_demo
from playwright.sync_api import expect, sync_playwright
from test_e2e_browser import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, free_port, log_in, settle, wait_until_healthy

from annotator.project import Project

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def shared_database(project_templates: ProjectTemplates, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = project_templates.copy("demo", "postgresql", build_demo, tmp_path / "template-copy")
    assert url is not None
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
    return url


def serve(data: Path, url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "ANNOTATOR_DATABASE_URL": url}
    command = [sys.executable, "-m", "annotator.cli", "serve", "--data", str(data), "--port", str(port)]
    process = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def two_servers(shared_database: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    started = [serve(tmp_path / "server-a", shared_database), serve(tmp_path / "server-b", shared_database)]
    try:
        for process, url in started:
            wait_until_healthy(url, process, deadline_s=60)
        yield started[0][1], started[1][1]
    finally:
        for process, _url in started:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def test_two_servers_one_database_the_second_save_is_refused_with_the_current_state(
    two_servers: tuple[str, str], tmp_path: Path
) -> None:
    url_a, url_b = two_servers
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pages = []
            for url in (url_a, url_b):
                context = browser.new_context(viewport={"width": 1440, "height": 1500})
                context.set_default_timeout(TIMEOUT_MS)
                page = context.new_page()
                page.goto(url)
                log_in(page, "translator", "demo-translator-pass")
                expect(page).to_have_url(f"{url}/curate?item=shot-whiskey&lang=IT")
                expect(page.get_by_text("GOOD (2)")).to_be_visible()  # both see the same version
                pages.append(page)
            first, second = pages

            first.get_by_role("textbox", name="Add to GOOD").fill("sorso")
            first.get_by_role("button", name="Add to GOOD", exact=True).click()
            expect(first.get_by_text("GOOD (3)")).to_be_visible()
            settle(first)

            second.get_by_role("textbox", name="Add to GOOD").fill("cicchetto")
            second.get_by_role("button", name="Add to GOOD", exact=True).click()
            expect(second.get_by_text("Not saved — conflict.")).to_be_visible()
            expect(second.get_by_text("was changed by translator", exact=False)).to_be_visible()
            main = second.get_by_test_id("stMain")
            expect(main.get_by_text("sorso", exact=True)).to_be_visible()  # the current state, from server A
            expect(second.get_by_text("GOOD (3)")).to_be_visible()
        finally:
            browser.close()

    project = Project.open(tmp_path / "anywhere")  # the database is the project, whatever the folder
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "shot-whiskey", "IT")
        history = project.repo.history(conn, "shot-whiskey", "IT")
    assert saved is not None and [e.text for e in saved.good] == ["goccio", "bicchierino", "sorso"]
    assert [(h.user, h.action) for h in history if h.action == "add"] == [("translator", "add")]  # one save only
