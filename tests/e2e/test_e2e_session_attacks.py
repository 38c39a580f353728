"""Issue 20, points 1 and 6, against a real server: a cookie signed with the empty key opens nothing, and a forged
``clear_cache`` websocket message from an anonymous visitor wipes no translator's draft.

Real ``annotator serve``, real Chromium; the forged message is sent the way an attacker would, over the server's
own websocket (``/_stcore/stream``) with Streamlit's ``BackMsg`` protobuf, without any browser or login.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import log_in, new_context, serve_app, server_env, settle
from itsdangerous import URLSafeTimedSerializer
from playwright.sync_api import Browser, BrowserContext, Page, expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from websockets.sync.client import connect

from annotator.project import Project
from annotator.services import accounts

pytestmark = pytest.mark.e2e


class Server:
    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def server(demo: Path, tmp_path: Path) -> Iterator[Server]:
    # the first log-in's secret file was left empty (disk full, a crash, two servers starting at once)
    (demo / accounts.SECRET_FILE).write_text("", encoding="ascii")
    log = tmp_path / "server.log"
    env = server_env("ANNOTATOR_DATABASE_URL", "ANNOTATOR_SECRETS")
    with serve_app(demo, env, cwd=tmp_path, log=log) as url:
        yield Server(url, log)


def browser_context(browser: Browser) -> BrowserContext:
    context = new_context(browser, 1440, 1400)
    return context


def asks_for_login(page: Page) -> None:
    expect(page.get_by_role("textbox", name="Password")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)


def test_a_cookie_signed_with_the_empty_key_does_not_open_the_app(
    server: Server, demo: Path, chromium: Browser
) -> None:
    project = Project.open(demo)
    key = accounts.project_id(project)
    forged_old = URLSafeTimedSerializer("", salt="annotator-session-v1").dumps({"u": "lead", "e": 0})
    forged_new = URLSafeTimedSerializer("", salt=f"{accounts.TOKEN_SALT}:{key}").dumps(
        {"u": "lead", "e": 0, "p": key, "t": time.time()}
    )
    context = browser_context(chromium)
    try:
        context.add_cookies(
            [
                {"name": "annotator_session", "value": forged_old, "url": server.url},
                {"name": accounts.cookie_name(key), "value": forged_new, "url": server.url},
            ]
        )
        page = context.new_page()
        page.goto(server.url)
        asks_for_login(page)
        page.reload()
        asks_for_login(page)

        # the empty file was replaced by a real secret (0600) ...
        secret = (demo / accounts.SECRET_FILE).read_text(encoding="ascii").strip()
        assert len(secret) >= accounts.MIN_SECRET_LENGTH
        assert (demo / accounts.SECRET_FILE).stat().st_mode & 0o777 == 0o600
        # ... and a cookie signed with it does open the app: the refusal above was the key, not the cookie
        genuine = accounts.session_token(secret, key, accounts.Session("lead", 0))
        context.add_cookies([{"name": accounts.cookie_name(key), "value": genuine, "url": server.url}])
        page.goto(server.url)
        expect(page.get_by_text("Signed in as")).to_be_visible()
    finally:
        context.close()


def forged_clear_cache(url: str, handled: Callable[[], bool]) -> None:
    """An anonymous visitor's websocket: open a session, ask the server to clear its caches, and keep the socket
    open until ``handled()`` says the server has dealt with the message (or 10 s have passed)."""
    with connect(url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"]) as socket:
        message = BackMsg()
        message.clear_cache = True
        socket.send(message.SerializeToString())
        deadline = time.monotonic() + 10
        while not handled() and time.monotonic() < deadline:
            time.sleep(0.05)


def test_an_anonymous_clear_cache_message_wipes_no_draft(server: Server, demo: Path, chromium: Browser) -> None:
    context = browser_context(chromium)
    try:
        page = context.new_page()
        page.goto(server.url)
        log_in(page, "translator", "demo-translator-pass")
        expect(page).to_have_url(re.compile(r"/curate\?item="))
        settle(page)  # the run that set the item in the address may still redraw the work area
        page.get_by_role("textbox", name="Add to GOOD").fill("sorso")
        page.get_by_role("textbox", name="Add to GOOD").press("Tab")
        expect(page.get_by_text("valid: will be saved as sorso")).to_be_visible()
        settle(page)

        forged_clear_cache(server.url, lambda: "ignored a clear_cache message" in server.output())
        assert "ignored a clear_cache message from a session that is not a signed-in lead" in server.output()

        page.reload()  # a new browser session: the draft comes back from the server's store
        expect(page.get_by_text("Signed in as")).to_be_visible()
        settle(page)
        expect(page.get_by_role("textbox", name="Add to GOOD")).to_have_value("sorso")
    finally:
        context.close()
