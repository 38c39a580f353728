"""Single sign-on (issue 8): an OpenID Connect identity is matched to an account by its verified e-mail address.

Roles and languages stay in our database; the address only says which account. These are the service rules; the
browser flow against a real local provider is in tests/test_e2e_sso.py.
"""

from __future__ import annotations

import time

import pytest
from project_helpers import dump

from annotator.domain.model import Role
from annotator.errors import UserError
from annotator.project import Project
from annotator.services.accounts import (
    Session,
    SignInAgain,
    add_user,
    end_sessions,
    list_users,
    normalize_email,
    session_user,
    set_disabled,
    set_email,
    sso_log_in,
    verified_email,
)

pytestmark = pytest.mark.both_engines


@pytest.fixture
def ivo(project: Project) -> str:
    add_user(project, "lea", Role.LEAD, (), "lead-password")  # a project's first account is a lead
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password", email="Ivo.Rossi@Example.org")
    return "ivo"


def test_an_address_is_stored_lower_case_and_listed(project: Project, ivo: str) -> None:
    assert [(u.name, u.email) for u in list_users(project)] == [("ivo", "ivo.rossi@example.org"), ("lea", None)]


def test_a_verified_address_in_any_case_logs_in_as_that_account_with_its_role_and_languages(
    project: Project, ivo: str
) -> None:
    session = sso_log_in(project, "IVO.ROSSI@example.ORG")
    assert session == Session("ivo", 0)
    user = session_user(project, session)
    assert user is not None and user.role is Role.TRANSLATOR and user.languages == ("IT",)


def test_an_unknown_address_gets_no_session(project: Project, ivo: str) -> None:
    assert sso_log_in(project, "someone.else@example.org") is None
    assert sso_log_in(project, "not an address") is None


def test_a_disabled_account_is_refused_like_an_unknown_address(project: Project, ivo: str) -> None:
    set_disabled(project, "ivo", True)
    assert sso_log_in(project, "ivo.rossi@example.org") is None
    set_disabled(project, "ivo", False)
    assert sso_log_in(project, "ivo.rossi@example.org") is not None


def test_the_session_carries_the_current_epoch_so_a_logout_elsewhere_ends_it(project: Project, ivo: str) -> None:
    session = sso_log_in(project, "ivo.rossi@example.org")
    assert session is not None and session_user(project, session) is not None
    end_sessions(project, "ivo")
    assert session_user(project, session) is None
    again = sso_log_in(project, "ivo.rossi@example.org")
    assert again is not None and again.epoch == session.epoch + 1 and session_user(project, again) is not None


def test_an_identity_from_before_a_logout_or_older_than_a_session_must_sign_in_again(
    project: Project, ivo: str
) -> None:
    """Streamlit keeps the provider's identity in a cookie for 30 days; a logout here must not be undone by it."""
    issued = time.time() - 60
    assert sso_log_in(project, "ivo.rossi@example.org", issued_at=int(issued)) is not None
    end_sessions(project, "ivo")  # logged out (in any browser)
    with pytest.raises(SignInAgain, match="sign in again"):
        sso_log_in(project, "ivo.rossi@example.org", issued_at=int(issued))
    assert sso_log_in(project, "ivo.rossi@example.org", issued_at=int(time.time()) + 1) is not None  # signed in anew
    with pytest.raises(SignInAgain):
        sso_log_in(project, "ivo.rossi@example.org", issued_at=issued, now=issued + 13 * 3600)
    # an unknown or disabled account is told "ask a lead", never "sign in again"
    assert sso_log_in(project, "someone@example.org", issued_at=0) is None
    set_disabled(project, "ivo", True)
    assert sso_log_in(project, "ivo.rossi@example.org", issued_at=int(issued)) is None


def test_only_an_address_the_provider_did_not_deny_verifying_counts() -> None:
    assert verified_email({"email": "Ivo@Example.org"}) == "ivo@example.org"  # no claim: the provider vouches
    assert verified_email({"email": "ivo@example.org", "email_verified": True}) == "ivo@example.org"
    assert verified_email({"email": "ivo@example.org", "email_verified": "true"}) == "ivo@example.org"
    assert verified_email({"email": "ivo@example.org", "email_verified": False}) is None
    assert verified_email({"email": "ivo@example.org", "email_verified": "false"}) is None
    assert verified_email({"email": "ivo@example.org", "email_verified": None}) is None
    assert verified_email({"sub": "ivo"}) is None
    assert verified_email({"email": "  "}) is None
    assert verified_email({"email": "not-an-address"}) is None
    assert verified_email({"email": 42}) is None


def test_malformed_and_taken_addresses_are_refused_with_clear_messages(project: Project, ivo: str) -> None:
    before = dump(project)
    with pytest.raises(UserError, match="'ivo@' is not valid"):
        add_user(project, "lena", Role.LEAD, (), "lead-password", email="ivo@")
    with pytest.raises(UserError, match="already used by the account 'ivo'"):
        add_user(project, "lena", Role.LEAD, (), "lead-password", email="IVO.ROSSI@example.org")
    assert dump(project) == before
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    with pytest.raises(UserError, match="already used by the account 'ivo'"):
        set_email(project, "lena", "ivo.rossi@EXAMPLE.org")
    with pytest.raises(UserError, match="No user named 'nobody'"):
        set_email(project, "nobody", "nobody@example.org")
    assert set_email(project, "ivo", "ivo.rossi@example.org") == "ivo.rossi@example.org"  # its own: fine


def test_changing_or_clearing_the_address_moves_the_login_and_ends_open_sessions(project: Project, ivo: str) -> None:
    session = sso_log_in(project, "ivo.rossi@example.org")
    assert session is not None
    assert set_email(project, "ivo", "ivo@example.com") == "ivo@example.com"
    assert session_user(project, session) is None  # opened for the old address
    assert sso_log_in(project, "ivo.rossi@example.org") is None
    assert sso_log_in(project, "ivo@example.com") is not None
    assert set_email(project, "ivo", None) is None
    assert sso_log_in(project, "ivo@example.com") is None


def test_normalize_email() -> None:
    assert normalize_email("  A.B+tag@Sub.Example.ORG ") == "a.b+tag@sub.example.org"
    bad_ones = ("", "a", "a@b", "@example.org", "a@@example.org", "a b@example.org", "a@example.", "x" * 250 + "@e.org")
    for bad in bad_ones:
        with pytest.raises(UserError, match="is not valid"):
            normalize_email(bad)
