"""Passwords in Chromium (issue 31): a lead's reset of their own account on People is refused with the way to change
it, and the lead stays logged in; a translator whose password a lead reset logs in with the one-time password, sees
nothing but the change form (whatever address they open) until they replace it, then works, stays logged in across a
reload, and the one-time password no longer logs in.

Screenshot: ``forced-password.png`` in the test's folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import log_in, new_context, save_screenshot, settle
from playwright.sync_api import Browser, Page, expect

from annotator.project import Project
from annotator.services import accounts

pytestmark = pytest.mark.e2e


def submit_login(page: Page, name: str, password: str) -> None:
    page.get_by_role("textbox", name="User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_self_reset_refused_and_a_reset_translator_replaces_the_one_time_password(
    app_url: str,
    demo: Path,
    tmp_path: Path,
    chromium: Browser,
) -> None:
    lead_context = new_context(chromium, 1366, 768)
    lead = lead_context.new_page()
    lead.goto(app_url)
    log_in(lead, "lead", "demo-lead-pass")
    lead.goto(f"{app_url}/people")
    expect(lead.get_by_role("heading", name="People")).to_be_visible()
    settle(lead)

    # the account picked first is the lead's own: Reset is refused, says how instead, and logs nobody out
    expect(lead.get_by_role("combobox", name="Account")).to_have_value("lead")
    lead.get_by_role("button", name="Reset password").click()
    expect(lead.get_by_text("You cannot reset your own password")).to_be_visible()
    expect(lead.get_by_text("Change password” in the sidebar")).to_be_visible()
    expect(lead.get_by_test_id("stCode")).to_have_count(0)
    expect(lead.get_by_text("Signed in as")).to_be_visible()
    settle(lead)
    lead.reload()
    expect(lead.get_by_role("heading", name="People")).to_be_visible()
    expect(lead.get_by_text("Signed in as")).to_be_visible()
    assert accounts.authenticate(Project.open(demo), "lead", "demo-lead-pass") is not None
    settle(lead)

    lead.get_by_role("combobox", name="Account").click()
    lead.get_by_role("option", name="translator").click()
    settle(lead)
    lead.get_by_role("button", name="Reset password").click()
    expect(lead.get_by_text("Reset translator's password?")).to_be_visible()  # asks first, like Disable
    expect(lead.get_by_test_id("stCode")).to_have_count(0)
    lead.get_by_role("button", name="Yes, reset").click()
    expect(lead.get_by_text("New password for translator")).to_be_visible()
    one_time = lead.get_by_test_id("stCode").inner_text().strip()
    assert len(one_time) >= accounts.MIN_PASSWORD_LENGTH

    context = new_context(chromium, 1366, 768)
    translator = context.new_page()
    translator.goto(app_url)
    submit_login(translator, "translator", one_time)
    expect(translator.get_by_role("heading", name="Choose your password")).to_be_visible()
    settle(translator)
    save_screenshot(translator, tmp_path, "forced-password.png")
    for path in ("curate", "items", "review", "password"):  # no page is served before the change
        translator.goto(f"{app_url}/{path}")
        expect(translator.get_by_role("heading", name="Choose your password")).to_be_visible()
        settle(translator)
        expect(translator.get_by_text("Signed in as")).to_have_count(0)
        expect(translator.get_by_role("textbox", name="Add to GOOD")).to_have_count(0)

    translator.get_by_role("textbox", name="New password", exact=True).fill("translator-own-pass")
    translator.get_by_role("textbox", name="Repeat new password").fill("translator-own-pass")
    translator.get_by_role("button", name="Save password").click()
    expect(translator.get_by_text("translator · IT, DE")).to_be_visible()
    expect(translator.get_by_text("Your new password is saved")).to_be_visible()
    settle(translator)
    translator.goto(f"{app_url}/curate")
    expect(translator.get_by_role("textbox", name="Add to GOOD")).to_be_visible()  # works now
    settle(translator)
    translator.reload()  # the cookie holds the new session
    expect(translator.get_by_text("Signed in as")).to_be_visible()
    settle(translator)

    translator.get_by_role("button", name="Log out").click()
    expect(translator.get_by_role("textbox", name="Password")).to_be_visible()
    settle(translator)
    submit_login(translator, "translator", one_time)
    expect(translator.get_by_text("Wrong user name or password")).to_be_visible()
    settle(translator)
    log_in(translator, "translator", "translator-own-pass")
    expect(translator.get_by_text("translator · IT, DE")).to_be_visible()
