"""Benchmark: the Curate work area in real Chromium on 10,000 items × 5 languages, keyboard only (issues 8 and 21).

Run: ``python benchmarks/bench_browser_curate.py [--items 10000] [--rounds 30] [--cache /tmp/bench-projects]``
(``--cache`` builds the project once into that folder and runs each later benchmark on a copy of it).

The project is built as in ``bench_curate.py`` (import + pre-population through the services). ``annotator serve``
runs on a free port on 127.0.0.1 and headless Chromium logs in as a translator, turns on "Next item after Done" with
its key (``Esc``, ``a``: once), then for each round, on the item the focus arrived in: types a candidate, Enter (timed
until its row is shown), ``Esc`` ``l`` ``Delete`` (the first BAD candidate removed), ``d`` for Done (timed until the
next card is drawn), and Alt+N on the following item (timed until the next card). Printed: median and p95 of add →
row shown, Done → next card, Next → new card, the command keys per curated item (typed text aside), and the result
of the focus test (issue 21, acceptance 2): in every text box of the work area a string holding every shortcut key
typed with a 1.5 s pause in the middle, and ``dn`` after an invalid add — nothing may happen, and all text must stay
in its box. Targets: add ≤ 100 ms median, Next ≤ 150 ms median. It waits between steps until Streamlit's run is over
and the work area has no event waiting, and prints the load average: timings on a shared machine move with it.
Each change is seen by checking the page on every animation frame.

An add is also split by the page's own clock (a probe installed before the app's script notes every websocket message
and the work area's ``data-drawn``): Enter → event sent, sent → the server's answer received, answer → work area
drawn, drawn → row seen; with the bytes received per add. CPU per round (server process; the page's main thread in
thread time) and page CPU per add are the figures a busy machine disturbs least: compare revisions on those first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench_curate import build, summary
from playwright.sync_api import CDPSession, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from annotator.project import Project

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
#: Checked on every animation frame: a visible candidate row of the work area holding exactly the candidate.
ROW_SHOWN_JS = """text => Array.from(document.querySelectorAll('.ca .ca-row code')).some(
  el => el.textContent === text && el.checkVisibility() && el.getClientRects().length > 0)"""
#: The address names another item than ``prev`` and the work area has drawn that item, its sentence visible.
CARD_SHOWN_JS = """prev => { const id = new URLSearchParams(location.search).get('item') || '';
  const area = document.querySelector('.ca'); const sentence = document.querySelector('[data-testid="item-sentence"]');
  return id !== prev && area && (area.dataset.drawn || '').startsWith(id + '|') && sentence.checkVisibility(); }"""
#: Installed before the app's own script: every websocket message in and out with its page time and size, and the
#: time of the last Enter keydown, so an add's time splits into the browser's part and the server's (``split``).
PROBE_JS = """(() => {
  const Native = window.WebSocket;
  const size = (d) => d.byteLength ?? d.size ?? d.length ?? 0;
  window.__frames = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => window.__frames.push(['in', performance.now(), size(e.data)]));
    }
    send(d) { window.__frames.push(['out', performance.now(), size(d)]); super.send(d); }
  };
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') window.__enterAt = performance.now(); }, true);
  new MutationObserver(() => { window.__drawnAt = performance.now(); }).observe(
    document, {subtree: true, attributes: true, attributeFilter: ['data-drawn']});
})()"""
#: ``ROW_SHOWN_JS`` that also notes the page time at which it first held.
ROW_SHOWN_AT_JS = f"text => ({ROW_SHOWN_JS})(text) && (window.__shownAt = performance.now(), true)"
SHORTCUTS = "gbdsxonpu?123"
TEXT_BOXES = (
    ("Add to GOOD", None),
    ("Add to BAD", None),
    ("What should a lead look at?", "s"),
    ("Discard note (required for 'other')", "x"),
    ("Add a comment", None),
)


def split(page: Page) -> tuple[float, float, float, float, int, int]:
    """The last add, from the page's clock: Enter → the event sent, sent → the last message before the row was drawn
    (the server's answer), that message → the work area drawn (``data-drawn`` set: Streamlit's and the element's
    script), drawn → the row seen on a frame (ms); the bytes received in between and the largest message's bytes.
    The probe's list is emptied."""
    enter, drawn, shown, frames = page.evaluate(
        "() => { const r = [window.__enterAt, window.__drawnAt, window.__shownAt, window.__frames];"
        " window.__frames = []; return r; }"
    )
    sent = min((t for kind, t, _ in frames if kind == "out" and t >= enter), default=enter)
    answers = [(t, n) for kind, t, n in frames if kind == "in" and sent <= t <= drawn]
    last = max((t for t, _ in answers), default=sent)
    sizes = [n for _, n in answers]
    return sent - enter, last - sent, drawn - last, shown - drawn, sum(sizes), max(sizes, default=0)


def server_cpu(pid: int) -> float:
    """The server process's CPU time so far (user + system, seconds): what a busy machine disturbs least."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def browser_cpu(cdp: CDPSession) -> float:
    """The page's main-thread busy time so far (Chromium's TaskDuration, seconds; in the thread's CPU time, as
    ``Performance.enable`` was asked for: what a busy machine disturbs least)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))


def idle(page: Page) -> None:
    """Streamlit has finished its run and the work area has drawn it, with no event of its own waiting."""
    page.wait_for_function(
        "busy => !busy.includes(document.querySelector('[data-testid=\"stApp\"]')"
        "?.getAttribute('data-test-script-state')) && !!document.querySelector('.ca[data-drawn]:not([data-pending])')",
        arg=list(BUSY),
        timeout=30_000,
    )
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=30_000)


def current_item(page: Page) -> str:
    return page.evaluate("new URLSearchParams(location.search).get('item') || ''")


def focused(page: Page) -> str:
    return str(page.evaluate("document.activeElement && (document.activeElement.getAttribute('aria-label') || '')"))


def saved_state(data: Path, item: str, lang: str) -> tuple[object, int]:
    project = Project.open(data)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, lang)
        history = project.repo.history(conn, item, lang)
    return state, len(history)


def focus_test(page: Page, data: Path) -> list[str]:
    """Issue 21, acceptance 2 on the item shown; the problems found (none: passed)."""
    problems = []
    item, lang = current_item(page), page.evaluate("new URLSearchParams(location.search).get('lang') || ''")
    before = saved_state(data, item, lang)
    for name, opener in TEXT_BOXES:
        if opener:
            page.keyboard.press("Escape")
            page.keyboard.press(opener)
        if name == "Add a comment" and not page.locator(".ca-comments").evaluate("d => d.open"):
            page.get_by_text("Comments (").press("Enter")
        box = page.get_by_role("textbox", name=name, exact=True)
        box.focus()
        page.keyboard.type(SHORTCUTS[:6])
        page.wait_for_timeout(1500)
        page.keyboard.type(SHORTCUTS[6:])
        idle(page)
        expected = SHORTCUTS
        if name.startswith("Add to"):
            page.keyboard.press("Control+A")
            page.keyboard.type("[x]_FOO")
            page.keyboard.press("Enter")
            page.locator(".ca [role=alert]").filter(has_text="FOO").wait_for(timeout=30_000)
            idle(page)
            page.keyboard.type("dn")
            idle(page)
            expected = "[x]_FOOdn"
        if box.input_value() != expected:
            problems.append(f"{name}: holds {box.input_value()!r}, not {expected!r}")
        if focused(page) != name:
            problems.append(f"{name}: the focus went to {focused(page)!r}")
        if current_item(page) != item or saved_state(data, item, lang) != before:
            problems.append(f"{name}: an action happened")
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        idle(page)
    return problems


def project_copy(tmp: Path, items: int, cache: Path | None) -> Path:
    """A fresh copy of the built project's data folder (built once into ``cache`` when given; minutes at 10,000)."""
    if cache is None:
        (tmp / "build").mkdir()  # the inputs are written there before the project is created
        return build(tmp / "build", items).data_dir
    built = cache / f"items-{items}"
    if not (built / "data").is_dir():
        shutil.rmtree(built, ignore_errors=True)
        built.mkdir(parents=True, mode=0o700)
        build(built, items)
    shutil.copytree(built / "data", tmp / "data")
    return tmp / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep the built project in this folder and reuse it on later runs (each run works on a copy)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = project_copy(Path(tmp), args.items, args.cache)
        process, url = serve(data)
        add_ms: list[float] = []
        done_ms: list[float] = []
        next_ms: list[float] = []
        add_cpu: list[float] = []
        splits: list[tuple[float, float, float, float, int, int]] = []
        keys_per_item: list[int] = []
        failures: list[str] = []
        focus_problems: list[str] = []
        cpu_rounds = (0.0, 0.0)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.add_init_script(PROBE_JS)
                page.set_default_timeout(30_000)
                page.goto(url)
                page.get_by_role("textbox", name="User name").fill("translator")
                page.get_by_role("textbox", name="Password").fill("bench-password")
                page.get_by_role("button", name="Log in").click()
                expect(page.get_by_text("Signed in as")).to_be_visible()
                idle(page)
                setup_keys = 2
                page.keyboard.press("Escape")
                page.keyboard.press("a")  # "Next item after Done": Done lands on the next card
                expect(page.get_by_role("switch", name="Next item after Done")).to_be_checked()
                idle(page)
                page.keyboard.press("g")
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
                cpu_before = server_cpu(process.pid), browser_cpu(cdp)
                for n in range(args.rounds):
                    keys = setup_keys if n == 0 else 0
                    if focused(page) != "Add to GOOD":
                        failures.append(f"round {n}: arrived with the focus on {focused(page)!r}")
                        page.keyboard.press("g")
                        keys += 1
                    candidate = f"benchcand{n}"
                    page.evaluate("() => { window.__frames = []; }")
                    page.keyboard.type(candidate)
                    page_cpu = browser_cpu(cdp)
                    started = time.perf_counter()
                    page.keyboard.press("Enter")
                    keys += 1
                    try:
                        page.wait_for_function(ROW_SHOWN_AT_JS, arg=candidate, polling="raf", timeout=30_000)
                    except PlaywrightTimeoutError:
                        failures.append(f"round {n}: {candidate} was not shown within 30 s")
                        page.reload()
                        idle(page)
                        continue
                    add_ms.append((time.perf_counter() - started) * 1000)
                    splits.append(split(page))
                    idle(page)
                    add_cpu.append((browser_cpu(cdp) - page_cpu) * 1000)
                    for key in ("Escape", "l", "Delete"):  # to the BAD list's cursor, remove its first candidate
                        page.keyboard.press(key)
                        keys += 1
                    idle(page)
                    before = current_item(page)
                    started = time.perf_counter()
                    page.keyboard.press("d")
                    keys += 1
                    try:
                        page.wait_for_function(CARD_SHOWN_JS, arg=before, polling="raf", timeout=30_000)
                    except PlaywrightTimeoutError:
                        failures.append(f"round {n}: Done did not move on from {before} within 30 s")
                        page.reload()
                        idle(page)
                        continue
                    done_ms.append((time.perf_counter() - started) * 1000)
                    keys_per_item.append(keys)
                    idle(page)
                    before = current_item(page)
                    started = time.perf_counter()
                    page.keyboard.press("Alt+N")  # Next, from inside the Add box the focus arrived in
                    page.wait_for_function(CARD_SHOWN_JS, arg=before, polling="raf", timeout=30_000)
                    next_ms.append((time.perf_counter() - started) * 1000)
                    idle(page)
                cpu_rounds = server_cpu(process.pid) - cpu_before[0], browser_cpu(cdp) - cpu_before[1]
                focus_problems = focus_test(page, data)
                page.keyboard.press("Escape")
                before = current_item(page)
                page.keyboard.press("g")
                page.keyboard.type("benchfocus")
                page.keyboard.press("Enter")
                page.wait_for_function(ROW_SHOWN_JS, arg="benchfocus", polling="raf", timeout=30_000)
                idle(page)
                page.keyboard.press("Escape")
                page.keyboard.press("d")  # and on an item reached through Done
                page.wait_for_function(CARD_SHOWN_JS, arg=before, polling="raf", timeout=30_000)
                idle(page)
                focus_problems += [f"(after Done) {problem}" for problem in focus_test(page, data)]
                browser.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
    print(f"{args.items} items × 5 languages, {args.rounds} rounds in Chromium at 1366×768")
    print("load average at the end (over 1, 5 and 15 minutes): " + ", ".join(f"{load:.2f}" for load in os.getloadavg()))
    print(summary("add → row shown (target median ≤ 100 ms)", add_ms))
    parts = (
        "  Enter → event sent",
        "  event sent → answer received",
        "  answer → work area drawn",
        "  drawn → row seen",
    )
    for index, label in enumerate(parts):
        print(summary(label, [row[index] for row in splits]))
    print(summary("  page CPU per add (+ the polling)", add_cpu))
    if splits:
        received = statistics.median(row[4] for row in splits) / 1000
        largest = statistics.median(row[5] for row in splits) / 1000
        print(f"  received per add: median {received:.1f} KB, its largest message {largest:.1f} KB")
    print(summary("Done → next card", done_ms))
    print(summary("Next → new card (target median ≤ 150 ms)", next_ms))
    if args.rounds:  # a round: type + add, Esc l Delete, Done, Next (with the benchmark's own polling in the page)
        print(f"CPU per round: server {cpu_rounds[0] / args.rounds * 1000:.1f} ms, "
              f"browser page {cpu_rounds[1] / args.rounds * 1000:.1f} ms")  # fmt: skip
    median_keys = statistics.median(keys_per_item) if keys_per_item else float("nan")
    print(f"command keys per curated item (add one GOOD, remove one BAD, Done; typed text aside): median {median_keys}"
          f", all {sorted(keys_per_item)}")  # fmt: skip
    print(f"rounds that went wrong: {len(failures)} of {args.rounds}" + "".join(f"\n  {f}" for f in failures))
    print("focus test (every text box, shortcut letters, 1.5 s pause, dn after an invalid add; also after Done): "
          + ("passed" if not focus_problems else "FAILED\n  " + "\n  ".join(focus_problems)))  # fmt: skip


if __name__ == "__main__":
    main()
