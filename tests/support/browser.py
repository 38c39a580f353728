"""Headless Chromium against a real app server: start and stop ``annotator serve``-like servers, log in, settle."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, FilePayload, Locator, Page, Playwright, expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[2]
DOC_SCREENSHOTS = ROOT / "docs" / "screenshots"


def save_screenshot(page: Page, folder: Path, name: str) -> Path:
    """A screenshot in ``folder``; copied to docs/screenshots only when ANNOTATOR_UPDATE_SCREENSHOTS=1."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 0
    if os.environ.get("ANNOTATOR_UPDATE_SCREENSHOTS") == "1":
        DOC_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (DOC_SCREENSHOTS / name).write_bytes(path.read_bytes())
    return path


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


TIMEOUT_MS = 20_000
expect.set_options(timeout=TIMEOUT_MS)  # every browser test module imports this one


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_healthy(url: str, process: subprocess.Popen[bytes], deadline_s: float = 30) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"annotator serve exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"the app did not answer on {url} within {deadline_s} s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Stop the server's whole process group (Streamlit's children too); a kill when it does not stop in time."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def server_env(*drop: str) -> dict[str, str]:
    """This process's environment for a served app, unbuffered, without the variables named in ``drop``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for name in drop:
        env.pop(name, None)
    return env


#: The server process behind each URL ``serve_app`` is serving (a test may pause it).
SERVED: dict[str, subprocess.Popen[bytes]] = {}


@contextmanager
def serve_app(
    data: Path, env: dict[str, str], *, cwd: Path = ROOT, log: Path | None = None, deadline_s: float = 30
) -> Iterator[str]:
    """``annotator serve`` on a free port, its URL once it answers; stopped afterwards even when a test fails.

    One place for every browser test's server, so that none leaves a Streamlit process behind.
    """
    port = free_port()
    command = [sys.executable, "-m", "annotator.cli", "serve", "--data", str(data), "--port", str(port)]
    if log is None:
        process = subprocess.Popen(
            command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
    else:
        with log.open("wb") as sink:
            process = subprocess.Popen(command, env=env, cwd=cwd, stdout=sink, stderr=sink, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    SERVED[url] = process
    try:
        wait_until_healthy(url, process, deadline_s)
        yield url
    finally:
        stop_server(process)
        del SERVED[url]


def launch_chromium(playwright: Playwright) -> Browser:
    """Headless Chromium with the tests' options: one per test worker (the ``chromium`` fixture), a context per test."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class SharedChromium:
    """The worker's Chromium, launched on first use and again if it went away (a crash stays one test's failure)."""

    def __init__(self, playwright: Playwright) -> None:
        self._playwright = playwright
        self._browser: Browser | None = None

    def get(self) -> Browser:
        if self._browser is None or not self._browser.is_connected():
            self._browser = launch_chromium(self._playwright)
        return self._browser

    def close(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            self._browser.close()


def new_context(browser: Browser, width: int, height: int, **options: Any) -> BrowserContext:
    """A fresh context (own cookies, storage and cache) at ``width``×``height`` with the tests' time-out."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RUN_TRACKER_JS)
    context.on("page", _TRACKED_PAGES.add)
    return context


@contextmanager
def chromium_page(browser: Browser, width: int, height: int, **options: Any) -> Iterator[Page]:
    """A page in a fresh context of ``browser`` at ``width``×``height``; the context is closed afterwards."""
    context = new_context(browser, width, height, **options)
    try:
        yield context.new_page()
    finally:
        context.close()


def settle(page: Page) -> None:
    """Wait until every script run the page has asked for has finished and the page is idle and drawn.

    A condition, not a pause: the page's own websocket says when it asked the server for a run (a ``rerun_script``
    message) and when the server finished one (``script_finished``), so a run asked for just before this call and not
    yet started on a loaded server is waited for too.
    """
    if page not in _TRACKED_PAGES:  # a page of a context made without ``new_context``: from its next message on
        page.add_init_script(RUN_TRACKER_JS)
        page.evaluate(RUN_TRACKER_JS)
        _TRACKED_PAGES.add(page)
    _wait_drawn(page, asked=True)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


#: The number of page runs the page has asked for so far (``RUN_TRACKER_JS``'s tick of the last one).
PAGE_ASKED_JS = "() => window.__annotatorRuns.pageAsked"


def upload_files(page: Page, dropzone_input: Locator, files: str | Path | FilePayload) -> None:
    """Give a file uploader ``files`` and wait until the run that makes them the widget's value has finished.

    The browser sends the file over HTTP first and asks for that run only once the upload is stored, so ``settle``
    called straight after ``set_input_files`` can find the page idle before the run is asked for, and a click then
    runs without the file (its trigger spent on a run that has none) while the late run redraws it unused.
    """
    before = page.evaluate(PAGE_ASKED_JS)
    dropzone_input.set_input_files(files)
    page.wait_for_function(f"(before) => ({PAGE_ASKED_JS})() > before", arg=before, timeout=TIMEOUT_MS)
    settle(page)


class RunCounter:
    """Counts the script and fragment runs the server reports finished (``script_finished`` on the websocket).

    Streamlit's own message, not the app root's run state: React can apply a short run's start and end in one
    render, and the attribute then never changes (that missed run made test_e2e_sessions time out under load).
    Attach before the page loads; a reload's new websocket is followed too. Frames are counted while Playwright
    waits (its sync API delivers events then), so ``wait`` polls with ``wait_for_timeout``.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.finished = 0
        #: Runs of the whole page only: a fragment's own timed rerun (the jobs panel's, every 2 s) redraws nothing else.
        self.page_runs = 0
        page.on("websocket", lambda socket: socket.on("framereceived", self._frame))

    def _frame(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            message = ForwardMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "script_finished":
                self.finished += 1
                self.page_runs += not message.metadata.run.fragment_ids

    def mark(self) -> int:
        """The count now: pass it to ``wait`` to wait for runs that finish after this point."""
        return self.finished

    def wait(self, since: int, runs: int = 1) -> None:
        """Wait until ``runs`` runs have finished since ``mark`` returned ``since``, then until the page is idle and
        drawn: a condition, not a pause, so a loaded machine that starts the run late cannot make it pass early."""
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while self.finished < since + runs:
            if time.monotonic() > deadline:
                done = self.finished - since
                raise AssertionError(f"{runs} run(s) expected to finish, {done} did in {TIMEOUT_MS} ms")
            self.page.wait_for_timeout(20)
        _wait_drawn(self.page, asked=False)


#: True once ``document.cookie`` holds a session cookie other than the one given (the cookie before the log-in).
NEW_SESSION_COOKIE_JS = """(before) => {
  const found = document.cookie.split("; ").find((c) => c.startsWith("annotator_session_") && !c.endsWith("="));
  return found !== undefined && found !== before;
}"""
#: The session cookie in ``document.cookie`` now, or null.
SESSION_COOKIE_JS = """() => document.cookie.split("; ").find((c) => c.startsWith("annotator_session_")) ?? null"""


def log_in(page: Page, name: str, password: str) -> None:
    """Log in and wait until the browser holds the new session cookie: a frame sets it after the run that signed in
    has been drawn, and a page opened by URL before then starts a session that is not logged in."""
    before = page.evaluate(SESSION_COOKIE_JS)
    page.get_by_role("textbox", name="User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    page.wait_for_function(NEW_SESSION_COOKIE_JS, arg=before)
    settle(page)


#: The app root's run state (``data-test-script-state``) while Streamlit runs the script or a fragment.
BUSY_STATES = ("running", "rerunRequested", "stopRequested")


#: Idle, and drawn: components v2 elements such as the work area of Curate, Review and Double curation
#: (``annotator.app.curate_area``) build their DOM in an effect React runs after it has painted the run, and on first
#: mount after their script module has loaded, so "the run is over" alone can come a little before them. The page is
#: settled when, on three animation frames in a row (Playwright polls this on every frame), it is idle, every such
#: element is drawn, the work area has no event waiting and, with ``asked``, every run the page asked for
#: (``RUN_TRACKER_JS``) has finished. A plain function: Playwright takes a returned Promise itself as the answer.
DRAWN_JS = """({busy, asked, call}) => {
  const state = document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state');
  const lists = Array.from(document.querySelectorAll('[data-testid="stMain"] .stBidiComponent'));
  const drawn = (list) => list.querySelector('.annotator-candidates')
    || list.querySelector('.ca[data-drawn]:not([data-pending])');
  const runs = window.__annotatorRuns;
  const answered = !asked || !runs || ((runs.pageAsked === 0 || runs.pageFinished > runs.pageAsked)
    && (runs.fragmentAsked === 0 || runs.anyFinished > runs.fragmentAsked) && (runs.late || runs.pageFinished > 0));
  const settled = !busy.includes(state) && lists.every(drawn) && answered;
  const frames = window.__annotatorSettled?.call === call ? window.__annotatorSettled.frames : 0;
  window.__annotatorSettled = {call, frames: settled ? frames + 1 : 0};
  return settled && frames + 1 >= 3;
}"""


def _wait_drawn(page: Page, *, asked: bool) -> None:
    call = next(_CALLS)
    page.wait_for_function(DRAWN_JS, arg={"busy": list(BUSY_STATES), "asked": asked, "call": call}, timeout=TIMEOUT_MS)


_CALLS = itertools.count(1)


def _field_numbers() -> dict[str, int]:
    """The protobuf field numbers the run tracker reads, from the installed Streamlit (not copied by hand)."""
    rerun = BackMsg.DESCRIPTOR.fields_by_name["rerun_script"]
    finished = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"]
    return {
        "rerun": rerun.number,
        "fragment": rerun.message_type.fields_by_name["fragment_id"].number,
        "finished": finished.number,
        "early": finished.enum_type.values_by_name["FINISHED_EARLY_FOR_RERUN"].number,
        "fragmentDone": finished.enum_type.values_by_name["FINISHED_FRAGMENT_RUN_SUCCESSFULLY"].number,
    }


#: Counts, on the page, the runs it asks the server for (``BackMsg.rerun_script``, a fragment's or the page's) and
#: the runs the server reports finished (``ForwardMsg.script_finished``; a run stopped early for the next one is not
#: an answer). Each event takes the next tick, so "finished after asked" is one comparison. A socket is followed from
#: its first message sent, which is the run it asks for on connecting; a document followed from its start is settled
#: only once its first run has finished. (On a page whose websocket a test routes, ``route_web_socket``, these are
#: the frames of Playwright's bridge to the server.)
RUN_TRACKER_JS = (
    """(() => {
  if (window.__annotatorRuns) return;
  const F = FIELDS;
  const runs = window.__annotatorRuns = {tick: 0, pageAsked: 0, fragmentAsked: 0, pageFinished: 0, anyFinished: 0,
    late: document.readyState !== 'loading'};  // installed on a loaded page: its first run may be long over
  const bytesOf = (data) => data instanceof ArrayBuffer ? new Uint8Array(data)
    : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
  const varint = (b, at) => { let value = 0, scale = 1, byte;
    do { byte = b[at.i++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80); return value; };
  // the top-level fields of a protobuf message: [number, value] (a varint) or [number, [start, end]] (bytes)
  const fields = (b, start, end) => { const out = [], at = {i: start};
    while (at.i < end) { const tag = varint(b, at), wire = tag % 8, number = Math.floor(tag / 8);
      if (wire === 0) out.push([number, varint(b, at)]);
      else if (wire === 2) { const n = varint(b, at); out.push([number, [at.i, at.i + n]]); at.i += n; }
      else if (wire === 1) at.i += 8; else if (wire === 5) at.i += 4; else break; }
    return out; };
  const followed = new WeakSet();
  const received = (event) => { const b = bytesOf(event.data); if (!b) return;
    for (const [number, status] of fields(b, 0, b.length)) {
      if (number !== F.finished || status === F.early) continue;
      runs.anyFinished = ++runs.tick;
      if (status !== F.fragmentDone) runs.pageFinished = runs.tick; } };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!followed.has(this)) { followed.add(this); this.addEventListener('message', received); }
    const b = bytesOf(data);
    if (b) for (const [number, span] of fields(b, 0, b.length)) {
      if (number !== F.rerun || !Array.isArray(span)) continue;
      const fragment = fields(b, span[0], span[1])
        .some(([n, v]) => n === F.fragment && Array.isArray(v) && v[1] > v[0]);
      if (fragment) runs.fragmentAsked = ++runs.tick; else runs.pageAsked = ++runs.tick; }
    return send.call(this, data);
  };
})()"""
).replace("FIELDS", json.dumps(_field_numbers()))

#: Pages whose every document runs ``RUN_TRACKER_JS``.
_TRACKED_PAGES: weakref.WeakSet[Page] = weakref.WeakSet()
