"""Single sign-on in the app (issue 8): the login page with ``[auth]`` configured, and what a provider identity
(``st.user``, seeded here as Streamlit's AppTest allows) gets: the matching account, or the "ask a lead" page.

The real redirect flow against a real provider in Chromium is tests/test_e2e_sso.py.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from app_helpers import MAIN, plain
from streamlit.testing.v1 import AppTest

from annotator.app.session import USER_KEY
from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import people
from annotator.services.accounts import add_user, authenticate, list_users

AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "a-test-cookie-secret-of-enough-length",
    "client_id": "annotator",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}


@pytest.fixture
def app_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    data = tmp_path / "data"
    project = Project.open(data, create=True)
    add_user(project, "lena", Role.LEAD, (), "lead-password", email="lena@example.org")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password", email="ivo@example.org")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return project


def app(secrets: dict[str, Any] | None = None, user: dict[str, Any] | None = None) -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.secrets.update({"auth": AUTH, "sso_label": "Example SSO"} if secrets is None else secrets)
    if user is not None:
        at.user = user
    return at.run()


def signed_in(at: AppTest) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def identity(email: str, **claims: object) -> dict[str, Any]:
    return {"is_logged_in": True, "email": email, "iat": int(time.time()), **claims}


def test_without_auth_the_login_page_has_no_single_sign_on(app_project: Project) -> None:
    at = app(secrets={})
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Log in"]


def test_with_auth_the_provider_is_offered_beside_the_local_form(app_project: Project) -> None:
    at = app()
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in with Example SSO", "Log in"]
    assert at.text_input(key="login_password") is not None


def test_local_login_false_leaves_only_the_provider(app_project: Project) -> None:
    at = app(secrets={"auth": {"okta": AUTH}, "local_login": False})
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in with okta"]  # a named provider: [auth.okta]
    assert not any(w.key == "login_password" for w in at.text_input)


def test_a_matching_verified_address_logs_in_as_that_account(app_project: Project) -> None:
    at = app(user=identity("IVO@Example.org", email_verified=True))
    assert not at.exception, at.exception
    assert "Signed in as **ivo** · translator · IT" in signed_in(at)
    assert "Log out" in [b.label for b in at.sidebar.button]


def test_logging_out_ends_the_sessions_and_signs_out_of_the_provider(app_project: Project) -> None:
    at = app(user=identity("lena@example.org"))
    assert "· lead ·" in signed_in(at)
    at.sidebar.button(key="logout").click().run()
    assert not at.exception, at.exception
    assert at.user.get("is_logged_in") is False  # st.logout() cleared the provider identity
    assert not signed_in(at)
    assert at.text_input(key="login_password") is not None


@pytest.mark.parametrize(
    ("claims", "shown"),
    [
        (identity("stranger@example.org"), "Signed in as **stranger@example.org**, but this project has no access"),
        (identity("ivo@example.org", email_verified=False), "has not verified this e-mail address"),
        ({"is_logged_in": True, "sub": "no-email"}, "Signed in as **an account without an e-mail address**"),
    ],
)
def test_everyone_else_gets_the_ask_a_lead_page_and_nothing_else(
    app_project: Project, claims: dict[str, Any], shown: str
) -> None:
    at = app(user=claims)
    assert not at.exception, at.exception
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and shown in errors[0] and "ask a lead for access" in errors[0], errors
    assert [t.value for t in at.title] == ["No access to this project"]
    assert [b.label for b in at.button] == ["Sign out"]
    assert not signed_in(at) and not at.text_input


def test_a_disabled_account_gets_the_same_refusal(app_project: Project) -> None:
    from annotator.services.accounts import set_disabled

    set_disabled(app_project, "ivo", True)
    at = app(user=identity("ivo@example.org"))
    assert not at.exception, at.exception
    assert any("ask a lead for access" in plain(e.value) for e in at.error)
    assert not signed_in(at)
    assert [u.name for u in list_users(app_project) if not u.disabled] == ["lena"]


def test_a_reset_account_signing_in_with_the_provider_replaces_the_one_time_password_in_one_session(
    app_project: Project,
) -> None:
    """A lead's reset of an account that signs in with the provider: the one-time password was seen by the lead,
    so the next log-in (single sign-on too) replaces it first; the forced form keeps the session it was given
    (no new session and cookie on each run), and the new password then serves as any other."""
    lena = next(u for u in list_users(app_project) if u.name == "lena")
    one_time = people.reset_password(app_project, lena, "ivo").password
    time.sleep(1.1)  # the provider's sign-in (its iat, whole seconds) comes after the reset
    at = app(user=identity("ivo@example.org"))
    assert not at.exception, at.exception
    assert [t.label for t in at.text_input] == ["New password", "Repeat new password"] and not signed_in(at)
    assert len(at.get("iframe")) == 1  # the session's cookie, sent once
    held = at.session_state[USER_KEY]
    for _ in range(2):
        at.run()
        assert [t.label for t in at.text_input] == ["New password", "Repeat new password"]
        assert len(at.get("iframe")) == 0 and at.session_state[USER_KEY] is held
    at.text_input(key="forced_new").input("ivo-own-password")
    at.text_input(key="forced_repeat").input("ivo-own-password")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "Signed in as **ivo** · translator · IT" in signed_in(at)
    assert authenticate(app_project, "ivo", one_time) is None
    assert authenticate(app_project, "ivo", "ivo-own-password") is not None
