"""Issue 34, point 7, in headless Chromium at 1366×768: a lead reaches Curate's Queue and Search without scrolling,
and the work area's top stays put from one item to the next (it jumped 49 px where a short item could not scroll
to where a long one had put it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import SharedChromium, chromium_page, log_in, save_screenshot, serve_app, server_env, settle
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

WIDTH, HEIGHT = 1366, 768


@pytest.fixture(scope="module")
def lead_page(
    tmp_path_factory: pytest.TempPathFactory, copy_demo: Callable[[Path], Path], shared_chromium: SharedChromium
) -> Iterator[tuple[Page, str]]:
    """The demo served, a lead signed in on Curate in a 1366×768 window."""
    data = copy_demo(tmp_path_factory.mktemp("curate-layout") / "data")
    with (
        serve_app(data, server_env("ANNOTATOR_DATABASE_URL")) as url,
        chromium_page(shared_chromium.get(), WIDTH, HEIGHT) as page,
    ):
        page.goto(url)
        log_in(page, "lead", "demo-lead-pass")
        expect(page.locator(".ca")).to_be_visible()
        yield page, url


def test_a_leads_queue_and_search_are_in_view_without_scrolling(lead_page: tuple[Page, str], tmp_path: Path) -> None:
    page, _url = lead_page
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("link", name="Dataset")).to_be_visible()  # the whole lead navigation is above them
    for name in ("Language", "Queue", "Search"):
        box = sidebar.get_by_label(name, exact=True).first.bounding_box()
        assert box is not None, name
        assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, (name, box)
    scrolled = page.evaluate("""() => document.querySelector('[data-testid="stSidebarContent"]').scrollTop""")
    assert scrolled == 0
    expect(sidebar.get_by_role("combobox", name="Language")).to_have_value("DE — German")  # by its name
    save_screenshot(page, tmp_path, "curate-lead-1366x768.png")


def test_the_work_areas_top_stays_put_from_item_to_item(lead_page: tuple[Page, str], tmp_path: Path) -> None:
    """Long items (that the page scrolls) and short ones (that it cannot) in a row: the top moves a few px at most."""
    page, url = lead_page
    page.goto(f"{url}/curate?item=shot-whiskey&lang=IT")
    expect(page.locator(".ca-id")).to_contain_text("shot-whiskey · IT")
    settle(page)
    tops: dict[str, float] = {}
    for _ in range(8):
        page.wait_for_timeout(200)  # the area scrolls itself into place after drawing the item
        box = page.locator(".ca").bounding_box()
        assert box is not None
        tops[str(page.locator(".ca-id").text_content())] = box["y"]
        page.locator('.ca button[data-cmd="next"]').click()
        settle(page)
    assert len(tops) == 8, tops
    assert max(tops.values()) - min(tops.values()) <= 3, tops
    assert all(0 <= top < 100 for top in tops.values()), tops  # and near the window's top, under Streamlit's bar
    save_screenshot(page, tmp_path, "curate-item-1366x768.png")
