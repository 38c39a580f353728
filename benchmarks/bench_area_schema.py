"""Benchmark: what the work area's schema check costs the browser on each run's data.

Run: ``python benchmarks/bench_area_schema.py [--rows 20 300] [--draws 200]``

``area.js`` checks every document it receives against the protocol's JSON Schema before drawing it. Headless
Chromium loads the element's files from a local HTTP server twice — as shipped, and with the check taken out — and
draws the same synthetic document (``--rows`` GOOD, BAD, suggestion, comment and history rows each; checked valid
with ``jsonschema`` first) ``--draws`` times. A repeated document redraws no part (each part is rebuilt only when its
data changed), so the difference between the two is the check itself. Printed: median and p95 ms per draw, both
ways, and the document's size.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import tempfile
import threading
from pathlib import Path
from typing import Any

import jsonschema
from playwright.sync_api import sync_playwright

from annotator.app import curate_area
from annotator.app.curate_area import protocol, schema

CHROMIUM = "/usr/bin/chromium"
HARNESS = """<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="area.css"></head>
<body><div id="parent"></div><script type="module">
import mount from './SCRIPT';
const parent = document.getElementById('parent');
parent.innerHTML = await (await fetch('area.html')).text();
window.time = (text, draws) => {
  const component = {data: new TextEncoder().encode(text), parentElement: parent, setTriggerValue: () => {}};
  mount(component);
  const times = [];
  for (let i = 0; i < draws; i += 1) {
    const start = performance.now();
    mount({...component, data: new TextEncoder().encode(text)});
    times.push(performance.now() - start);
  }
  return times;
};
window.ready = true;
</script></body></html>"""
#: The line of area.js that runs the check (taken out in the copy without it).
CHECK = "const fault = dataFault(next);"


def document(rows: int) -> dict[str, Any]:
    """A valid ``AreaData`` with ``rows`` rows in each list, suggestions, comments and history."""
    action = {"shown": True, "enabled": True, "tip": "tip"}
    listed = {
        "heading": "GOOD",
        "side": "GOOD",
        "other": "BAD",
        "rows": [{"key": f"w{i}|NOUN", "text": f"word {i}", "line": "added", "title": "t"} for i in range(rows)],
        "removed": [],
        "empty": "",
    }
    return {
        "protocol": protocol.VERSION, "item": "item", "lang": "IT", "version": 3, "editable": True, "locked": "",
        "advance": False, "nav": {"position": "1 of 9", "progress": "", "previous": False, "next": True},
        "card": {
            "title": "item · IT", "status": "pending", "status_label": "to do", "sentence": "He took a shot.",
            "start": 10, "end": 14, "sense": [{"text": "synset", "link": None}], "gloss": "a drink",
            "senses_title": "senses", "senses": [{"text": "1. a drink", "sigma": True}],
            "notices": [{"kind": "info", "text": "note"}], "translation": None, "mt": [],
        },
        "actions": {name: action for name in ("done", "undo", "discuss", "discard", "reopen")},
        "lists": {"good": listed, "bad": {**listed, "heading": "BAD", "side": "BAD", "other": "GOOD"}},
        "suggestions": {"title": "Suggestions", "rows": [
            {"key": f"s{i}", "text": f"sugg {i}", "side": "good", "label": "for GOOD", "reason": "r"}
            for i in range(rows)
        ]},
        "placeholders": {"good": "g", "bad": "b"}, "reasons": [{"value": "idiom", "label": "idiom"}],
        "scope": "cur|", "login": "local", "check": None, "feedback": None, "ack": None,
        "comments": {"title": "Comments", "rows": [{"who": "a", "when": "now", "text": "hi"}] * rows,
                     "may_post": True, "shown": True, "open": False},
        "history": {"title": "History", "shown": True, "rows": [
            {"when": "now", "who": "a", "action": "add", "detail": "d", "version": i} for i in range(rows)
        ]},
    }  # fmt: skip


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No line per request."""


def serve(folder: Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[20, 300])
    parser.add_argument("--draws", type=int, default=200)
    args = parser.parse_args()
    assets = Path(curate_area.__file__).parent / "assets"
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        for name in ("area.html", "area.css", "area.js"):
            shutil.copy(assets / name, folder / name)
        script = (assets / "area.js").read_text(encoding="utf-8")
        assert CHECK in script, "area.js no longer runs the check where this benchmark expects it"
        (folder / "unchecked.js").write_text(script.replace(CHECK, "const fault = '';"), encoding="utf-8")
        for name, source in (("checked.html", "area.js"), ("unchecked.html", "unchecked.js")):
            (folder / name).write_text(HARNESS.replace("SCRIPT", source), encoding="utf-8")
        server = serve(folder)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        validator = jsonschema.Draft202012Validator(schema.json_schema())
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page()
            for rows in args.rows:
                data = document(rows)
                validator.validate(data)
                text = json.dumps(data, ensure_ascii=False)
                print(f"document with {rows} rows per list: {len(text.encode()) / 1024:.1f} KB")
                for way in ("checked", "unchecked"):
                    page.goto(f"{base}/{way}.html")
                    page.wait_for_function("window.ready === true")
                    times = sorted(page.evaluate("([text, draws]) => window.time(text, draws)", [text, args.draws]))
                    p95 = times[int(len(times) * 0.95) - 1]
                    print(f"  {way:9} draw of an unchanged document: median {statistics.median(times):.3f} ms, "
                          f"p95 {p95:.3f} ms ({args.draws} draws)")  # fmt: skip
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
