"""Issue 33 (acceptance 4 and 5), in real Chromium at 1366×768, keyboard only: on an item whose GOOD list starts
empty, the reason is in view on arrival and the cursor is on the first suggestion, so accepting it into GOOD is one
command key (``+``); the focus then stays in the suggestions (``Delete`` dismisses the next, ``-`` accepts one into
BAD), every feedback in view; typing a word tells which sense it lexicalizes. Writes the documentation screenshot
``curate-suggestions.png`` (copied to docs/screenshots with ANNOTATOR_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium_page, log_in, save_screenshot, serve_app, server_env, settle
from keyboard import Keys, check_feedback
from playwright.sync_api import Browser, Page, expect
from suggestion_data import ENGLISH, ITALIAN, ITALIAN_NOT_ALLOWED, ITEMS, other

from annotator.domain.model import Role, Side
from annotator.lexicon.wordnet import add_lexicons
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate
from annotator.services.suggestions.card import card_view

pytestmark = pytest.mark.e2e
FOCUSED_JS = "() => { const a = document.activeElement; return a && (a.getAttribute('aria-label') || a.className); }"
IN_VIEW_JS = """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: window.innerHeight,
          width: window.innerWidth}; }"""


def in_view(page: Page, selector: str) -> None:
    box = page.evaluate(IN_VIEW_JS, selector)
    assert 0 <= box["top"] < box["bottom"] <= box["height"] and 0 <= box["left"] < box["right"] <= box["width"], box


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """An Italian wordnet project (SQLite): σ of a1 and a2 (a drink of liquor) has no word in the allowed lexicon,
    one in a lexicon not allowed and words in related synsets; a translator ivo."""
    folder = tmp_path / "lmf"
    folder.mkdir()
    files = {"sg-en.xml": ENGLISH, "sg-it.xml": other("sg-it", ITALIAN),
             "sg-it2.xml": other("sg-it2", ITALIAN_NOT_ALLOWED)}  # fmt: skip
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    project = Project.open(tmp_path / "data", create=True)
    add_lexicons(project.wordnet_folder, [str(folder / name) for name in files])
    project.save_settings(
        ProjectSettings(
            name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"), allowed_sources={"IT": ["sg-it"]}
        )
    )
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(row) + "\n" for row in ITEMS), encoding="utf-8")
    import_items(project, items)
    add_user(project, "lena", Role.LEAD, (), "lena-password-long")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "ivo-password-long")
    prepopulate(project)
    return project.data_dir


@pytest.fixture
def url(data: Path) -> Iterator[str]:
    with serve_app(data, server_env("ANNOTATOR_DATABASE_URL")) as served:
        yield served


def lists(data: Path, item: str) -> tuple[list[str], list[str]]:
    project = Project.open(data)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, "IT")
    assert state is not None
    return [e.candidate.format() for e in state.good], [e.candidate.format() for e in state.bad]  # canonical forms


def test_the_reason_is_in_view_and_the_first_suggestion_is_one_key_away(
    url: str, data: Path, tmp_path: Path, chromium: Browser
) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(url)
        log_in(page, "ivo", "ivo-password-long")
        expect(page.locator(".ca-id")).to_contain_text("a1 · IT")
        reason = page.locator('.ca-side[data-side="good"] .ca-why')
        expect(reason).to_contain_text("None of the Italian lexicons consulted (sg-it) has a word for this sense.")
        in_view(page, '.ca-side[data-side="good"] .ca-why')  # the reason, on arrival, without scrolling
        in_view(page, ".ca-sugg .ca-row")  # and the first suggestion
        expect(page.locator(".ca-sugg-below")).to_be_hidden()  # in view: no "suggestions below" hint
        assert str(page.evaluate(FOCUSED_JS)).startswith("cicchetto, for GOOD")
        save_screenshot(page, tmp_path, "curate-suggestions.png")

        keys = Keys(page)
        keys.press("+")  # accept the first suggestion into GOOD: one command key from arrival
        check_feedback(page, "cicchetto is now in GOOD.")
        settle(page)
        assert keys.presses <= 2
        assert lists(data, "a1") == (["cicchetto"], ["sparo"])
        assert str(page.evaluate(FOCUSED_JS)).startswith("bevanda, for GOOD")  # the cursor stays in the suggestions

        keys.press("Delete")  # dismiss bevanda
        check_feedback(page, "Dismissed bevanda: it will not be suggested to you here again.")
        settle(page)
        assert str(page.evaluate(FOCUSED_JS)).startswith("[sorseggiare]_VERB")  # a verb's word for a noun: cross-PoS
        keys.press("-")  # accept [sorseggiare]_VERB into BAD
        check_feedback(page, "[sorseggiare]_VERB is now in BAD.")
        settle(page)
        assert lists(data, "a1") == (["cicchetto"], ["sparo", "[sorseggiare]_VERB"])
        project = Project.open(data)
        with project.db.read() as conn:
            ivo = project.repo.get_user(conn, "ivo")
        for_ivo = [s.text for s in card_view(project, "a1", "IT", ivo).suggestions]
        for_anyone = [s.text for s in card_view(project, "a1", "IT").suggestions]
        assert "bevanda" not in for_ivo and "bevanda" in for_anyone

        # the legend lists the suggestion keys; Esc closes it
        page.keyboard.press("?")
        expect(page.locator(".ca-legend")).to_contain_text("accept it into GOOD")
        page.keyboard.press("Escape")

        # no stray shortcut: with single-key shortcuts off, + on a suggestion does nothing
        page.get_by_role("switch", name="Single-key shortcuts").uncheck()
        page.keyboard.press("n")  # letters do nothing either: go on with Alt+N
        page.keyboard.press("Alt+N")
        expect(page.locator(".ca-id")).to_contain_text("a2 · IT")
        settle(page)
        expect(page.locator(".ca-sugg .ca-row").first).to_be_focused()
        page.keyboard.press("+")
        settle(page)
        assert lists(data, "a2")[0] == []
        page.get_by_role("switch", name="Single-key shortcuts").check()

        # typing any word in an Add box tells which sense it lexicalizes
        page.locator(".ca-sugg .ca-row").first.focus()
        page.keyboard.press("g")
        page.keyboard.type("cicchetto")
        expect(page.locator('.ca-side[data-side="good"] .ca-hint')).to_have_text(
            "The lexicons have it for this sense (σ) — usually GOOD."
        )

        # accepting the last suggestion: its feedback is still in view (the suggestions' box is gone with them)
        page.keyboard.press("Escape")
        texts = [str(t) for t in page.locator(".ca-sugg .ca-row code").all_text_contents()]
        page.locator(".ca-sugg .ca-row").first.focus()
        for text in texts:
            page.keyboard.press("+")
            check_feedback(page, f"{text} is now in GOOD.")
            settle(page)
        expect(page.locator(".ca-sugg")).to_be_hidden()
        assert lists(data, "a2")[0] == texts
        assert page.evaluate(FOCUSED_JS) == texts[0]  # the cursor on the GOOD list now


def out_of_view(page: Page, selector: str) -> bool:
    box = page.evaluate(IN_VIEW_JS, selector)
    return bool(box["top"] >= box["height"] or box["bottom"] <= 0)


def test_suggestions_below_the_fold_are_announced_and_reached_by_one_key(
    url: str, data: Path, chromium: Browser
) -> None:
    """Long lists and the open key legend push the suggestions below the fold: "N suggestions below — f" is in view
    then (and only then),
    f goes there, + accepts; scrolled back up the hint returns with the new count, and clicking it goes there too."""
    project = Project.open(data)
    with project.db.read() as conn:
        ivo = project.repo.get_user(conn, "ivo")
    assert ivo is not None
    service = CurationService(project, ivo)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, "a1", "IT")
    assert state is not None
    words = [f"parola lunga numero {n}" for n in range(1, 13)]
    saved = service.add_candidates("a1", "IT", Side.GOOD, words, state.version)
    service.add_candidates("a1", "IT", Side.BAD, [f"altra parola {n}" for n in range(1, 13)], saved.version)
    offered = len(card_view(project, "a1", "IT", ivo).suggestions)
    assert offered >= 2
    with chromium_page(chromium, 1366, 768) as page:
        page.goto(url)
        log_in(page, "ivo", "ivo-password-long")
        expect(page.locator(".ca-id")).to_contain_text("a1 · IT")
        settle(page)
        hint = page.locator(".ca-sugg-below")
        expect(hint).to_be_hidden()  # long lists, yet the suggestions' heading still shows at the bottom
        page.keyboard.press("Escape")  # out of the Add box the cursor is in on arrival (GOOD is not empty)
        page.keyboard.press("?")  # the key legend opens above the card: the suggestions go below the fold
        expect(page.locator(".ca-legend")).to_be_visible()
        assert out_of_view(page, ".ca-sugg"), page.evaluate(IN_VIEW_JS, ".ca-sugg")
        expect(hint).to_be_visible()
        expect(hint).to_have_text(f"{offered} suggestions below — f")
        in_view(page, ".ca-sugg-below")
        page.keyboard.press("f")
        expect(page.locator(".ca-sugg .ca-row").first).to_be_focused()
        in_view(page, ".ca-sugg .ca-row")
        expect(hint).to_be_hidden()
        first = str(page.locator(".ca-sugg .ca-row code").first.text_content())
        page.keyboard.press("+")  # one key accepts it
        check_feedback(page, f"{first} is now in GOOD.")
        settle(page)
        assert lists(data, "a1")[0] == [*words, first]
        page.keyboard.press("Home")  # back to the top of the work area: the suggestions are below again
        expect(hint).to_be_visible()
        expect(hint).to_have_text(f"{offered - 1} suggestion{'s' if offered - 1 != 1 else ''} below — f")
        in_view(page, ".ca-sugg-below")
        hint.click()
        expect(page.locator(".ca-sugg .ca-row").first).to_be_focused()
        expect(hint).to_be_hidden()
