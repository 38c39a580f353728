"""Issue 20, points 6 and 9 in the app: a session past its lifetime cannot save, however long its tab stays open;
Streamlit's cache clearing cannot wipe drafts or the open project, and is obeyed only from a signed-in lead."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
import streamlit as st
from app_helpers import MAIN, area, logged_in, plain, send_area
from streamlit.runtime.state.session_state import SessionState
from streamlit.testing.v1 import AppTest

from annotator.app import clear_cache_guard, drafts, project_cache
from annotator.app.session import USER_KEY
from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import accounts

ITEM, LANG = "shot-whiskey", "IT"
TRANSLATOR = ("translator", "demo-translator-pass")
LEAD = ("lead", "demo-lead-pass")


@pytest.fixture
def demo(app_demo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANNOTATOR_SESSION_HOURS", "12")
    return app_demo


def good(data: Path) -> tuple[list[str], int]:
    project = Project.open(data)
    with project.db.read() as conn:
        row = project.repo.get_item_language(conn, ITEM, LANG)
    assert row is not None
    return [c.format() for c in row.good], row.version


def signed_in(at: AppTest) -> bool:
    return any("Signed in as" in c.value for c in at.sidebar.caption)


def test_an_open_tab_cannot_save_once_its_session_is_older_than_the_lifetime(demo: Path) -> None:
    at = logged_in(*TRANSLATOR)
    send_area(at, "add", side="good", text="sorso")
    saved, version = good(demo)
    assert "sorso" in saved  # the session works while it is young

    # the tab stays open past the 12 hours (the session's issue time is what counts, not the cookie)
    session = at.session_state[USER_KEY]
    at.session_state[USER_KEY] = dataclasses.replace(session, issued_at=time.time() - 12.5 * 3600)
    send_area(at, "add", side="good", text="sorsetto")
    assert good(demo) == (saved, version)  # nothing saved
    assert not signed_in(at)
    assert at.text_input(key="login_password") is not None
    assert any("session has expired (sessions last 12 hours)" in plain(w.value) for w in at.warning)


def test_clearing_streamlits_caches_keeps_remembered_filters_and_the_open_project(demo: Path) -> None:
    at = logged_in(*TRANSLATOR)
    at.sidebar.text_input(key="cur_search").input("whiskey").run()  # a filter, kept on the server per user
    project = project_cache.get_project()
    # what Streamlit does on a clear_cache message (AppSession._handle_clear_cache_request)
    st.cache_data.clear()
    st.cache_resource.clear()
    assert project_cache.get_project() is project  # not opened again (no new engine and connection pool)
    again = logged_in(*TRANSLATOR)  # a reload: a new browser session of the same translator
    assert again.sidebar.text_input(key="cur_search").value == "whiskey"
    translator = next(u for u in accounts.list_users(project) if u.name == TRANSLATOR[0])
    assert drafts.store().get(drafts.owner(project, translator), "cur_search") == "whiskey"
    assert area(again)["item"] == "shot-whiskey"


def session_state(login: object = None) -> SessionState:
    """A Streamlit session's state, as ``AppSession`` holds it, with this login in it (None: anonymous)."""
    held = SessionState()
    if login is not None:
        held[USER_KEY] = login
    return held


def test_only_a_signed_in_lead_may_clear_the_caches(demo: Path) -> None:
    assert clear_cache_guard.install() and clear_cache_guard.install()  # once per process; Streamlit still has it
    project = project_cache.get_project()
    lead = accounts.log_in(project, *LEAD)
    translator = accounts.log_in(project, *TRANSLATOR)
    assert lead is not None and translator is not None
    assert clear_cache_guard.may_clear_cache(session_state(lead))
    assert not clear_cache_guard.may_clear_cache(session_state())  # anonymous
    assert not clear_cache_guard.may_clear_cache(session_state(translator))
    assert not clear_cache_guard.may_clear_cache(session_state("lead"))  # not a login at all
    expired = dataclasses.replace(lead, issued_at=time.time() - 13 * 3600)
    assert not clear_cache_guard.may_clear_cache(session_state(expired))
    accounts.end_sessions(project, "lead")  # logged out elsewhere
    assert not clear_cache_guard.may_clear_cache(session_state(lead))


def test_without_accounts_everyone_is_the_local_lead_and_may_clear_the_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "solo"
    project = Project.open(data, create=True)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    assert clear_cache_guard.may_clear_cache(session_state())
    accounts.add_user(project, "lena", Role.LEAD, (), "lead-password")
    assert not clear_cache_guard.may_clear_cache(session_state())


def test_a_weak_configured_session_secret_shows_only_an_error(demo: Path) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.secrets["session_secret"] = ""
    at.run()
    assert not at.exception, at.exception
    assert any("session_secret in the secrets file is empty" in plain(e.value) for e in at.error)
    assert not at.text_input  # no login form: the app refuses to run with it
