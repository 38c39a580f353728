"""Issue 32 (acceptance 4), the work area's messages, in real Chromium on ``annotator serve``.

The element's script (``area.js``, 39 KB) is a file of the package's component asset folder (declared in
``annotator/pyproject.toml``): the browser loads it once, and a run's message carries the data (one JSON document in
bytes), the HTML and the style only — 62 KB per run before, every add, remove and Done. The work area still draws
every change (the row of an add is shown, the feedback said), and rebuilds only the parts whose data changed: an add
replaces its list's rows and the history, while the card, the other list and the suggestions keep their nodes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import chromium_page, settle
from keyboard import check_feedback, log_in_translator
from playwright.sync_api import Browser, Page, WebSocket, expect

from annotator.app import curate_area

pytestmark = pytest.mark.e2e
ASSETS = f"/_stcore/bidi-components/{curate_area.COMPONENT_NAME}/"
#: A run's largest message may hold the data, the HTML and the style (≈ 23 KB on the demo), never the script.
MAX_MESSAGE_BYTES = 32_000
#: Text only the script holds (its protocol block's marker).
SCRIPT_MARK = b"// protocol:begin"


def test_the_script_is_loaded_once_and_runs_do_not_carry_it(app_url: str, demo: Path, chromium: Browser) -> None:
    assert SCRIPT_MARK in curate_area.JS.encode()
    assert SCRIPT_MARK not in curate_area.HTML.encode() + curate_area.CSS.encode()
    requests: list[str] = []
    frames: list[bytes] = []

    def follow(socket: WebSocket) -> None:
        socket.on("framereceived", lambda payload: frames.append(payload if isinstance(payload, bytes) else b""))

    with chromium_page(chromium, 1366, 768) as page:
        page.on("request", lambda request: requests.append(request.url))
        page.on("websocket", follow)
        log_in_translator(page, app_url)
        settle(page)
        frames.clear()
        for number in range(3):
            add(page, f"prova{number}")
            expect(page.locator(".ca-side[data-side=good] .ca-row code", has_text=f"prova{number}")).to_be_visible()
        page.keyboard.press("Escape")
        page.keyboard.press("d")
        check_feedback(page, "Marked")
        settle(page)
    assets = [url.split(ASSETS, 1)[1] for url in requests if ASSETS in url]
    assert assets == ["area.js"], assets  # once, for the whole session
    assert frames, "no message reached the page"
    largest = max(len(frame) for frame in frames)
    assert largest < MAX_MESSAGE_BYTES, largest
    assert not [frame for frame in frames if SCRIPT_MARK in frame]


def add(page: Page, text: str) -> None:
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    check_feedback(page, f"Added {text} to GOOD.")
    settle(page)


#: Nodes of parts an add to GOOD leaves alone, and of the GOOD list it redraws.
KEPT = (".ca-sentence", ".ca-senses li", ".ca-side[data-side=bad] .ca-row", ".ca-sugg .ca-heading")
REDRAWN = ".ca-side[data-side=good] .ca-rows > li"


def test_an_add_rebuilds_its_list_not_the_card_or_the_other_list(app_url: str, demo: Path, chromium: Browser) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        log_in_translator(page, app_url)
        settle(page)
        page.evaluate(
            "([kept, redrawn]) => { window.__kept = kept.map((s) => document.querySelector('.ca ' + s));"
            " window.__redrawn = document.querySelector(redrawn); }",
            [list(KEPT), REDRAWN],
        )
        assert page.evaluate("() => window.__kept.every(Boolean) && Boolean(window.__redrawn)")
        add(page, "prova")
        expect(page.locator(".ca-side[data-side=good] .ca-row code", has_text="prova")).to_be_visible()
        kept = page.evaluate("() => window.__kept.map((node) => node.isConnected)")
        assert kept == [True] * len(KEPT), dict(zip(KEPT, kept, strict=True))
        assert page.evaluate("() => !window.__redrawn.isConnected")  # its list was drawn again, with the new row
