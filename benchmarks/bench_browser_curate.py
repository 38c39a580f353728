"""Benchmark: the Curate page in real Chromium on 10,000 items × 5 languages, driven from the keyboard (issue 8).

Run: ``python benchmarks/bench_browser_curate.py [--items 10000] [--rounds 30] [--cache /tmp/bench-projects]``
(``--cache`` builds the project once into that folder and runs each later benchmark on a copy of it).

The project is built as in ``bench_curate.py`` (import + pre-population through the services). ``annotator serve``
runs on a free port on 127.0.0.1 and headless Chromium logs in as a translator, turns on "Next item after Done",
then for each round: ``g``, types a candidate, Enter (timed until its row is visible), ``d`` for Done (timed until
the next item's card is shown), and ``n`` on the following item (timed until the next card). Printed: median and
p95 of add → row visible, Done → next card, Next → new card, and the key presses per curated item (typed text aside).
Targets: add ≤ 150 ms median, Next and Done ≤ 250 ms median. Between steps it waits until Streamlit's run is over
(the app root's ``data-test-script-state``), and it prints the load average: timings on a shared machine move with it.

``--timing raf`` (the default) checks for the row / the new card in the page on every animation frame. ``--timing
expect`` uses Playwright's ``expect(...).to_be_visible()`` as earlier versions did; it retries after 0, 20, 50, 100,
100 and then every 500 ms, so a row shown 280 ms after Enter is reported at ~770 ms: its figures bunch at those steps.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench_curate import build, summary
from playwright.sync_api import Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parent.parent
expect.set_options(timeout=30_000)
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ANNOTATOR_DATABASE_URL", None)
    command = [sys.executable, "-m", "annotator.cli", "serve", "--data", str(data), "--port", str(port)]
    process = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1):
                return process, url
        except OSError:
            time.sleep(0.2)
    raise TimeoutError("the app did not start")


BUSY = ("running", "rerunRequested", "stopRequested")
#: Checked on every animation frame: a visible candidate row (``.annotator-row``, in the old per-row HTML and in the
#: one-element lists alike) holding exactly the candidate — not the live "✓ valid: will be saved as …" caption under
#: the box, whose ``<code>`` shows the same text while the candidate is typed, before Add has saved anything.
ROW_SHOWN_JS = """text => Array.from(document.querySelectorAll('[data-testid="stMain"] .annotator-row code')).some(
  el => el.textContent === text && el.checkVisibility() && el.getClientRects().length > 0)"""
#: The address names another item than ``prev`` and that item's card is shown (its id in bold in the card header).
CARD_SHOWN_JS = """prev => { const id = new URLSearchParams(location.search).get('item') || '';
  return id !== prev && Array.from(document.querySelectorAll('[data-testid="stMain"] strong')).some(
    el => el.textContent === id && el.checkVisibility() && el.getClientRects().length > 0); }"""


def idle(page: Page) -> None:
    """Streamlit has finished its script (or fragment) run: the app root carries the run state."""
    page.wait_for_function(
        "busy => !busy.includes(document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state'))",
        arg=list(BUSY),
        timeout=30_000,
    )
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=30_000)


def current_item(page: Page) -> str:
    return page.evaluate("new URLSearchParams(location.search).get('item') || ''")


def wait_for_new_item(page: Page, previous: str) -> None:
    page.wait_for_function(
        "prev => (new URLSearchParams(location.search).get('item') || '') !== prev", arg=previous, timeout=30_000
    )


def project_copy(tmp: Path, items: int, cache: Path | None) -> Path:
    """A fresh copy of the built project's data folder (built once into ``cache`` when given; minutes at 10,000)."""
    if cache is None:
        return build(tmp / "build", items).data_dir
    built = cache / f"items-{items}"
    if not (built / "data").is_dir():
        shutil.rmtree(built, ignore_errors=True)
        build(built, items)
    shutil.copytree(built / "data", tmp / "data")
    return tmp / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--timing",
        choices=("raf", "expect"),
        default="raf",
        help="how a change is seen: checked on every animation frame (raf) or by Playwright's expect (500 ms steps)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep the built project in this folder and reuse it on later runs (each run works on a copy)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, url = serve(project_copy(Path(tmp), args.items, args.cache))
        add_ms: list[float] = []
        done_ms: list[float] = []
        next_ms: list[float] = []
        presses_per_item: list[int] = []
        failures = 0
        add_failures = 0
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.set_default_timeout(30_000)
                page.goto(url)
                page.get_by_role("textbox", name="User name").fill("translator")
                page.get_by_role("textbox", name="Password").fill("bench-password")
                page.get_by_role("button", name="Log in").click()
                expect(page.get_by_text("Signed in as")).to_be_visible()
                idle(page)
                page.get_by_text("Next item after Done").click()  # Done lands on the next card
                idle(page)
                page.wait_for_function("() => window.__annotatorKeys === true")  # the key listener is in place
                main_area = page.get_by_test_id("stMain")
                for n in range(args.rounds):
                    presses = 0
                    candidate = f"benchcand{n}"
                    page.keyboard.press("g")
                    presses += 1
                    page.keyboard.type(candidate)
                    started = time.perf_counter()
                    page.keyboard.press("Enter")
                    presses += 1
                    try:
                        if args.timing == "raf":
                            page.wait_for_function(ROW_SHOWN_JS, arg=candidate, polling="raf", timeout=30_000)
                        else:
                            row = main_area.locator(".annotator-row code").get_by_text(candidate, exact=True)
                            expect(row).to_be_visible()
                    except (AssertionError, PlaywrightTimeoutError):  # counted and reported, then the page is reloaded
                        alerts = page.get_by_test_id("stAlert").all_inner_texts()
                        box = page.get_by_role("textbox", name="Add to GOOD")
                        typed = box.input_value() if box.count() else "(no box)"
                        print(f"round {n}: {candidate} was not added within 30 s; box {typed!r}, {alerts}", flush=True)
                        add_failures += 1
                        page.reload()
                        idle(page)
                        page.wait_for_function("() => window.__annotatorKeys === true")
                        continue
                    add_ms.append((time.perf_counter() - started) * 1000)
                    idle(page)
                    page.keyboard.press("Escape")
                    presses += 1
                    before = current_item(page)
                    started = time.perf_counter()
                    page.keyboard.press("d")
                    presses += 1
                    try:
                        if args.timing == "raf":
                            page.wait_for_function(CARD_SHOWN_JS, arg=before, polling="raf", timeout=30_000)
                        else:
                            wait_for_new_item(page, before)
                    except Exception:  # counted and reported, then the page is reloaded to carry on
                        page.screenshot(path=str(Path(tmp) / f"done-failure-{n}.png"))
                        print(f"round {n}: Done did not move on from {before} within 30 s", flush=True)
                        failures += 1
                        page.reload()
                        idle(page)
                        page.wait_for_function("() => window.__annotatorKeys === true")
                        page.get_by_role("textbox", name="Add to GOOD").fill("")  # the kept draft, not retyped
                        page.get_by_role("textbox", name="Add to GOOD").press("Escape")
                        idle(page)
                        continue
                    if args.timing == "expect":
                        expect(main_area.get_by_text(current_item(page), exact=True).first).to_be_visible()
                    done_ms.append((time.perf_counter() - started) * 1000)
                    presses_per_item.append(presses)
                    idle(page)
                    before = current_item(page)
                    started = time.perf_counter()
                    page.keyboard.press("n")
                    if args.timing == "raf":
                        page.wait_for_function(CARD_SHOWN_JS, arg=before, polling="raf", timeout=30_000)
                    else:
                        wait_for_new_item(page, before)
                        expect(main_area.get_by_text(current_item(page), exact=True).first).to_be_visible()
                    next_ms.append((time.perf_counter() - started) * 1000)
                    idle(page)
                browser.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
    print(f"{args.items} items × 5 languages, {args.rounds} rounds in Chromium at 1366×768, timing: {args.timing}")
    print("load average (1, 5, 15 min) at the end: " + ", ".join(f"{load:.2f}" for load in os.getloadavg()))
    print(summary("add → row visible", add_ms))
    print(summary("Done → next card", done_ms))
    print(summary("Next → new card", next_ms))
    print(f"key presses per curated item (typed text aside): {sorted(presses_per_item)[len(presses_per_item) // 2]}")
    print(f"rounds where Done did not reach the next card: {failures} of {args.rounds}")
    print(f"rounds where Enter did not add the candidate: {add_failures} of {args.rounds}")


if __name__ == "__main__":
    main()
