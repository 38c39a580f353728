"""Issue 34 in a real browser (headless Chromium at 1366×768): the app looks the same wherever it is served, and
the pages a newcomer met (Items, Review, Evaluate, Dataset, Agreement) fit the screen.

Screenshots go to the test's temporary folder; with ``ANNOTATOR_UPDATE_SCREENSHOTS=1`` they also refresh
``docs/screenshots/*-1366x768.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright
from test_e2e_browser import chromium_page, log_in, serve_app, server_env, settle

from annotator.commands.project import create_demo

pytestmark = pytest.mark.e2e

#: The package's theme colour (annotator/app/streamlit_config.toml), as the browser computes it.
SLATE = "rgb(59, 91, 122)"
#: The colour of the Done button's background as the browser computes it.
DONE_BACKGROUND_JS = """() => getComputedStyle(document.querySelector('.ca button[data-cmd="done"]')).backgroundColor"""


def test_served_from_another_folder_the_done_button_wears_the_package_theme(tmp_path: Path) -> None:
    """``annotator serve --data DATA`` started in a folder without any Streamlit settings (as from /tmp): the
    theme is the package's, so Done is slate, not Streamlit's red."""
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    elsewhere.mkdir()
    create_demo(str(data), quiet=True)
    with (
        serve_app(data, server_env("ANNOTATOR_DATABASE_URL"), cwd=elsewhere) as url,
        sync_playwright() as playwright,
        chromium_page(playwright, 1366, 768) as page,
    ):
        page.goto(url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page.locator('.ca button[data-cmd="done"]')).to_be_visible()
        settle(page)
        assert page.evaluate(DONE_BACKGROUND_JS) == SLATE
