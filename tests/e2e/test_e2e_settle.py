"""``settle``, the browser tests' wait for the app, in real Chromium: a run the page has asked for counts as pending
until the server reports it finished, even while the page still shows itself idle (the server not yet answering),
so no test reads the page between an action and its run."""

from __future__ import annotations

import os
import signal

import pytest
from browser import BUSY_STATES, DRAWN_JS, SERVED, chromium_page, log_in, settle
from playwright.sync_api import Browser, Page, expect

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
