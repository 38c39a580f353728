"""A NUL pasted into a People box in Chromium, on SQLite and PostgreSQL (issue 31, second round): the page names the
box; the database's own refusal ("refused a value", PostgreSQL's NUL message) or a traceback never shows, and no
account is added."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env, settle
from playwright.sync_api import Browser, expect

from annotator.project import Project
from annotator.services import accounts

pytestmark = [pytest.mark.e2e, pytest.mark.both_engines]


def test_a_nul_in_the_display_name_is_refused_naming_the_box(app_demo: Path, chromium: Browser) -> None:
    with serve_app(app_demo, server_env()) as url:
        page = new_context(chromium, 1366, 900).new_page()
        page.goto(url)
        log_in(page, "lead", "demo-lead-pass")
        page.goto(f"{url}/people")
        expect(page.get_by_role("heading", name="People")).to_be_visible()
        settle(page)
        page.get_by_role("textbox", name="User name").fill("newbie")
        page.get_by_role("textbox", name="Display name (optional)").fill("New\x00bie")
        page.get_by_role("button", name="Add account").click()
        expect(page.get_by_text("The display name holds U+0000 NULL")).to_be_visible()
        body = page.locator("body").inner_text()
        assert "refused a value" not in body and "Traceback" not in body and "NUL (0x00)" not in body
    assert accounts.find_user(Project.open(app_demo), "newbie") is None
