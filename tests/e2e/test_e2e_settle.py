"""``settle``, the browser tests' wait for the app, in real Chromium: a run the page has asked for counts as pending
until the server reports it finished, even while the page still shows itself idle (the server not yet answering),
so no test reads the page between an action and its run."""

from __future__ import annotations

import os
import signal
import time

import pytest
from browser import BUSY_STATES, DRAWN_JS, PAGE_ASKED_JS, SERVED, chromium_page, log_in, settle, upload_files
from playwright.sync_api import Browser, Page, Route, expect

pytestmark = pytest.mark.e2e


def settled_now(page: Page) -> bool:
    """``settle``'s condition on three frames in a row, evaluated now."""
    return bool(page.evaluate(f"({DRAWN_JS})", {"busy": list(BUSY_STATES), "asked": True, "call": -1}))


def test_a_run_asked_for_is_pending_until_the_server_reports_it_finished(app_url: str, chromium: Browser) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(app_url)
        log_in(page, "lead", "demo-lead-pass")
        page.goto(f"{app_url}/people")
        expect(page.get_by_role("heading", name="People")).to_be_visible()
        settle(page)
        page.get_by_role("combobox", name="Account").click()
        server = SERVED[app_url]
        os.killpg(server.pid, signal.SIGSTOP)  # the server answers nothing until let go
        try:
            page.get_by_role("option", name="translator").click()  # a Streamlit widget: the page asks for a run
            page.wait_for_function("() => window.__annotatorRuns.pageAsked > window.__annotatorRuns.pageFinished")
            state = page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")
            assert state not in BUSY_STATES  # the page itself looks idle: its state alone would settle now
            assert not any(settled_now(page) for _ in range(5))  # the run asked for keeps it pending
        finally:
            os.killpg(server.pid, signal.SIGCONT)
        settle(page)
        expect(page.locator('[data-tag][aria-label="DE — German"]')).to_be_visible()  # the translator's form, drawn


def test_an_upload_is_waited_for_until_the_run_that_takes_the_file_has_finished(
    app_url: str, chromium: Browser
) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(app_url)
        log_in(page, "lead", "demo-lead-pass")
        page.goto(f"{app_url}/evaluate")
        expect(page.get_by_role("heading", name="Evaluate machine translations")).to_be_visible()
        page.get_by_role("radio", name="A file (JSONL or TSV").check()
        settle(page)

        def slow_upload(route: Route) -> None:
            time.sleep(1.5)  # the page stays idle meanwhile: no run is asked for until the file is stored
            route.continue_()

        page.route("**/_stcore/upload_file/**", slow_upload)
        before = page.evaluate(PAGE_ASKED_JS)
        dropzone = page.get_by_test_id("stFileUploader").get_by_test_id("stFileUploaderDropzoneInput")
        upload_files(page, dropzone, {"name": "t.jsonl", "mimeType": "application/json", "buffer": b"{}\n"})
        runs = page.evaluate("() => window.__annotatorRuns")
        assert runs["pageAsked"] > before  # the upload's run was asked for ...
        assert runs["pageFinished"] > runs["pageAsked"]  # ... and has finished
