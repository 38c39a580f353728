"""Who is logged in to this browser session, and the service acting for them.

Pages call these instead of reading ``st.session_state`` keys themselves, so the login rules (accounts when the
project has users, the implicit local lead when it has none) live in one place. The session keeps the login as an
``accounts.Session`` (user name and session epoch, never the User object), so a disabled account, a changed password
or a logout elsewhere stops this session at its next action.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from annotator.app import configuration, page_run
from annotator.app.configuration import session_secret, sso_identity
from annotator.app.project_cache import cookie_name, get_project, project_key
from annotator.domain.model import User
from annotator.domain.unicode_rules import check_storable
from annotator.errors import PermissionDenied
from annotator.project import Project
from annotator.services import accounts
from annotator.services.curation import LOCAL_USER, CurationService

#: Session key holding the login (``accounts.Session``).
USER_KEY = "auth_user"
#: Session key of why the last session ended, shown once on the login form.
ENDED_KEY = "auth_ended"
#: Session keys: the cookie change to send to the browser on the next render; whether the cookie was tried. The
#: cookie holds the signed session token, so a reload or a second tab stays logged in.
COOKIE_PENDING_KEY = "auth_cookie_pending"
COOKIE_TRIED_KEY = "auth_cookie_tried"
#: The account that logged out in this tab: a log-in by someone else then starts on Curate, not on that page.
LOGGED_OUT_KEY = "auth_logged_out"
#: Session key: this browser session's login ended (logout elsewhere, …) while the provider's identity is still
#: in Streamlit's cookie; it must not silently log in again from it, only after "Sign in with …".
SSO_ENDED_KEY = "sso_ended"


def current_user() -> User | None:
    """The logged-in user, ``LOCAL_USER`` for a project without accounts, or None when a login is needed.

    Read from the database once per script run (one primary-key look-up) and once in every widget callback
    (``page_run.callback_checked``), so a disabled account is locked out at once.
    """
    checked = page_run.checked_user()
    if checked is not None:
        return checked
    project = get_project()
    session = st.session_state.get(USER_KEY)
    if not isinstance(session, accounts.Session):
        if not accounts.has_users(project):
            return LOCAL_USER
        return _resume_from_cookie(project)
    user = session_check(project, session)
    if user is None:
        if accounts.password_change_due(project, session) is not None:
            return None  # a one-time password's session: it stays, but serves only the change form (main)
        st.session_state.pop(USER_KEY, None)
        st.session_state[COOKIE_PENDING_KEY] = None
        st.session_state[SSO_ENDED_KEY] = True  # no silent single sign-on again from the provider's cookie
        if accounts.session_expired(session):
            hours = f"{accounts.session_hours():g}"
            st.session_state[ENDED_KEY] = (
                f"Your session has expired (sessions last {hours} hours). Please log in again."
            )
        else:
            st.session_state[ENDED_KEY] = (
                "Your session has ended (the password was changed, the account disabled, or you logged out "
                "elsewhere). Please log in again."
            )
        return None
    return user


def session_check(project: Project, session: accounts.Session | None, lead: bool = False) -> User | None:
    """The one check every way into the app makes (script runs, fragments, downloads, events): the session's user
    while it is valid — signed session of an enabled account, not expired, its epoch current (``accounts.
    session_user``) — or the local user of a project that has no accounts; None otherwise, and for a non-lead
    when ``lead``. Roles and languages are read afresh, so a demoted lead loses lead actions at once."""
    if session is None:
        user = None if accounts.has_users(project) else LOCAL_USER
    else:
        user = accounts.session_user(project, session)
    if user is None or (lead and not user.is_lead):
        return None
    return user


class SsoRefused(Exception):
    """Signed in with the provider, but no enabled account here has that (verified) e-mail address."""

    def __init__(self, email: str | None, verified: bool) -> None:
        self.email = email
        self.verified = verified
        super().__init__(email or "")


def sso_login(identity: Mapping[str, object]) -> User | None:
    """Log in as the enabled account whose e-mail address the provider's identity vouches for.

    Issues the same session (and cookie) as a local login, so the rest of the app cannot tell them apart.
    Returns None when this session's login ended and the person must press "Sign in with …" again (an old
    identity, or a logout elsewhere); raises ``SsoRefused`` for an unknown, unverified or disabled address.
    """
    if st.session_state.get(SSO_ENDED_KEY):
        return None
    project = get_project()
    held = st.session_state.get(USER_KEY)
    if isinstance(held, accounts.Session) and accounts.password_change_due(project, held) is not None:
        return None  # signed in already, one-time password to replace: keep that session, issue no new one per run
    email = accounts.verified_email(identity)
    if email is None:
        raw = identity.get("email")
        raise SsoRefused(raw if isinstance(raw, str) and raw.strip() else None, verified=False)
    try:
        session = accounts.sso_log_in(project, email, identity.get("iat"))
    except accounts.SignInAgain as ended:
        st.session_state[SSO_ENDED_KEY] = True
        st.session_state[ENDED_KEY] = str(ended)
        return None
    if session is None:
        raise SsoRefused(email, verified=True)
    remember_login(session)
    return accounts.session_user(project, session)


def _resume_from_cookie(project: Project) -> User | None:
    """A new browser session (reload, second tab) picks up the login its cookie proves, once per session."""
    if st.session_state.get(COOKIE_TRIED_KEY):
        return None
    st.session_state[COOKIE_TRIED_KEY] = True
    token = st.context.cookies.get(cookie_name(project))  # empty without a browser session (bare runs)
    if not isinstance(token, str) or not token:
        return None
    key = project_key(project)
    session = accounts.session_from_token(session_secret(project), key, token, accounts.session_hours() * 3600)
    user = accounts.session_account(project, session) if session is not None else None
    if user is None or session is None:
        st.session_state[COOKIE_PENDING_KEY] = None  # expired, forged or ended: drop it from the browser
        return None
    st.session_state[USER_KEY] = session
    return None if user.must_change_password else user  # a one-time password: only the change form (main)


def cookie_script() -> str | None:
    """The script that stores (or clears) the session cookie in the browser, once, after a login or logout.

    Set from JavaScript, so it cannot be HttpOnly; it is SameSite=Strict, Secure on HTTPS, signed, expires with
    the session, and a logout or password change refuses it on the server (its epoch is then out of date).
    """
    if COOKIE_PENDING_KEY not in st.session_state:
        return None
    token = st.session_state[COOKIE_PENDING_KEY]
    age = int(accounts.session_hours() * 3600) if token else 0
    value = token or ""
    name = cookie_name(get_project())
    return (
        "<script>document.cookie = "
        f'"{name}={value}; Path=/; Max-Age={age}; SameSite=Strict" + '
        '(location.protocol === "https:" ? "; Secure" : "");</script>'
    )


def cookie_sent() -> None:
    """The run that carried ``cookie_script`` completed: do not send it again."""
    st.session_state.pop(COOKIE_PENDING_KEY, None)


def client_address() -> str:
    """The browser's address for counting failed log-ins: the connection's (Streamlit gives None for localhost),
    or, when that is a trusted proxy, the client ``X-Forwarded-For`` names (``accounts.client_address``)."""
    peer = st.context.ip_address  # None, and no headers, without a browser session (bare runs)
    forwarded = st.context.headers.get("X-Forwarded-For")
    peer = peer if isinstance(peer, str) else None  # (AppTest's stand-in context answers with other objects)
    forwarded = forwarded if isinstance(forwarded, str) else None
    return accounts.client_address(peer, forwarded, configuration.trusted_proxies())


def login(name: str, password: str) -> User | None:
    """Check the password (scrypt, in the accounts service) and remember the login for this browser session.

    Returns the account, also when its one-time password must be replaced first (the app then shows only the
    change form). Raises ``accounts.LoginThrottled`` (a UserError with the time to wait) after too many failures.
    """
    project = get_project()
    check_storable("user name", name)  # a NUL PostgreSQL refuses: said by name, before any query
    session = accounts.log_in(project, name, password, client_address())
    if session is None:
        return None
    remember_login(session)
    return accounts.session_account(project, session)  # its password may have to be changed first (main)


def remember_login(session: accounts.Session) -> None:
    """Keep ``session`` as this browser session's login, and send its signed token to the browser's cookie."""
    project = get_project()
    st.session_state[USER_KEY] = session
    st.session_state[COOKIE_PENDING_KEY] = accounts.session_token(
        session_secret(project), project_key(project), session
    )
    st.session_state.pop(ENDED_KEY, None)


def login_session() -> accounts.Session | None:
    """This browser session's login (None: not logged in, or the local user of a project without accounts)."""
    session = st.session_state.get(USER_KEY)
    return session if isinstance(session, accounts.Session) else None


def password_change_due() -> User | None:
    """The account logged in here with a one-time password it must replace before anything else; else None."""
    session = login_session()
    return accounts.password_change_due(get_project(), session) if session is not None else None


def logout() -> None:
    """Log out here and end this user's other sessions too (other tabs and browsers ask for a login again).

    After a single sign-on, also ``st.logout()``: Streamlit drops the provider's identity cookie and sends the
    browser to the provider's own sign-out (when it has one), then back to the app's login page.
    """
    session = st.session_state.pop(USER_KEY, None)
    st.session_state[COOKIE_PENDING_KEY] = None
    if isinstance(session, accounts.Session):  # the next log-in in this tab, as someone else, starts afresh
        st.session_state[LOGGED_OUT_KEY] = session.user
        accounts.end_sessions(get_project(), session.user)
    if sso_identity() is not None:
        st.logout()


def service(user: User | None = None) -> CurationService:
    """The curation service acting for the current user; the service itself enforces permissions.

    A page run that has just read the user passes it, saving a second look-up of the login (callbacks never do:
    they check the login afresh).
    """
    user = user or current_user()
    if user is None:
        raise PermissionDenied("Please log in again: your session has ended.")
    return CurationService(get_project(), user)


def require_lead() -> User:
    """The current user if they are a lead; otherwise say so and stop the page."""
    user = current_user()
    if user is None or not user.is_lead:
        st.error("This page is for leads. Ask a lead if you need something here.")
        st.stop()
    return user


def curatable_languages(user: User, project_languages: tuple[str, ...]) -> list[str]:
    """The languages this user may curate: a translator's own, every project language for a lead."""
    if user.is_lead:
        return list(project_languages)
    return [lang for lang in user.languages if lang in project_languages]
