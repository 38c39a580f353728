"""Issue 20 point 8 in a real browser: ``annotator serve`` on PostgreSQL, the server restarted and then stopped
between a translator's actions. After the restart the next save just works; while the server is down the page
shows one message (the database is not answering, the change was not saved) — no traceback, no server address,
no SQL — and keeps what was typed, so the same click saves it once the server is back.

The PostgreSQL cluster is this module's own (tests/pg_cluster.py): stopping it disturbs no other test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env, settle
from pg_cluster import Cluster, create_database
from playwright.sync_api import Browser, Page, expect
from project_helpers import build_demo

from annotator.project import Project

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
NOT_SAVED = "The database is not answering; your last change was not saved. Try again in a moment."


@pytest.fixture
def served(cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = create_database(cluster.url(), "annotator_e2e")
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
    build_demo(tmp_path / "demo")
    with serve_app(tmp_path / "demo", server_env(), deadline_s=60) as app_url:
        yield app_url


def add_good(page: Page, candidate: str) -> None:
    page.get_by_role("textbox", name="Add to GOOD").fill(candidate)
    page.get_by_role("button", name="Add to GOOD", exact=True).click()


def no_raw_error(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    body = page.locator("body").inner_text()
    for leak in ("Traceback", "OperationalError", "psycopg", "127.0.0.1", "SELECT"):
        assert leak not in body, leak


def test_a_postgresql_restart_and_outage_between_actions_in_a_real_browser(
    served: str, cluster: Cluster, tmp_path: Path, chromium: Browser
) -> None:
    context = new_context(chromium, 1440, 1500)
    page = context.new_page()
    page.goto(served)
    log_in(page, "translator", "demo-translator-pass")
    expect(page.get_by_text("GOOD (2)")).to_be_visible()

    cluster.restart()  # between two actions: the next one just works
    add_good(page, "sorso")
    expect(page.get_by_text("GOOD (3)")).to_be_visible()
    settle(page)
    no_raw_error(page)

    cluster.stop_server()
    try:
        add_good(page, "cicchetto")
        expect(page.get_by_text(NOT_SAVED)).to_be_visible()
        settle(page)
        expect(page.get_by_text(NOT_SAVED)).to_have_count(1)  # one message
        no_raw_error(page)
    finally:
        cluster.start_server()

    page.get_by_role("button", name="Try again").click()
    expect(page.get_by_role("textbox", name="Add to GOOD")).to_have_value("cicchetto")  # kept to redo
    page.get_by_role("button", name="Add to GOOD", exact=True).click()
    expect(page.get_by_text("GOOD (4)")).to_be_visible()
    settle(page)
    no_raw_error(page)

    project = Project.open(tmp_path / "anywhere")  # the database is the project
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "shot-whiskey", "IT")
    assert saved is not None and [e.text for e in saved.good] == ["goccio", "bicchierino", "sorso", "cicchetto"]
    project.db.dispose()
