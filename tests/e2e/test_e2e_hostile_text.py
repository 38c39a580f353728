"""Issue 14, acceptance 2: hostile text in every user-supplied field, in real Chromium against the real app.

Item ids, sentences, sources, glosses, candidates, DISCUSS and discard notes, comments, a non-BabelNet synset,
translations, a system name and an uploaded file name all carry Markdown, image, HTML, link, KaTeX, directive and
backtick payloads. On the Curate, Items, Review and Evaluate pages every request the browser makes must go to the
app's own origin, and each payload must be shown as the literal text it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import hostile_project as hp
import pytest
from browser import new_context, serve_app, server_env, settle, upload_files
from playwright.sync_api import Browser, FilePayload, Page, expect

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("hostile") / "data"
    hp.build(data)
    return data


@pytest.fixture(scope="module")
def app_url(hostile: Path) -> Iterator[str]:
    with serve_app(hostile, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url


@pytest.fixture
def browser_page(app_url: str, chromium: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A fresh Chromium page and the list of every URL it requests."""
    requests: list[str] = []
    context = new_context(chromium, 1440, 1700)
    page = context.new_page()
    page.on("request", lambda request: requests.append(request.url))
    try:
        yield page, requests
    finally:
        context.close()


def foreign(requests: list[str], origin: str) -> list[str]:
    return [url for url in requests if not url.startswith((origin + "/", "data:", "blob:")) and url != origin]


def assert_inert(page: Page) -> None:
    """No element the payloads could have created: no remote image, no link to the payload host, no KaTeX."""
    assert page.locator("img[src*='evil.example']").count() == 0
    links = page.locator("a[href*='evil.example']")
    assert links.count() == 0, [links.nth(n).get_attribute("href") for n in range(links.count())]
    assert page.locator(".katex").count() == 0


def shown(page: Page) -> str:
    """The main area's rendered text, without the invisible word joiners that keep bare URLs from becoming links."""
    settle(page)
    return page.get_by_test_id("stMain").inner_text().replace("\u2060", "")


def assert_all_payloads_shown(page: Page, *more: str) -> None:
    text = shown(page)
    for payload in (*hp.PAYLOADS, *more):
        assert payload in text, payload


def log_in(page: Page, url: str) -> None:
    page.goto(url)
    page.get_by_role("textbox", name="User name").fill("lena")
    page.get_by_role("textbox", name="Password").fill("lead-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    settle(page)


def upload_translations(page: Page, files: str | FilePayload) -> None:
    """Evaluate shows the translations uploader only while "A file" is the chosen source (the last run's file is
    offered first once there is one), and no dataset uploader unless an exported dataset is chosen."""
    page.get_by_role("radio", name="A file (JSONL or TSV").check()
    settle(page)
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Translations file")
    upload_files(page, uploader.get_by_test_id("stFileUploaderDropzoneInput"), files)


def test_hostile_text_is_shown_literally_and_nothing_is_fetched_from_elsewhere(
    app_url: str, browser_page: tuple[Page, list[str]], tmp_path: Path
) -> None:
    page, requests = browser_page
    main = page.get_by_test_id("stMain")
    log_in(page, app_url)
    expect(page.get_by_text(f"Lena {hp.BOLD}")).to_be_visible()  # the display name in the sidebar

    # Curate: the item card, the sentence (the override shown, not obeyed), source, gloss, the candidates
    expect(main.get_by_text("He poured a shot")).to_be_visible()
    assert_all_payloads_shown(page, hp.ITEM_A, "of <U+202E>yksihw.", f"src {hp.LINK}", f"gloss {hp.IMG} {hp.TEX}")
    for candidate in (*hp.CANDIDATES_GOOD, *hp.CANDIDATES_BAD):
        expect(main.locator("code").get_by_text(candidate, exact=True)).to_be_visible()
    assert_inert(page)

    # Items: the table holds every id, sentence and the URL synset as text; only bn: ids get a link
    page.get_by_role("link", name="Items").click()
    expect(page.get_by_role("heading", name="Items")).to_be_visible()
    settle(page)
    cells = page.get_by_test_id("stDataFrame").locator("td[role=gridcell]")
    expect(cells.first).to_be_attached()
    texts = [text or "" for text in cells.all_text_contents()]
    for value in (hp.ITEM_A, hp.ITEM_B, hp.ITEM_C, hp.ITEM_D, hp.NON_BN_SYNSET):
        assert value in texts, value
    joined = " ".join(texts)
    for payload in hp.PAYLOADS:
        assert payload in joined, payload
    assert_inert(page)

    # Review: the DISCUSS item with its note and comment, then the discarded one's Reopen button
    page.get_by_role("link", name="Review").click()
    expect(page.get_by_text("1 item-language(s) flagged DISCUSS.")).to_be_visible()
    settle(page)
    # the note in the card's DISCUSS notice (the thread does not repeat it, issue 34)
    assert_all_payloads_shown(page, hp.ITEM_C, f"DISCUSS (ivo): {hp.NOTE}", hp.COMMENT)
    assert_inert(page)
    page.get_by_role("tab", name="Discarded").click()
    settle(page)
    reopen = page.get_by_role("button", name="↺ Reopen")
    expect(reopen).to_be_visible()
    assert reopen.inner_text().replace("\u2060", "") == f"↺ Reopen {hp.ITEM_D} [IT]"
    assert_inert(page)

    # Evaluate: a hostile system name and translation, then a refused upload whose file name is hostile
    page.get_by_role("link", name="Evaluate").click()
    expect(page.get_by_role("heading", name="Evaluate machine translations")).to_be_visible()
    settle(page)
    translations = hp.translations_file(tmp_path)
    upload_translations(page, str(translations))
    settle(page)
    page.get_by_role("button", name="Run evaluation").click()
    settle(page)
    expect(main.get_by_text("MISS and BAD translations")).to_be_visible()
    sentence = hp.SENTENCE_A.replace("\u202e", "<U+202E>")
    assert_all_payloads_shown(page, f"{hp.ITEM_A} · IT · {hp.SYSTEM}", f"IT: {hp.TRANSLATION}", f"EN: {sentence}")
    assert_inert(page)

    bad_name = f"t-{hp.BOLD} {hp.RED} {hp.TEX} {hp.TICKS} ![f](evil.png).jsonl"  # a file name has no "/"
    upload_translations(
        page, {"name": bad_name, "mimeType": "application/json", "buffer": b'{"id": "x", "lang": "IT"}\n'}
    )
    settle(page)
    page.get_by_role("button", name="Run evaluation").click()
    settle(page)
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_be_visible()
    assert bad_name in error.inner_text(), error.inner_text()
    assert_inert(page)

    assert foreign(requests, app_url) == []
