"""Single keys act on arrival, in real Chromium at 1366×768: no text box holds the caret on a new item, so ``d``
marks it Done at once (an item with GOOD candidates), or says at once why it cannot (an empty GOOD list, with and
without BAD candidates; ``g`` word Enter ``d`` then marks it Done).

Also: Discard's first Enter confirms (as its panel says); an earlier banner ("Nothing to undo …") goes when the panel
opens; ``u`` undoes a Done on the item just left after a manual ``n`` as after "Next item after Done"; the legend
says where the cursor is on arrival and after an add.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import chromium_page, settle
from keyboard import check_arrival, check_feedback, item_of, log_in_translator
from playwright.sync_api import Browser, Page, expect

from annotator.domain.model import Status
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.e2e
LANG = "IT"


def status_of(demo_dir: Path, item: str) -> Status:
    project = Project.open(demo_dir)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, LANG)
    assert state is not None
    return state.status


def open_item(page: Page, url: str, item: str) -> None:
    page.goto(f"{url.rstrip('/')}/curate?item={item}&lang={LANG}")
    expect(page.locator(".ca-id")).to_contain_text(item)
    settle(page)


def test_d_marks_the_item_done_on_arrival_with_and_without_good_candidates(
    app_url: str, demo: Path, chromium: Browser
) -> None:
    project = Project.open(demo)
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    empty_good = "head-stream"
    state = service.view(empty_good, LANG).state
    service.replace_candidates(empty_good, LANG, [], [e.format() for e in state.bad], state.version)
    both_empty = "bank-river"
    service.replace_candidates(both_empty, LANG, [], [], service.view(both_empty, LANG).state.version)
    with chromium_page(chromium, 1366, 768) as page:
        log_in_translator(page, app_url)
        first = item_of(page)
        assert page.locator(".ca-side[data-side=good] .ca-row").count() > 0
        for item in (first, empty_good, both_empty):
            if item != first:
                open_item(page, app_url, item)
            else:
                settle(page)
            check_arrival(page)  # the focus is in the work area, and not in a text box
            if item != first:  # d acts at once: here Done is refused (GOOD is empty), nothing typed into a box
                page.keyboard.press("d")
                check_feedback(page, "An item needs at least one GOOD candidate to be done")
                expect(page.get_by_role("textbox", name="Add to GOOD")).to_have_value("")
                page.keyboard.press("g")  # g starts a GOOD word; after the add, single keys act again
                page.keyboard.type("ruscello")
                page.keyboard.press("Enter")
                check_feedback(page, "Added ruscello to GOOD.")
                settle(page)
            page.keyboard.press("d")  # one key: no Esc first
            check_feedback(page, f"Marked {item} done.")
            settle(page)
            assert status_of(demo, item) is Status.DONE, item
            for box in ("Add to GOOD", "Add to BAD"):
                expect(page.get_by_role("textbox", name=box)).to_have_value("")  # nothing typed into a box


def test_discard_enter_confirms_and_u_after_a_manual_n_undoes_the_done(
    app_url: str, demo: Path, chromium: Browser
) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        log_in_translator(page, app_url)
        settle(page)
        item = item_of(page)
        page.keyboard.press("u")
        check_feedback(page, "Nothing to undo")
        page.keyboard.press("x")  # the Discard panel: the earlier banner goes
        expect(page.get_by_role("combobox", name="Discard reason")).to_be_focused()
        expect(page.locator(".ca [role=alert]").filter(has_text="Nothing to undo")).to_have_count(0)
        page.keyboard.press("ArrowDown")  # the first reason
        page.keyboard.press("Enter")  # confirms at once, as "Enter confirms" says
        check_feedback(page, f"Discarded {item}")
        settle(page)
        assert status_of(demo, item) is Status.DISCARDED
        page.keyboard.press("u")
        check_feedback(page, "Undone")
        settle(page)
        assert status_of(demo, item) is Status.PENDING

        page.keyboard.press("d")  # Done, staying on the item ("Next item after Done" is off)
        check_feedback(page, f"Marked {item} done.")
        settle(page)
        assert item_of(page) == item and status_of(demo, item) is Status.DONE
        page.keyboard.press("n")  # a manual step
        settle(page)
        assert item_of(page) != item
        undo = page.locator('[data-cmd="undo"]')
        expect(undo).to_have_attribute("title", f"Undo your Done on {item}, the item you just left (u).")
        page.keyboard.press("u")  # undoes the Done on the item just left, and shows it
        check_feedback(page, "Undone")
        settle(page)
        assert status_of(demo, item) is Status.PENDING and item_of(page) == item

        page.keyboard.press("?")  # the legend says what arrival and an add do
        legend = page.locator(".ca-legend")
        expect(legend).to_contain_text("no text box has the caret")
        expect(legend).to_contain_text("The cursor then goes to the row just added")
        expect(legend).to_contain_text("Enter confirms")
