"""Issues 8 and 21, in real Chromium: candidate rows with long text, and a multi-line paste.

* Rows with long text (long multiword and cross-PoS candidates, candidates standing for several senses) show the
  whole candidate — it wraps, nothing is cut (issue 21: "prendere un giorno libe…" hid the rest) — with the Move /
  Remove buttons beside it in the row, at 1280×800 and 1920×1080; the row's title holds everything as well.
* Three lines pasted into "Add to GOOD" (one invalid) add nothing — the database is unchanged — and the page names
  the bad line (acceptance 1, second half).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser import chromium_page, log_in, new_context, settle
from playwright.sync_api import Browser, Page, expect

from annotator.domain.model import Side
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.e2e
ITEM, LANG = "shot-whiskey", "IT"
LONG_GOOD = (
    "prendersi un lunghissimo bicchierino di grappa invecchiata dopo una cena di famiglia molto lunga",
    "[bere tutto d'un fiato un bicchierino di grappa della casa]_VERB",
)
LONG_BAD = "colpo sparato da una pistola di grosso calibro durante una gara di tiro a segno all'aperto"

#: For every candidate row of the work area: its text, title and boxes, and whether the text is cut anywhere.
ROWS_JS = """() => Array.from(document.querySelectorAll('.ca .ca-row')).map(row => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
                                                                      right: r.right, height: r.height}; };
  const code = row.querySelector('code');
  return {text: code.textContent, title: row.querySelector('.ca-text').title, text_box: box(code), row_box: box(row),
          buttons: Array.from(row.querySelectorAll('button')).map(box),
          line_height: parseFloat(getComputedStyle(code).lineHeight),
          cut: code.scrollWidth > code.clientWidth + 1 || getComputedStyle(code).textOverflow === 'ellipsis'};
})"""


def add_long_candidates(demo_dir: Path) -> None:
    project = Project.open(demo_dir)
    user = authenticate(project, "translator", "demo-translator-pass")
    assert user is not None
    service = CurationService(project, user)
    for text in LONG_GOOD:
        version = service.view(ITEM, LANG).state.version
        service.add_candidate(ITEM, LANG, Side.GOOD, text, version)
    service.add_candidate(ITEM, LANG, Side.BAD, LONG_BAD, service.view(ITEM, LANG).state.version)


def check_rows(page: Page) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = page.evaluate(ROWS_JS)
    assert len(rows) >= 3 + len(LONG_GOOD) + 1, rows  # the demo's own candidates and the long ones
    for row in rows:
        text, buttons, box = row["text_box"], row["buttons"], row["row_box"]
        assert len(buttons) == 2, row
        assert not row["cut"], row  # shown in full
        for button in buttons:  # beside the text, inside the row
            assert button["left"] >= text["right"] - 1, row
            assert box["top"] - 1 <= button["top"] and button["bottom"] <= box["bottom"] + 1, row
        assert box["top"] - 1 <= text["top"] and text["bottom"] <= box["bottom"] + 1, row
        assert row["text"] in row["title"], row  # and on hover
    return rows


def test_rows_with_long_text_wrap_and_show_in_full(app_url: str, demo: Path, chromium: Browser) -> None:
    add_long_candidates(demo)
    with chromium_page(chromium, 1280, 800) as page:
        page.goto(f"{app_url}/curate?item={ITEM}&lang={LANG}")
        log_in(page, "translator", "demo-translator-pass")
        main = page.get_by_test_id("stMain")
        expect(main.locator("code").get_by_text(LONG_BAD, exact=True)).to_be_attached()
        settle(page)
        rows = check_rows(page)
        long_texts = {*LONG_GOOD, LONG_BAD}
        assert {row["text"] for row in rows} >= long_texts
        wrapped = [row for row in rows if row["text"] in long_texts]
        assert all(row["text_box"]["height"] > 1.5 * row["line_height"] for row in wrapped)  # on several lines
        assert any("sense 1" in row["title"] and "sense 2" in row["title"] for row in rows)  # colpo: 2 senses

        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        check_rows(page)


def test_pasting_three_lines_one_invalid_adds_nothing_and_names_it(app_url: str, demo: Path, chromium: Browser) -> None:
    project = Project.open(demo)
    with project.db.read() as conn:
        before = project.repo.get_item_language(conn, ITEM, LANG)
    assert before is not None
    pasted = "sorso\nprend* permesso\ncicchetto"
    context = new_context(chromium, 1366, 768)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(app_url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page).to_have_url(f"{app_url}/curate?item={ITEM}&lang={LANG}")
        page.evaluate("text => navigator.clipboard.writeText(text)", pasted)
        expect(page.locator(".ca-side[data-side=good] .ca-row").first).to_be_focused()  # arrival: the list
        page.keyboard.press("g")  # to the Add box
        expect(page.get_by_role("textbox", name="Add to GOOD")).to_be_focused()
        page.keyboard.press("Control+V")  # a real paste of three lines

        # the page names the bad line, and only that one, under the box
        error = page.locator('.ca-feedback[data-where="good"] [role="alert"]')
        expect(error).to_contain_text("line 2 'prend* permesso'")
        expect(error).to_contain_text("'*' must be a token of its own")
        expect(error).not_to_contain_text("line 1")
        expect(error).not_to_contain_text("line 3")
        expect(error).to_be_in_viewport()
        settle(page)
        # the three lines are kept to be fixed, nothing glued into the one-line box
        expect(page.get_by_role("textbox", name="GOOD candidates, one per line")).to_have_value(pasted)
        expect(page.get_by_role("textbox", name="Add to GOOD")).to_have_value("")

        with project.db.read() as conn:
            after = project.repo.get_item_language(conn, ITEM, LANG)
        assert after == before  # nothing was added: same candidates, same version
    finally:
        context.close()


def test_every_candidate_of_a_long_list_is_reachable_with_the_cursor(
    app_url: str, demo: Path, chromium: Browser
) -> None:
    """Issue 21: digits reached nine candidates; the cursor reaches all, and its list scrolls in its own panel."""
    project = Project.open(demo)
    user = authenticate(project, "translator", "demo-translator-pass")
    assert user is not None
    service = CurationService(project, user)
    extra = [f"lungo{n:02d}" for n in range(14)]
    version = service.view(ITEM, LANG).state.version
    for text in extra:
        version = service.add_candidate(ITEM, LANG, Side.BAD, text, version).version
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(app_url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page.locator(".ca-side[data-side=good] .ca-row").first).to_be_focused()  # arrival: GOOD's first row
        bad = page.locator(".ca-side[data-side=bad] .ca-row")
        total = 2 + bad.count()  # GOOD goccio, bicchierino, then every BAD candidate
        for _ in range(total - 1):
            page.keyboard.press("j")
        last = bad.last
        expect(last).to_be_focused()
        expect(last).to_have_attribute("aria-label", extra[-1])
        expect(last).to_be_in_viewport()  # scrolled into view inside the list's own panel
        scrolled = page.locator(".ca-side[data-side=bad] .ca-rows").evaluate("ul => ul.scrollTop")
        assert scrolled > 0
        expect(page.get_by_test_id("item-sentence")).to_be_in_viewport()  # the page itself did not scroll away
        page.keyboard.press("m")  # move the candidate under the cursor to GOOD
        expect(page.locator(".ca [role=status]").filter(has_text=f"Moved {extra[-1]} to GOOD.")).to_be_visible()
        settle(page)
        with project.db.read() as conn:
            state = project.repo.get_item_language(conn, ITEM, LANG)
        assert state is not None and state.good[-1].text == extra[-1]
        assert extra[-1] not in [e.text for e in state.bad]
