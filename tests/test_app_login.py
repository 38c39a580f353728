"""Log-ins slowed down per user name and per address; sessions end when the password changes (issue 14, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import MAIN, logged_in, plain
from conftest import dump
from streamlit.testing.v1 import AppTest

from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import accounts
from annotator.services.accounts import (
    USER_FREE_FAILURES,
    LoginThrottled,
    add_user,
    authenticate,
    end_sessions,
    log_in,
    session_user,
    set_disabled,
    set_password,
)

T0 = 1_000_000.0
#: 25 guesses one second apart: 5 are free, then each failure doubles the wait (1, 2, 4, 8 s): 4 more are checked.
REFUSED = 16


def test_25_wrong_passwords_then_the_right_one_is_refused_until_the_wait_is_over(
    project: Project, translator_it
) -> None:
    refused = 0
    for attempt in range(25):
        try:
            assert authenticate(project, "ivo", f"wrong-{attempt}", "10.0.0.7", now=T0 + attempt) is None
        except LoginThrottled:
            refused += 1
    assert refused == REFUSED  # most guesses were never even checked
    with pytest.raises(LoginThrottled, match=r"Too many failed log-ins .* try again in \d+ (min \d+ )?s"):
        authenticate(project, "ivo", "translator-password", "10.0.0.7", now=T0 + 25)
    # from another address too: the limit is per user name
    with pytest.raises(LoginThrottled):
        authenticate(project, "ivo", "translator-password", "10.9.9.9", now=T0 + 25)
    # once the wait is over, the right password works and the failures are forgotten
    later = T0 + accounts.MAX_WAIT_S + 30
    assert authenticate(project, "ivo", "translator-password", "10.0.0.7", now=later) is not None
    assert authenticate(project, "ivo", "wrong", "10.0.0.7", now=later + 1) is None  # counted from zero again


def test_the_wait_doubles_with_every_failure_beyond_the_free_ones(project: Project, translator_it) -> None:
    now = T0
    waits = []
    for _ in range(USER_FREE_FAILURES + 3):
        try:
            authenticate(project, "ivo", "wrong-password", None, now=now)
        except LoginThrottled as error:
            waits.append(round(error.wait_s))
            now += error.wait_s  # come back exactly when allowed
            authenticate(project, "ivo", "wrong-password", None, now=now)
    assert waits == [1, 2, 4]


def test_one_address_guessing_many_user_names_is_slowed_down(project: Project) -> None:
    for n in range(accounts.ADDRESS_FREE_FAILURES):
        assert authenticate(project, f"user{n}", "whatever-pass", "10.0.0.9", now=T0) is None
    with pytest.raises(LoginThrottled):
        authenticate(project, "someone-else", "whatever-pass", "10.0.0.9", now=T0)
    assert authenticate(project, "someone-else", "whatever-pass", "10.0.0.10", now=T0) is None  # another address


def test_a_throttled_attempt_changes_nothing(project: Project, translator_it) -> None:
    for n in range(USER_FREE_FAILURES):
        authenticate(project, "ivo", f"wrong-{n}", None, now=T0)
    before = dump(project)
    with pytest.raises(LoginThrottled):
        authenticate(project, "ivo", "translator-password", None, now=T0)
    assert dump(project) == before


def test_sessions_end_when_the_password_changes_the_account_is_disabled_or_the_user_logs_out(
    project: Project, translator_it, lead
) -> None:
    session = log_in(project, "ivo", "translator-password")
    other = log_in(project, "lena", "lead-password")
    assert session is not None and other is not None
    assert session_user(project, session) == translator_it

    set_password(project, "ivo", "a-new-password")
    assert session_user(project, session) is None  # the old login no longer works
    assert session_user(project, other) is not None  # other users are not affected
    fresh = log_in(project, "ivo", "a-new-password")
    assert fresh is not None and session_user(project, fresh) is not None

    set_disabled(project, "ivo", True)
    assert session_user(project, fresh) is None
    set_disabled(project, "ivo", False)
    assert session_user(project, fresh) is None  # enabling again does not revive old sessions

    again = log_in(project, "ivo", "a-new-password")
    assert again is not None
    end_sessions(project, "ivo")  # a logout elsewhere
    assert session_user(project, again) is None


@pytest.fixture
def app_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    data = tmp_path / "data"
    project = Project.open(data, create=True)
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return project


def test_the_login_page_never_shows_the_project_folder(app_project: Project) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    shown = " ".join(plain(e.value) for e in [*at.title, *at.caption, *at.markdown, *at.error, *at.warning])
    assert str(app_project.data_dir) not in shown and app_project.data_dir.name not in shown.split()
    lead = logged_in("lena", "lead-password")
    lead.switch_page("pages/project.py").run()
    assert any(str(app_project.data_dir) in m.value for m in lead.markdown)  # leads see it on the Project page


def test_the_login_form_says_when_to_try_again(app_project: Project) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    for n in range(USER_FREE_FAILURES + 1):
        at.text_input(key="login_name").input("ivo")
        at.text_input(key="login_password").input(f"wrong-password-{n}")
        at.button[0].click().run()
    at.text_input(key="login_password").input("translator-password")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert any("Too many failed log-ins" in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert not any("Signed in as" in c.value for c in at.sidebar.caption)


def test_an_open_session_stops_working_after_a_password_change(app_project: Project) -> None:
    at = logged_in("ivo", "translator-password")
    assert any("Signed in as" in c.value for c in at.sidebar.caption)
    set_password(app_project, "ivo", "changed-password")
    at.run()  # the translator's next action
    assert not at.exception, at.exception
    assert not any("Signed in as" in c.value for c in at.sidebar.caption)
    assert at.text_input(key="login_password") is not None
    assert any("session has ended" in plain(w.value) for w in at.warning)
