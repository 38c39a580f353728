"""Fixtures shared by the browser tests: one Chromium per test worker, the demo project and an app server on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import SharedChromium, serve_app, server_env
from playwright.sync_api import Browser, sync_playwright
from project_helpers import build_demo


@pytest.fixture(scope="session")
def shared_chromium() -> Iterator[SharedChromium]:
    """Playwright and Chromium once per worker: starting them is a second or more each time on a loaded machine."""
    with sync_playwright() as playwright:
        shared = SharedChromium(playwright)
        yield shared
        shared.close()


@pytest.fixture
def chromium(shared_chromium: SharedChromium) -> Iterator[Browser]:
    """The worker's Chromium for one test: each test opens its own contexts (cookies and storage of its own), and
    any context it leaves open is closed after it, so the next test starts with none of its pages."""
    browser = shared_chromium.get()
    before = set(browser.contexts)
    yield browser
    if browser.is_connected():
        for context in browser.contexts:
            if context not in before:
                context.close()


@pytest.fixture
def demo(copy_project: Callable[[str, Callable[[Path], None], Path], Path], tmp_path: Path) -> Path:
    """A fresh copy of the demo project (built once per session, copied for each test)."""
    return copy_project("demo", build_demo, tmp_path / "data")


@pytest.fixture
def app_url(demo: Path) -> Iterator[str]:
    with serve_app(demo, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url
