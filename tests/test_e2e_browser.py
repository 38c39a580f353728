"""End to end: the real app (``annotator serve``) in headless Chromium — log in, curate, reload, review.

It takes screenshots of Curate and Review into the test's temporary folder; with ``ANNOTATOR_UPDATE_SCREENSHOTS=1``
it also refreshes ``docs/screenshots/curate.png``, ``review.png`` and ``review-1366x768.png`` /
``review-1920x1080.png`` (only on request, never on an ordinary run).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect, sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from annotator.commands.project import create_demo
from annotator.domain.model import DiscardReason, Status
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
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
expect.set_options(timeout=TIMEOUT_MS)


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
    try:
        wait_until_healthy(url, process, deadline_s)
        yield url
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def project_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, with one DISCUSS and one discarded item so the Review page has something to show."""
    data = tmp_path_factory.mktemp("e2e") / "data"
    create_demo(str(data), quiet=True)
    project = Project.open(data)
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    service.flag_discuss("head-stream", "IT", "Is 'capo' really BAD here? 'capo del fiume' is sometimes used.", 1)
    service.discard("run-relief", "DE", DiscardReason.IDIOM, "", 1)
    return data


@pytest.fixture(scope="module")
def app_url(project_dir: Path) -> Iterator[str]:
    with serve_app(project_dir, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url


@contextmanager
def chromium_page(playwright: Playwright, width: int, height: int) -> Iterator[Page]:
    """A page in headless Chromium at ``width``×``height`` with the tests' time-out; closed afterwards."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()
        browser.close()


@pytest.fixture(scope="module")
def page(app_url: str) -> Iterator[Page]:
    with sync_playwright() as playwright, chromium_page(playwright, 1440, 1700) as page:
        yield page


#: The app root's run state (``data-test-script-state``) while Streamlit runs the script or a fragment.
BUSY_STATES = ("running", "rerunRequested", "stopRequested")
#: Idle, and drawn: components v2 elements such as the work area of Curate, Review and Double curation
#: (``annotator.app.curate_area``) build their DOM in an effect React runs after it has painted the run, and on first
#: mount after their script module has loaded, so "the run is over" alone can come a little before them. Two
#: animation frames and a task after idle, every such element must be drawn, and the work area have no event waiting.
_DRAWN_JS = """busy => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
  const state = document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state');
  const lists = Array.from(document.querySelectorAll('[data-testid="stMain"] .stBidiComponent'));
  const drawn = (list) => list.querySelector('.annotator-candidates')
    || list.querySelector('.ca[data-drawn]:not([data-pending])');
  resolve(!busy.includes(state) && lists.every(drawn));
}, 0))))"""


def settle(page: Page) -> None:
    """Wait until Streamlit has finished the current script run (the app's run state and its 'running' indicator)."""
    page.wait_for_timeout(250)
    page.wait_for_function(_DRAWN_JS, arg=list(BUSY_STATES), timeout=TIMEOUT_MS)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


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
        self.page.wait_for_function(_DRAWN_JS, arg=list(BUSY_STATES), timeout=TIMEOUT_MS)


def log_in(page: Page, name: str, password: str) -> None:
    page.get_by_role("textbox", name="User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    settle(page)


def type_candidate(page: Page, side: str, text: str) -> None:
    box = page.get_by_role("textbox", name=f"Add to {side}")
    box.fill(text)  # the work area checks it after a short pause in typing (Enter would add it)


def test_curate_reload_and_review_in_a_real_browser(
    app_url: str, page: Page, project_dir: Path, tmp_path: Path
) -> None:
    page.goto(app_url)
    log_in(page, "translator", "demo-translator-pass")
    expect(page.get_by_text("Item 1 of 17")).to_be_visible()  # 18 items, one of them already DISCUSS
    expect(page).to_have_url(f"{app_url}/curate?item=shot-whiskey&lang=IT")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("He poured a")).to_be_visible()

    type_candidate(page, "GOOD", "sorso")
    expect(page.get_by_text("valid: will be saved as sorso")).to_be_visible()
    page.get_by_role("button", name="Add to GOOD", exact=True).click()
    expect(main.get_by_text("sorso", exact=True)).to_be_visible()
    expect(page.get_by_text("GOOD (3)")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Added sorso to GOOD.")).to_be_in_viewport()
    settle(page)

    # live validation names the problem under the box; shown in the screenshot
    type_candidate(page, "BAD", "prend* permesso")
    expect(page.get_by_text("'*' must be a token of its own")).to_be_visible()
    settle(page)
    page.get_by_text("All 6 senses of").click()  # the other senses, for the screenshot
    expect(main.get_by_text("← this item (σ)")).to_be_visible()
    viewport = page.viewport_size
    page.set_viewport_size({"width": 1366, "height": 768})  # the size translators work at (issue 21)
    settle(page)
    save_screenshot(page, tmp_path, "curate.png")
    assert viewport is not None
    page.set_viewport_size(viewport)

    page.get_by_role("button", name="Done", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Marked shot-whiskey done.")).to_be_in_viewport()
    settle(page)

    project = Project.open(project_dir)
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "shot-whiskey", "IT")
    assert saved is not None and saved.status is Status.DONE and saved.status_by == "translator"
    assert [e.text for e in saved.good] == ["goccio", "bicchierino", "sorso"]

    # a reload is a new session: the login survives it (session cookie), the URL brings the same item back
    page.reload()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    settle(page)
    expect(page).to_have_url(f"{app_url}/curate?item=shot-whiskey&lang=IT")
    expect(main.get_by_text("sorso", exact=True)).to_be_visible()
    expect(page.get_by_test_id("item-status")).to_have_text("done")
    expect(page.get_by_test_id("item-version")).to_have_text(f"v{saved.version}")
    expect(page.get_by_role("button", name="Reopen")).to_be_visible()

    page.get_by_role("button", name="Log out").click()
    log_in(page, "lead", "demo-lead-pass")
    page.get_by_role("link", name="Review").click()
    expect(page.get_by_role("heading", name="Review")).to_be_visible()
    expect(page.get_by_text("1 item-language(s) flagged DISCUSS.")).to_be_visible()
    expect(page.get_by_text("Resolve this DISCUSS item")).to_be_visible()
    settle(page)
    page.set_viewport_size({"width": 1440, "height": 1950})  # the whole DISCUSS item, down to the resolve form
    expect(page.get_by_text("Resolve as")).to_be_visible()
    expect(page.get_by_role("textbox", name="Add a comment")).to_be_visible()
    expect(page.get_by_role("radio", name="done")).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    settle(page)
    page.wait_for_timeout(500)  # the table draws on a canvas after it is attached
    save_screenshot(page, tmp_path, "review.png")
    for width, height in ((1366, 768), (1920, 1080)):  # the sizes translators and leads work at (issue 8)
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        expect(page.get_by_role("heading", name="Review")).to_be_in_viewport()
        expect(page.get_by_text("1 item-language(s) flagged DISCUSS.")).to_be_in_viewport()
        save_screenshot(page, tmp_path, f"review-{width}x{height}.png")
