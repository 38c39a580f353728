"""End to end: the real app (``annotator serve``) in headless Chromium — log in, curate, reload, review.

It takes screenshots of Curate and Review into the test's temporary folder; with ``ANNOTATOR_UPDATE_SCREENSHOTS=1``
it also refreshes ``docs/screenshots/curate.png``, ``review.png`` and ``review-1366x768.png`` /
``review-1920x1080.png`` (only on request, never on an ordinary run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import (
    SharedChromium,
    chromium_page,
    log_in,
    save_screenshot,
    serve_app,
    server_env,
    settle,
)
from playwright.sync_api import Page, expect

from annotator.domain.model import DiscardReason, Status
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def project_dir(tmp_path_factory: pytest.TempPathFactory, copy_demo: Callable[[Path], Path]) -> Path:
    """The demo project, with one DISCUSS and one discarded item so the Review page has something to show."""
    data = copy_demo(tmp_path_factory.mktemp("e2e") / "data")
    project = Project.open(data)
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    service.flag_discuss("head-stream", "IT", "Is 'capo' really BAD here? 'capo del fiume' is sometimes used.", 1)
    service.discard("run-relief", "DE", DiscardReason.IDIOM, "", 1)
    return data


@pytest.fixture(scope="module")
def app_url(project_dir: Path) -> Iterator[str]:
    with serve_app(project_dir, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url


@pytest.fixture(scope="module")
def page(app_url: str, shared_chromium: SharedChromium) -> Iterator[Page]:
    with chromium_page(shared_chromium.get(), 1440, 1700) as page:
        yield page


def type_candidate(page: Page, side: str, text: str) -> None:
    box = page.get_by_role("textbox", name=f"Add to {side}")
    box.fill(text)  # the work area checks it after a short pause in typing (Enter would add it)


def test_curate_reload_and_review_in_a_real_browser(
    app_url: str, page: Page, project_dir: Path, tmp_path: Path
) -> None:
    page.goto(app_url)
    log_in(page, "translator", "demo-translator-pass")
    expect(page.get_by_text("Item 1 of 17")).to_be_visible()  # 18 items, one of them already DISCUSS
    expect(page).to_have_url(f"{app_url}/curate?item=shot-whiskey&lang=IT")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("He poured a")).to_be_visible()

    type_candidate(page, "GOOD", "sorso")
    expect(page.get_by_text("valid: will be saved as sorso")).to_be_visible()
    page.get_by_role("button", name="Add to GOOD", exact=True).click()
    expect(main.get_by_text("sorso", exact=True)).to_be_visible()
    expect(page.get_by_text("GOOD (3)")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Added sorso to GOOD.")).to_be_in_viewport()
    settle(page)

    # live validation names the problem under the box; shown in the screenshot
    type_candidate(page, "BAD", "prend* permesso")
    expect(page.get_by_text("'*' must be a token of its own")).to_be_visible()
    settle(page)
    page.get_by_text("All 6 senses of").click()  # the other senses, for the screenshot
    expect(main.get_by_text("← this item (σ)")).to_be_visible()
    viewport = page.viewport_size
    page.set_viewport_size({"width": 1366, "height": 768})  # the size translators work at (issue 21)
    settle(page)
    save_screenshot(page, tmp_path, "curate.png")
    assert viewport is not None
    page.set_viewport_size(viewport)

    page.get_by_role("button", name="Done", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Marked shot-whiskey done.")).to_be_in_viewport()
    settle(page)

    project = Project.open(project_dir)
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "shot-whiskey", "IT")
    assert saved is not None and saved.status is Status.DONE and saved.status_by == "translator"
    assert [e.text for e in saved.good] == ["goccio", "bicchierino", "sorso"]

    # a reload is a new session: the login survives it (session cookie), the URL brings the same item back
    page.reload()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    settle(page)
    expect(page).to_have_url(f"{app_url}/curate?item=shot-whiskey&lang=IT")
    expect(main.get_by_text("sorso", exact=True)).to_be_visible()
    expect(page.get_by_test_id("item-status")).to_have_text("done")
    expect(page.get_by_test_id("item-version")).to_have_text(f"v{saved.version}")
    expect(page.get_by_role("button", name="Reopen")).to_be_visible()

    page.get_by_role("button", name="Log out").click()
    log_in(page, "lead", "demo-lead-pass")
    page.get_by_role("link", name="Review").click()
    expect(page.get_by_role("heading", name="Review")).to_be_visible()
    expect(page.get_by_text("1 item-language(s) flagged DISCUSS.")).to_be_visible()
    expect(page.get_by_text("Resolve this DISCUSS item")).to_be_visible()
    settle(page)
    page.set_viewport_size({"width": 1440, "height": 1950})  # the whole DISCUSS item, down to the resolve form
    expect(page.get_by_text("Resolve as")).to_be_visible()
    expect(page.get_by_role("textbox", name="Add a comment")).to_be_visible()
    expect(page.get_by_role("radio", name="done")).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    settle(page)
    page.wait_for_timeout(500)  # the table draws on a canvas after it is attached
    save_screenshot(page, tmp_path, "review.png")
    for width, height in ((1366, 768), (1920, 1080)):  # the sizes translators and leads work at (issue 8)
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        expect(page.get_by_role("heading", name="Review")).to_be_in_viewport()
        expect(page.get_by_text("1 item-language(s) flagged DISCUSS.")).to_be_in_viewport()
        save_screenshot(page, tmp_path, f"review-{width}x{height}.png")
