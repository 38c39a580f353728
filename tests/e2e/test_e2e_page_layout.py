"""Pages at 1366×768 in real Chromium: the work area's header on one line (it wrapped, leaving "IT" or "1" alone),
nothing above the work area right after the log-in (the frame that sets the session cookie showed as a grey dash
and pushed the page down), People's Languages box holding both of a translator's language pills whole, and "Reset
password" asking first, as "Disable account" does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import chromium_page, log_in, serve_app, server_env, settle
from playwright.sync_api import Browser, Page, expect

from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, copy_demo: Callable[[Path], Path]) -> Path:
    """One demo project for both tests: the header test flags an item the People test never shows, and the People
    test changes nothing (it checks so), so either order sees what it would see alone."""
    return copy_demo(tmp_path_factory.mktemp("page-layout") / "data")


@pytest.fixture(scope="module")
def app_url(demo: Path) -> Iterator[str]:
    with serve_app(demo, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url


#: Each header line of the work area: its text, how many line boxes it takes, and whether all of it is in view.
HEADER_JS = """() => ['.ca-position', '.ca-progress'].map(s => { const n = document.querySelector(s);
  const lines = Math.round(n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight));
  return {text: n.textContent, lines, whole: n.scrollWidth <= n.clientWidth}; })"""
#: Each language pill of People's edit form, and whether it lies whole inside its box.
PILLS_JS = """() => { const box = Array.from(document.querySelectorAll('[data-testid="stMultiSelect"]'))
    .find(m => m.innerText.includes('IT — Italian'));
  const outer = box.querySelector('[data-testid="stMultiSelectTagsContainer"]').getBoundingClientRect();
  return Array.from(box.querySelectorAll('[data-tag]')).map(tag => { const r = tag.getBoundingClientRect();
    const label = tag.querySelector('[title]');
    return {text: label.textContent, inside: r.left >= outer.left && r.right <= outer.right && r.top >= outer.top
              && r.bottom <= outer.bottom && r.width > 0,
            whole: label.scrollWidth <= label.clientWidth + 1}; }); }"""


def check_header(page: Page) -> None:
    page.wait_for_function(  # both lines drawn (a loaded machine may be a frame behind)
        "() => ['.ca-position', '.ca-progress'].every(s => (document.querySelector(s)?.textContent ?? '').trim())"
    )
    for line in page.evaluate(HEADER_JS):
        assert line["lines"] == 1 and line["whole"], line


def test_the_work_area_header_is_one_line_in_curate_and_review(app_url: str, demo: Path, chromium: Browser) -> None:
    project = Project.open(demo)
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    service.flag_discuss("head-stream", "IT", "Which sense?", service.view("head-stream", "IT").state.version)
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(app_url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page.locator(".ca-position")).to_contain_text("Item 1 of")
        settle(page)
        top = page.locator(".ca").bounding_box()
        check_header(page)
        page.reload()  # no cookie to set now: the page as it always is
        expect(page.locator(".ca-position")).to_contain_text("Item 1 of")
        settle(page)
        again = page.locator(".ca").bounding_box()
        assert top is not None and again is not None and abs(top["y"] - again["y"]) < 1, (top, again)
        frame = page.locator(".st-key-cookie_frame")
        assert frame.count() == 0 or (frame.bounding_box() or {"height": 0})["height"] == 0
        page.goto(f"{app_url}/curate?item=book-table&lang=IT")  # the last item: the longest position
        expect(page.locator(".ca-id")).to_contain_text("book-table")
        settle(page)
        check_header(page)
        page.get_by_role("button", name="Log out").click()
        log_in(page, "lead", "demo-lead-pass")
        settle(page)
        page.goto(f"{app_url}/review")
        expect(page.locator(".ca-position")).to_contain_text("DISCUSS 1 of 1")
        settle(page)
        check_header(page)


def test_people_shows_both_language_pills_and_asks_before_a_reset(app_url: str, demo: Path, chromium: Browser) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(app_url)
        log_in(page, "lead", "demo-lead-pass")
        page.goto(f"{app_url}/people")
        expect(page.get_by_role("heading", name="People")).to_be_visible()
        settle(page)
        page.get_by_role("combobox", name="Account").click()
        page.get_by_role("option", name="translator").click()
        expect(page.locator('[data-tag][aria-label="DE — German"]')).to_be_visible()
        settle(page)
        pills = page.evaluate(PILLS_JS)
        assert sorted(p["text"] for p in pills) == ["DE — German", "IT — Italian"], pills
        assert all(p["inside"] and p["whole"] for p in pills), pills

        page.get_by_role("button", name="Reset password").click()
        expect(page.get_by_text("Reset translator's password?")).to_be_visible()
        settle(page)
        expect(page.get_by_test_id("stCode")).to_have_count(0)  # nothing reset yet
        assert authenticate(Project.open(demo), "translator", "demo-translator-pass") is not None
        page.get_by_role("button", name="Cancel").click()
        settle(page)
        expect(page.get_by_role("button", name="Reset password")).to_be_visible()
        assert authenticate(Project.open(demo), "translator", "demo-translator-pass") is not None
