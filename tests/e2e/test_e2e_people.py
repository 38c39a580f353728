"""The People page and the log-in form in Chromium at 1366×768 (issue 21): the cursor starts in "User name"; a lead
adds a translator for ES in the browser and gets a one-time password, with which the translator logs in and works in
ES only once she has replaced it with her own; disabling the account in the page (confirmed) ends the translator's
open session.

Screenshot: ``people.png`` in the test's folder, refreshed in docs/screenshots with ANNOTATOR_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import new_context, save_screenshot, settle
from playwright.sync_api import Browser, Page, expect

from annotator.project import Project

pytestmark = pytest.mark.e2e


def focused_label(page: Page) -> str | None:
    return page.evaluate("() => document.activeElement?.getAttribute('aria-label')")


def test_login_focus_people_page_and_a_new_translator(
    app_url: str, demo: Path, tmp_path: Path, chromium: Browser
) -> None:
    lead_context = new_context(chromium, 1366, 768)
    lead = lead_context.new_page()
    lead.goto(app_url)
    expect(lead.get_by_role("textbox", name="User name")).to_be_focused()
    lead.keyboard.type("lead")  # straight into the box: no click needed
    assert focused_label(lead) == "User name"
    lead.get_by_role("textbox", name="Password").fill("demo-lead-pass")
    lead.get_by_role("button", name="Log in").click()
    expect(lead.get_by_text("Signed in as")).to_be_visible()
    settle(lead)

    lead.goto(f"{app_url}/people")
    expect(lead.get_by_role("heading", name="People")).to_be_visible()
    settle(lead)
    form = lead.get_by_test_id("stForm").filter(has_text="Add an account")
    form.get_by_role("textbox", name="User name").fill("esther")
    form.get_by_text("translator", exact=True).click()
    form.get_by_role("combobox").first.click()
    lead.get_by_role("option", name="ES — Spanish", exact=True).click()
    lead.keyboard.press("Escape")
    form.get_by_role("button", name="Add account").click()
    expect(lead.get_by_text("Added translator esther (ES).")).to_be_visible()
    settle(lead)
    password = lead.get_by_test_id("stCode").inner_text().strip()
    assert len(password) >= 8
    lead.evaluate("() => window.scrollTo(0, 0)")
    save_screenshot(lead, tmp_path, "people.png")

    translator_context = new_context(chromium, 1366, 768)
    esther = translator_context.new_page()
    esther.goto(app_url)
    esther.get_by_role("textbox", name="User name").fill("esther")
    esther.get_by_role("textbox", name="Password").fill(password)
    esther.get_by_role("button", name="Log in").click()
    # a one-time password: she chooses her own before anything else
    expect(esther.get_by_role("heading", name="Choose your password")).to_be_visible()
    esther.get_by_role("textbox", name="New password", exact=True).fill("esther-own-pass")
    esther.get_by_role("textbox", name="Repeat new password").fill("esther-own-pass")
    esther.get_by_role("button", name="Save password").click()
    expect(esther.get_by_text("translator · ES")).to_be_visible()
    settle(esther)
    esther.goto(f"{app_url}/people")
    expect(esther.get_by_text("People is for leads only")).to_be_visible()

    lead.get_by_role("combobox", name="Account").click()  # pick esther, then disable her
    lead.get_by_role("option", name="esther").click()
    settle(lead)
    lead.get_by_role("button", name="Disable account").click()
    expect(lead.get_by_text("Disable esther?")).to_be_visible()  # asks first
    settle(lead)
    lead.get_by_role("button", name="Yes, disable").click()
    expect(lead.get_by_text("Disabled esther")).to_be_visible()
    project = Project.open(demo)
    with project.db.read() as conn:
        stored = project.repo.get_user(conn, "esther")
    assert stored is not None and stored.disabled

    esther.get_by_role("link", name="Back to Curate").click()  # her next action: the open session has ended
    expect(esther.get_by_role("textbox", name="Password")).to_be_visible()
    expect(esther.get_by_text("Signed in as")).to_have_count(0)
