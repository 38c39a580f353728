"""Issue 34 in a real browser (headless Chromium at 1366×768): the app looks the same wherever it is served, and
the pages a newcomer met (Items, Review, Evaluate, Dataset, Agreement) fit the screen.

Screenshots go to the test's temporary folder; with ``ANNOTATOR_UPDATE_SCREENSHOTS=1`` they also refresh
``docs/screenshots/*-1366x768.png``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import chromium_page, log_in, serve_app, server_env, settle
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.e2e

#: The package's theme colour (annotator/app/streamlit_config.toml), as the browser computes it.
SLATE = "rgb(59, 91, 122)"
#: The colour of the Done button's background as the browser computes it.
DONE_BACKGROUND_JS = """() => getComputedStyle(document.querySelector('.ca button[data-cmd="done"]')).backgroundColor"""


def test_served_from_another_folder_the_done_button_wears_the_package_theme(
    demo: Path, tmp_path: Path, chromium: Browser
) -> None:
    """``annotator serve --data DATA`` started in a folder without any Streamlit settings (as from /tmp): the
    theme is the package's, so Done is slate, not Streamlit's red."""
    data, elsewhere = demo, tmp_path / "elsewhere"
    elsewhere.mkdir()
    with (
        serve_app(data, server_env("ANNOTATOR_DATABASE_URL"), cwd=elsewhere) as url,
        chromium_page(chromium, 1366, 768) as page,
    ):
        page.goto(url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page.locator('.ca button[data-cmd="done"]')).to_be_visible()
        settle(page)
        assert page.evaluate(DONE_BACKGROUND_JS) == SLATE


#: Each download button of the Dataset page: its label's full width against the width shown, and where it starts.
DOWNLOADS_JS = """() => Array.from(document.querySelectorAll('[class*="st-key-dataset_dl_"] button')).map(b => {
  const r = b.getBoundingClientRect(); const label = b.querySelector('p') || b;
  return {text: b.textContent.trim(), left: r.left, right: r.right, top: r.top,
          cut: label.scrollWidth > label.clientWidth + 1};
})"""


def tables_drawn(page) -> None:  # type: ignore[no-untyped-def]
    """Wait until every data grid in view has drawn its canvas (they paint after the run is over)."""
    settle(page)
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'))
             .filter(f => { const r = f.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })
             .every(f => f.querySelector('.dvn-scroller') && f.querySelector('canvas'))"""
    )
    page.wait_for_timeout(600)


@pytest.fixture(scope="module")
def curated_demo(tmp_path_factory: pytest.TempPathFactory, copy_demo: Callable[[Path], Path]) -> Path:
    """The curated demo (tests/test_export.py) with a finished export and a finished evaluation of the page."""
    from export_data import curate_demo

    from annotator.domain.jobs import JobState
    from annotator.project import Project, builtin_path
    from annotator.services import jobs

    data = copy_demo(tmp_path_factory.mktemp("first-day-pages") / "data")
    curate_demo(data)
    project = Project.open(data)
    export = jobs.start(project, "export", {"include_incomplete": True})
    assert jobs.wait(project, export.id, timeout=120).state is JobState.DONE
    translations = builtin_path("demo/translations.jsonl")
    evaluation = jobs.start(
        project,
        "evaluate",
        {"page": True, "current": True, "translations": str(translations), "translations_name": translations.name},
    )
    assert jobs.wait(project, evaluation.id, timeout=300).state is JobState.DONE
    return data


def test_the_pages_a_newcomer_met_fit_1366x768(curated_demo: Path, tmp_path: Path, chromium: Browser) -> None:
    """Items, Review, Evaluate, Dataset and Agreement at 1366×768 as a lead: tables that do not scroll sideways
    where the issue met it, download buttons whole and evenly spaced, Evaluate's inputs only when they apply, the
    team rate over the days worked; a screenshot of each (docs/screenshots/*-1366x768.png, looked at)."""
    from browser import save_screenshot

    with (
        serve_app(curated_demo, server_env("ANNOTATOR_DATABASE_URL")) as url,
        chromium_page(chromium, 1366, 768) as page,
    ):
        page.goto(url)
        log_in(page, "lead", "demo-lead-pass")

        page.goto(f"{url}/items")
        expect(page.get_by_role("heading", name="Items")).to_be_visible()
        tables_drawn(page)
        expect(page.get_by_text("tick the box at the left of its row")).to_be_visible()
        save_screenshot(page, tmp_path, "items-1366x768.png")

        page.goto(f"{url}/review")
        page.get_by_role("tab", name="Progress").click()
        expect(page.get_by_text("Throughput", exact=False).first).to_be_visible()
        tables_drawn(page)
        throughput = page.get_by_text("team rate", exact=False).first
        throughput.scroll_into_view_if_needed()
        expect(throughput).to_contain_text("over 1 day(s) (from the week's first change")
        save_screenshot(page, tmp_path, "review-progress-1366x768.png")

        page.goto(f"{url}/evaluate")
        expect(page.get_by_role("heading", name="Metrics")).to_be_visible()
        settle(page)
        # the inputs that do not apply are not shown: scoring the current curation with the default analyser
        expect(page.get_by_text("Stanza model folder")).to_have_count(0)
        expect(page.get_by_text("dataset.jsonl", exact=True)).to_have_count(0)
        save_screenshot(page, tmp_path, "evaluate-1366x768.png")
        metrics = page.locator(".st-key-evaluate_metrics")
        metrics.scroll_into_view_if_needed()
        tables_drawn(page)
        overflow = metrics.evaluate(
            "frame => { const s = frame.querySelector('.dvn-scroller'); return s.scrollWidth - s.clientWidth; }"
        )
        assert overflow <= 1, f"the metrics table scrolls sideways by {overflow} px"
        save_screenshot(page, tmp_path, "evaluate-metrics-1366x768.png")
        page.get_by_text("Accuracy per language").evaluate("e => e.scrollIntoView({block: 'start'})")
        tables_drawn(page)
        page.wait_for_timeout(500)
        save_screenshot(page, tmp_path, "evaluate-charts-1366x768.png")

        page.goto(f"{url}/dataset")
        expect(page.get_by_text("Last export")).to_be_visible()
        settle(page)
        page.get_by_text("Last export").scroll_into_view_if_needed()
        settle(page)
        buttons = page.evaluate(DOWNLOADS_JS)
        assert len(buttons) == 7 and not [b["text"] for b in buttons if b["cut"]], buttons
        rows: dict[float, list[dict]] = {}
        for button in buttons:
            rows.setdefault(round(button["top"]), []).append(button)
        gaps = {round(b["left"] - a["right"]) for row in rows.values() for a, b in itertools.pairwise(row)}
        assert len(gaps) == 1, f"uneven gaps between the download buttons: {gaps}"
        save_screenshot(page, tmp_path, "dataset-1366x768.png")

        page.goto(f"{url}/agreement")
        expect(page.get_by_role("heading", name="Agreement between translators")).to_be_visible()
        settle(page)
        table = page.locator(".st-key-agreement_figures")
        table.scroll_into_view_if_needed()
        tables_drawn(page)
        overflow = table.evaluate(
            "frame => { const s = frame.querySelector('.dvn-scroller'); return s.scrollWidth - s.clientWidth; }"
        )
        assert overflow <= 1, f"the agreement table scrolls sideways by {overflow} px (a header cut)"
        save_screenshot(page, tmp_path, "agreement-1366x768.png")
