"""Log-ins slowed down per user name and per address; sessions end when the password changes (issue 14, item 7)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from app_helpers import MAIN, logged_in, plain
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.domain.model import Role
from annotator.errors import UserError
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
#: 25 guesses one second apart from one address: 5 are free, then each failure doubles the wait (1, 2, 4, 8 s): 4
#: more are checked.
REFUSED = 16
PROXY = "10.0.0.2"


class Sleeps:
    """Records the delays ``authenticate`` holds attempts back by, instead of sleeping them (many attempts)."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def test_25_wrong_passwords_then_the_right_one_is_refused_from_that_address_until_the_wait_is_over(
    project: Project, translator_it
) -> None:
    refused = 0
    sleeps = Sleeps()
    for attempt in range(25):
        try:
            assert authenticate(project, "ivo", f"wrong-{attempt}", "10.0.0.7", now=T0 + attempt, sleep=sleeps) is None
        except LoginThrottled:
            refused += 1
    assert refused == REFUSED  # most guesses were never even checked
    with pytest.raises(LoginThrottled, match=r"Too many failed log-ins .* try again in \d+ (min \d+ )?s"):
        authenticate(project, "ivo", "translator-password", "10.0.0.7", now=T0 + 25)
    # from another address the right password works: the guesser cannot lock the account out
    assert authenticate(project, "ivo", "translator-password", "10.9.9.9", now=T0 + 25, sleep=sleeps) is not None
    # once the wait is over, the right password works from the guessing address too, and failures are forgotten
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


def test_50_made_up_names_from_the_proxy_then_the_lead_gets_in_within_2_s(project: Project, lead) -> None:
    """Issue 20, point 4 (acceptance): every browser behind the proxy shares its address."""
    sleeps = Sleeps()
    for n in range(50):
        assert authenticate(project, f"made-up-{n}", "whatever-pass", PROXY, sleep=sleeps) is None
    # only held back, never refused: the first 20 not at all, then 0.125, 0.25, 0.5 s, then 1 s each
    assert sleeps.delays == [0.125, 0.25, 0.5] + [accounts.ADDRESS_MAX_DELAY_S] * 27
    held: list[float] = []

    def really_sleep(seconds: float) -> None:
        held.append(seconds)
        time.sleep(seconds)

    started = time.monotonic()
    user = authenticate(project, "lena", "lead-password", PROXY, sleep=really_sleep)
    took = time.monotonic() - started
    assert user is not None and user.name == "lena"
    assert held == [accounts.ADDRESS_MAX_DELAY_S]  # held back by the address's failures (1 s of the 2), not refused
    print(f"lead's log-in after 50 failed made-up names from the proxy's address: {took:.2f} s")
    # and the next visitor behind the proxy is held back by one second at most, never refused
    assert authenticate(project, "made-up-x", "whatever-pass", PROXY, sleep=sleeps) is None
    assert sleeps.delays[-1] <= accounts.ADDRESS_MAX_DELAY_S


def test_nobody_can_lock_a_named_account_out(project: Project, lead) -> None:
    """Policy: guesses at one name from many addresses only delay its log-ins, by ``NAME_MAX_DELAY_S`` at most."""
    sleeps = Sleeps()
    for n in range(30):  # 30 guesses from 30 addresses, all within a second
        assert authenticate(project, "lena", f"guess-{n}", f"10.1.0.{n}", now=T0, sleep=sleeps) is None
    assert max(sleeps.delays) == accounts.NAME_MAX_DELAY_S
    held = Sleeps()
    assert authenticate(project, "lena", "lead-password", "10.7.7.7", now=T0 + 1, sleep=held) is not None
    assert held.delays == [accounts.NAME_MAX_DELAY_S]
    # the right password forgot the name's failures: the next log-in is not held back
    again = Sleeps()
    assert authenticate(project, "lena", "lead-password", "10.7.7.7", now=T0 + 2, sleep=again) is not None
    assert again.delays == []


TRUSTED = accounts.parse_trusted_proxies("127.0.0.1, 10.0.0.0/24", "test")


@pytest.mark.parametrize(
    ("peer", "forwarded", "seen"),
    [
        (None, "203.0.113.9", "203.0.113.9"),  # a proxy on this machine (Streamlit reports localhost as None)
        ("10.0.0.2", "203.0.113.9", "203.0.113.9"),  # a proxy in the trusted network
        ("10.0.0.2", "6.6.6.6, 203.0.113.9", "203.0.113.9"),  # the browser's own made-up entry is left of ours
        ("10.0.0.2", "203.0.113.9, 10.0.0.3", "203.0.113.9"),  # two trusted proxies in a row
        ("198.51.100.4", "203.0.113.9", "198.51.100.4"),  # not a trusted proxy: its header is not believed
        ("10.0.0.2", None, "10.0.0.2"),
        ("10.0.0.2", "", "10.0.0.2"),
    ],
)
def test_the_client_address_comes_from_x_forwarded_for_only_behind_a_trusted_proxy(
    peer: str | None, forwarded: str | None, seen: str
) -> None:
    assert accounts.client_address(peer, forwarded, TRUSTED) == seen
    assert accounts.client_address(peer, forwarded, ()) == (peer or "127.0.0.1")  # none configured: never


def test_a_malformed_trusted_proxy_is_refused_naming_it() -> None:
    with pytest.raises(UserError, match=r"ANNOTATOR_TRUSTED_PROXIES: trusted proxy 'proxy\.example\.org'"):
        accounts.parse_trusted_proxies("10.0.0.1, proxy.example.org", "ANNOTATOR_TRUSTED_PROXIES")
    assert len(accounts.parse_trusted_proxies(["::1", "localhost"], "x")) == 3


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


def test_a_new_password_clears_the_waits_of_the_account(project: Project, lead) -> None:
    """A lead who reset a translator's password can let them in at once, from the address that was refused."""
    sleeps = Sleeps()
    for n in range(USER_FREE_FAILURES):
        assert authenticate(project, "lena", f"wrong-{n}", PROXY, sleep=sleeps) is None
    with pytest.raises(LoginThrottled):
        authenticate(project, "lena", "lead-password", PROXY, sleep=sleeps)
    set_password(project, "lena", "a-new-lead-password")
    assert authenticate(project, "lena", "a-new-lead-password", PROXY, sleep=sleeps) is not None
