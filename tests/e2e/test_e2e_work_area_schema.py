"""The work area's script checks what it receives against the protocol's JSON Schema, in real Chromium.

The element's files (``area.html``, ``area.css``, ``area.js``) are served as they ship by a local HTTP server, with a
page that mounts the script as Streamlit does (its default export called with the data in bytes). Data of another
protocol version, or of the wrong shape, shows a message naming the fault and draws nothing; the data a Curate run
really sends is drawn; and the events the script then sends are the dataclasses Python parses.
"""

from __future__ import annotations

import copy
import functools
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_helpers import area
from browser import chromium_page
from curation_pages import TRANSLATOR, login, start
from playwright.sync_api import Browser, Page, expect

from annotator.app import curate_area
from annotator.app.curate_area import protocol
from annotator.domain.model import Side

pytestmark = pytest.mark.e2e

#: Mounts ``area.js`` as Streamlit's components v2 does: the HTML in a parent, the default export called with the
#: data (bytes of one JSON document) and a trigger setter, which here records what the script sends.
HARNESS = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="area.css"></head>
<body><div id="parent"></div><script type="module">
import mount from './area.js';
const parent = document.getElementById('parent');
parent.innerHTML = await (await fetch('area.html')).text();
window.sent = [];
window.draw = (text) => mount({data: new TextEncoder().encode(text), parentElement: parent,
                               setTriggerValue: (name, value) => window.sent.push([name, value])});
window.ready = true;
</script></body></html>"""


@pytest.fixture(scope="module")
def harness_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("work-area")
    assets = Path(curate_area.__file__).parent / "assets"
    for name in ("area.html", "area.css", "area.js"):
        shutil.copy(assets / name, folder / name)
    (folder / "index.html").write_text(HARNESS, encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # a free port
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def sent_data(app_demo: Path) -> dict[str, Any]:
    """The data a translator's Curate run sends to the element."""
    return area(login(start(), TRANSLATOR))


def opened(page: Page, url: str) -> Page:
    page.goto(url)
    page.wait_for_function("window.ready === true")
    return page


def draw(page: Page, data: object) -> None:
    page.evaluate("(text) => window.draw(text)", json.dumps(data))


def test_data_of_another_version_or_shape_shows_a_message_and_draws_nothing(
    harness_url: str, sent_data: dict[str, Any], chromium: Browser
) -> None:
    older = {**sent_data, "protocol": protocol.VERSION - 1}
    wrong_type = copy.deepcopy(sent_data)
    wrong_type["card"]["start"] = "3"
    missing = copy.deepcopy(sent_data)
    del missing["lists"]["good"]["rows"]
    extra = {**sent_data, "surprise": 1}
    with chromium_page(chromium, 1366, 768) as page:
        fault = page.locator(".ca-fault")
        opened(page, harness_url)
        draw(page, older)
        expect(fault).to_be_visible()
        expect(fault).to_contain_text(f"protocol {protocol.VERSION - 1}")
        expect(fault).to_contain_text("Reload the page")
        assert page.locator(".ca-id").text_content() == ""  # nothing of the data was drawn
        expect(page.locator(".ca-card")).to_be_hidden()
        for bad, named in ((wrong_type, "data.card.start"), (missing, "data.lists.good.rows"), (extra, "surprise")):
            opened(page, harness_url)
            draw(page, bad)
            expect(fault).to_be_visible()
            expect(fault).to_contain_text(named)
            assert page.locator(".ca-id").text_content() == ""
        page.keyboard.press("d")  # no data drawn: keys send nothing
        assert page.evaluate("window.sent") == []


def test_the_data_a_page_sends_is_drawn_and_the_scripts_events_parse_as_pythons_types(
    harness_url: str, sent_data: dict[str, Any], chromium: Browser
) -> None:
    with chromium_page(chromium, 1366, 768) as page:
        opened(page, harness_url)
        draw(page, sent_data)
        expect(page.locator(".ca-id")).to_have_text(sent_data["card"]["title"])
        expect(page.locator(".ca-fault")).to_be_hidden()
        first_good = sent_data["lists"]["good"]["rows"][0]
        page.keyboard.press("m")  # the cursor starts on the first GOOD row: move it
        page.wait_for_function("window.sent.length === 1")
        name, value = page.evaluate("window.sent[0]")
        assert name == curate_area.EVENT
        event = protocol.parse_event(value)
        assert isinstance(event, protocol.MoveEvent)
        assert (event.key, event.item, event.version) == (first_good["key"], sent_data["item"], sent_data["version"])
        draw(page, {**sent_data, "ack": value["seq"]})  # answered: the next event goes
        page.keyboard.press("g")
        page.keyboard.type("sorso")
        page.keyboard.press("Enter")
        page.wait_for_function("window.sent.some(([, v]) => v.type === 'add')")
        added = next(v for _n, v in page.evaluate("window.sent") if v["type"] == "add")
        assert protocol.parse_event(added) == protocol.AddEvent(
            sent_data["item"], sent_data["lang"], sent_data["version"], added["seq"], Side.GOOD, "sorso"
        )
