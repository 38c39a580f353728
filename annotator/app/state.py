"""What every page shares: the open project, who is logged in, the service acting for them, one-shot messages.

Pages call these instead of reading ``st.session_state`` keys themselves, so the login rules (accounts when
the project has users, the implicit local lead when it has none) live in one place.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from annotator.domain.model import User
from annotator.errors import PermissionDenied
from annotator.project import Project, resolve_data_dir
from annotator.services import accounts
from annotator.services.curation import LOCAL_USER, CurationService

#: Session key holding the login (``accounts.Session``: user name and session epoch, never the User object), so
#: a disabled account, a changed password or a logout elsewhere stops this session at its next action.
USER_KEY = "auth_user"
#: Session key of why the last session ended, shown once on the login form.
ENDED_KEY = "auth_ended"
#: The cookie holding the signed session token, so a reload or a second tab stays logged in.
COOKIE = "annotator_session"
#: Session keys: the cookie change to send to the browser on the next render; whether the cookie was tried.
COOKIE_PENDING_KEY = "auth_cookie_pending"
COOKIE_TRIED_KEY = "auth_cookie_tried"
#: Session key of the messages to show once, at the top of the next render.
FLASH_KEY = "flash_messages"
#: Session key of the cached progress counts; any saved change drops it.
PROGRESS_KEY = "progress_counts"


_page_run = threading.local()


@contextmanager
def running_page(user: User) -> Iterator[None]:
    """Mark that ``main`` is running a page for ``user`` (each session's script runs in its own thread)."""
    _page_run.active, _page_run.user = True, user
    try:
        yield
    finally:
        _page_run.active, _page_run.user = False, None


def in_page_run() -> bool:
    return bool(getattr(_page_run, "active", False))


@st.cache_resource(show_spinner=False)
def _open_project(data: str, database_url: str | None) -> Project:
    """One Project (one engine and connection pool) per data folder per server process."""
    del database_url  # part of the cache key only: Project.open reads it from the environment
    return Project.open(resolve_data_dir(data or None))


def get_project() -> Project:
    """The project named by ``ANNOTATOR_DATA`` (or ``./data``), opened once per process."""
    return _open_project(os.environ.get("ANNOTATOR_DATA") or "", os.environ.get("ANNOTATOR_DATABASE_URL"))


def current_user() -> User | None:
    """The logged-in user, ``LOCAL_USER`` for a project without accounts, or None when a login is needed.

    Read from the database once per script run (one primary-key look-up) and in every widget callback, so a
    disabled account is locked out at once.
    """
    if in_page_run():
        return _page_run.user
    project = get_project()
    session = st.session_state.get(USER_KEY)
    if not isinstance(session, accounts.Session):
        if not accounts.has_users(project):
            return LOCAL_USER
        return _resume_from_cookie(project)
    user = accounts.session_user(project, session)
    if user is None:
        st.session_state.pop(USER_KEY, None)
        st.session_state[COOKIE_PENDING_KEY] = None
        st.session_state[ENDED_KEY] = (
            "Your session has ended (the password was changed, the account disabled, or you logged out "
            "elsewhere). Please log in again."
        )
        return None
    return user


def _secret(project: Project) -> str:
    """``session_secret`` from ``.streamlit/secrets.toml`` (needed when several servers share a database),
    else a secret generated into the project folder (0600)."""
    try:
        configured = st.secrets.get("session_secret")
    except Exception:  # no secrets file: Streamlit raises rather than returning nothing
        configured = None
    return str(configured) if configured else accounts.secret_from_folder(project.data_dir)


def _resume_from_cookie(project: Project) -> User | None:
    """A new browser session (reload, second tab) picks up the login its cookie proves, once per session."""
    if st.session_state.get(COOKIE_TRIED_KEY):
        return None
    st.session_state[COOKIE_TRIED_KEY] = True
    try:
        token = st.context.cookies.get(COOKIE)
    except Exception:  # no client context (AppTest, bare runs)
        token = None
    if not token:
        return None
    session = accounts.session_from_token(_secret(project), token, accounts.session_hours() * 3600)
    user = accounts.session_user(project, session) if session is not None else None
    if user is None or session is None:
        st.session_state[COOKIE_PENDING_KEY] = None  # expired, forged or ended: drop it from the browser
        return None
    st.session_state[USER_KEY] = session
    return user


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
    return (
        "<script>document.cookie = "
        f'"{COOKIE}={value}; Path=/; Max-Age={age}; SameSite=Strict" + '
        '(location.protocol === "https:" ? "; Secure" : "");</script>'
    )


def cookie_sent() -> None:
    """The run that carried ``cookie_script`` completed: do not send it again."""
    st.session_state.pop(COOKIE_PENDING_KEY, None)


def client_address() -> str | None:
    """The browser's address as Streamlit sees it (None on localhost), for slowing down password guessing."""
    try:
        return st.context.ip_address
    except Exception:  # no client context (e.g. a bare script run)
        return None


def login(name: str, password: str) -> User | None:
    """Check the password (scrypt, in the accounts service) and remember the login for this browser session.

    Raises ``accounts.LoginThrottled`` (a UserError with the time to wait) after too many failures.
    """
    project = get_project()
    session = accounts.log_in(project, name, password, client_address() or "local")
    if session is None:
        return None
    st.session_state[USER_KEY] = session
    st.session_state[COOKIE_PENDING_KEY] = accounts.session_token(_secret(project), session)
    st.session_state.pop(ENDED_KEY, None)
    return accounts.session_user(project, session)


def logout() -> None:
    """Log out here and end this user's other sessions too (other tabs and browsers ask for a login again)."""
    session = st.session_state.pop(USER_KEY, None)
    st.session_state[COOKIE_PENDING_KEY] = None
    if isinstance(session, accounts.Session):
        accounts.end_sessions(get_project(), session.user)


def service() -> CurationService:
    """The curation service acting for the current user; the service itself enforces permissions."""
    user = current_user()
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


def flash(kind: str, message: str) -> None:
    """Queue a message for the next render (callbacks run before the page, so they cannot draw it themselves)."""
    st.session_state.setdefault(FLASH_KEY, []).append((kind, message))


def take_flashes() -> list[tuple[str, str]]:
    """Forget and return the queued messages (to draw them with ``show_flash_messages``)."""
    messages: list[tuple[str, str]] = st.session_state.pop(FLASH_KEY, [])
    return messages


def show_flash_messages(messages: list[tuple[str, str]]) -> str | None:
    """Draw errors, warnings and successes here (Markdown-escaped: they quote what users typed); the quiet
    confirmations ("toast") are returned as one Markdown line for the caller to show where it covers nothing."""
    from annotator.app.safe_text import md

    quiet = []
    for kind, raw in messages:
        message = md(raw)
        if kind == "toast":
            quiet.append(message)
        else:
            {"error": st.error, "warning": st.warning, "success": st.success}.get(kind, st.info)(message)
    return " ".join(quiet) or None


def show_flashes() -> list[tuple[str, str]]:
    """Draw and forget the queued messages; the quiet confirmations go to the sidebar (a toast would cover Next
    and Guidelines). Returns the messages."""
    messages = take_flashes()
    quiet = show_flash_messages(messages)
    if quiet:
        st.sidebar.success(quiet, icon=":material/check_circle:")
    return messages
