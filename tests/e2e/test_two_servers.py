"""Several app servers, one PostgreSQL database (issue 10): two ``annotator serve`` processes on their own ports,
a translator on each editing the same item-language in headless Chromium — the second save is refused and the
page shows the current state, with the first server's change in it.

The servers get different ``--data`` folders: the project is the database, not a folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env, settle
from playwright.sync_api import Browser, expect

from annotator.project import Project

pytestmark = pytest.mark.e2e


@pytest.fixture
def two_servers(shared_database: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    env = {**server_env(), "ANNOTATOR_DATABASE_URL": shared_database}
    with (
        serve_app(tmp_path / "server-a", env, deadline_s=60) as url_a,
        serve_app(tmp_path / "server-b", env, deadline_s=60) as url_b,
    ):
        yield url_a, url_b


def test_two_servers_one_database_the_second_save_is_refused_with_the_current_state(
    two_servers: tuple[str, str], tmp_path: Path, chromium: Browser
) -> None:
    url_a, url_b = two_servers
    pages = []
    for url in (url_a, url_b):
        context = new_context(chromium, 1440, 1500)
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

    project = Project.open(tmp_path / "anywhere")  # the database is the project, whatever the folder
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "shot-whiskey", "IT")
        history = project.repo.history(conn, "shot-whiskey", "IT")
    assert saved is not None and [e.text for e in saved.good] == ["goccio", "bicchierino", "sorso"]
    assert [(h.user, h.action) for h in history if h.action == "add"] == [("translator", "add")]  # one save only
