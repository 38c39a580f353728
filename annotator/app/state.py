"""What every page shares: the open project, who is logged in, the service acting for them, one-shot messages.

Pages call these instead of reading ``st.session_state`` keys themselves, so the login rules (accounts when
the project has users, the implicit local lead when it has none) live in one place.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple, ParamSpec

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from annotator.app.failures import failures_shown
from annotator.domain.model import User
from annotator.domain.unicode_rules import check_storable
from annotator.errors import DatabaseUnavailableError, PermissionDenied
from annotator.project import Project, resolve_data_dir
from annotator.services import accounts
from annotator.services.curation import LOCAL_USER, CurationService

#: Session key holding the login (``accounts.Session``: user name and session epoch, never the User object), so
#: a disabled account, a changed password or a logout elsewhere stops this session at its next action.
USER_KEY = "auth_user"
#: Session key of why the last session ended, shown once on the login form.
ENDED_KEY = "auth_ended"
#: The cookie holding the signed session token, so a reload or a second tab stays logged in, is named per project
#: (``accounts.cookie_name``): cookies ignore ports, and two projects on one host must not overwrite each other's.
#: Session keys: the cookie change to send to the browser on the next render; whether the cookie was tried.
COOKIE_PENDING_KEY = "auth_cookie_pending"
COOKIE_TRIED_KEY = "auth_cookie_tried"
#: The account that logged out in this tab: a log-in by someone else then starts on Curate, not on that page.
LOGGED_OUT_KEY = "auth_logged_out"
#: Session key of the messages to show once, at the top of the next render.
FLASH_KEY = "flash_messages"
#: Session key of the cached progress counts (a ``ProgressCache``); any saved change drops it.
PROGRESS_KEY = "progress_counts"


class ProgressCache(NamedTuple):
    """A language's status counts as the session keeps them between runs, and when they were read."""

    lang: str
    read_at: float  # time.monotonic()
    counts: dict[str, int]


class Outcome(NamedTuple):
    """An action's result kept in the session for the next run to show: ``kind`` "error" or "success"."""

    kind: str
    message: str
    #: A one-time password to show once (People), else None.
    password: str | None = None


_page_run = threading.local()


@contextmanager
def running_page(user: User, controls: DeltaGenerator | None = None) -> Iterator[None]:
    """Mark that ``main`` is running a page for ``user`` (each session's script runs in its own thread), with the
    place at the top of the sidebar it keeps for the page's own controls."""
    _page_run.active, _page_run.user, _page_run.controls, _page_run.shared = True, user, controls, {}
    try:
        yield
    finally:
        _page_run.active, _page_run.user, _page_run.controls, _page_run.shared = False, None, None, {}


@contextmanager
def callback_checked(user: User) -> Iterator[None]:
    """Mark that a widget callback has just checked the session for ``user``: what it calls (the action runner)
    takes that user instead of checking again — one check per callback, as per script run."""
    _page_run.callback_user = user
    try:
        yield
    finally:
        _page_run.callback_user = None


def in_page_run() -> bool:
    return bool(getattr(_page_run, "active", False))


def run_shared() -> dict[str, Any]:
    """What the parts of one page run read once and share (the jobs panels' one read); outside a page run — a
    fragment rerunning on its own — an empty dict each time, so that rerun reads afresh."""
    shared: dict[str, Any] | None = getattr(_page_run, "shared", None)
    return shared if shared is not None and in_page_run() else {}


def sidebar_controls() -> DeltaGenerator:
    """Where a page draws its sidebar controls: first under the navigation, above the account lines, so that a
    lead's long navigation does not push them below the fold (issue 34: Curate's Queue and Search at 1366×768)."""
    controls = getattr(_page_run, "controls", None)
    return controls if controls is not None else st.sidebar


#: The open projects of this server process, by (data folder, database URL). A plain module-level map, not
#: ``st.cache_resource``: a browser's "clear cache" message empties Streamlit's caches, and must not make the server
#: open the project (a new engine and connection pool) again.
_projects: dict[tuple[str, str | None], Project] = {}
_project_keys: dict[Project, str] = {}
_projects_lock = threading.Lock()


def get_project() -> Project:
    """The project named by ``ANNOTATOR_DATA`` (or ``./data``), opened once per process."""
    key = (os.environ.get("ANNOTATOR_DATA") or "", os.environ.get("ANNOTATOR_DATABASE_URL"))
    with _projects_lock:
        project = _projects.get(key)
        if project is None:
            project = _projects[key] = Project.open(resolve_data_dir(key[0] or None))
        return project


def project_key(project: Project) -> str:
    """The project's id, read once per open project (tokens and the cookie name are bound to it)."""
    with _projects_lock:
        key = _project_keys.get(project)
    if key is None:
        key = accounts.project_id(project)
        with _projects_lock:
            _project_keys[project] = key
    return key


def cookie_name(project: Project) -> str:
    return accounts.cookie_name(project_key(project))


def current_user() -> User | None:
    """The logged-in user, ``LOCAL_USER`` for a project without accounts, or None when a login is needed.

    Read from the database once per script run (one primary-key look-up) and once in every widget callback
    (``callback_checked``), so a disabled account is locked out at once.
    """
    if in_page_run():
        return _page_run.user
    checked: User | None = getattr(_page_run, "callback_user", None)
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


_Params = ParamSpec("_Params")


def guarded(*, lead: bool = False) -> Callable[[Callable[_Params, None]], Callable[_Params, None]]:
    """For every fragment (under ``st.fragment``): a fragment reruns alone — every few seconds with ``run_every``
    — without the app's log-in gate, so each of its runs checks the session first (``current_user``). An ended
    session, or a lead page's fragment of someone no longer a lead, reruns the whole app instead: the log-in form
    then says why the session ended. A database not answering, even to that check, is said as the page says it
    (``database_faults_shown``); anything unexpected inside is shown as a plain message (``failures``)."""

    def wrap(run: Callable[_Params, None]) -> Callable[_Params, None]:
        @failures_shown  # anything unexpected: a message, not a traceback
        @database_faults_shown  # the check's own read too: an action's "not saved", the Try again button, kept text
        @functools.wraps(run)
        def checked(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
            user = current_user()  # in the app's own run: the user its gate has just checked
            if user is None or (lead and not user.is_lead):
                if in_page_run():
                    return  # the page itself refuses (``require_lead``); a rerun here would loop
                st.rerun(scope="app")
            run(*args, **kwargs)

        return checked

    return wrap


class SessionEnded(PermissionError):
    """A file asked for by a session that has ended: refused before any of it is made."""


def guarded_file(make: Callable[[], bytes | str], *, lead: bool = False) -> Callable[[], bytes | str]:
    """For every ``st.download_button`` whose ``data`` is made on the click: Streamlit calls it outside any
    script run, so no log-in gate runs. The login is taken now, while a checked run draws the button, and the
    click checks it again (``session_check``); an ended session gets no byte (Streamlit answers "Failed to generate
    file for download" and logs the refusal), and the page's own next run shows the ended-session message."""
    project = get_project()
    session = login_session()

    def checked() -> bytes | str:
        if session_check(project, session, lead=lead) is None:
            who = session.user if session is not None else "an anonymous visitor"
            raise SessionEnded(f"download refused: the session of {who} has ended (or lost the rights)")
        return make()

    return checked


def _from_secrets(key: str) -> object:
    """A top-level entry of Streamlit's secrets (``.streamlit/secrets.toml``, ``annotator serve --secrets``)."""
    try:
        return st.secrets.get(key)
    except FileNotFoundError:  # no (or an unparsable) secrets file: Streamlit's StreamlitSecretNotFoundError
        return None


def _secret(project: Project) -> str:
    """``session_secret`` from the secrets file (needed when several servers share a database), else a secret
    generated into the project folder (0600). A configured secret that is empty or short is refused
    (``accounts.WeakSecretError``), never used: ``check_configuration`` shows it instead of the app."""
    configured = _from_secrets("session_secret")
    if configured is not None:
        return accounts.check_secret(str(configured), "the secrets file")
    return accounts.secret_from_folder(project.data_dir)


#: Where the trusted proxies come from (a comma-separated list of addresses or networks); else ``trusted_proxies``
#: in the secrets file.
TRUSTED_PROXIES_ENV = "ANNOTATOR_TRUSTED_PROXIES"


def trusted_proxies() -> tuple[accounts.Network, ...]:
    """The proxies whose ``X-Forwarded-For`` is believed: ``ANNOTATOR_TRUSTED_PROXIES``, else ``trusted_proxies``
    of the secrets file; none by default (the connection's own address counts)."""
    configured = os.environ.get(TRUSTED_PROXIES_ENV)
    if configured is not None:
        return accounts.parse_trusted_proxies(configured, TRUSTED_PROXIES_ENV)
    return accounts.parse_trusted_proxies(_from_secrets("trusted_proxies"), "the secrets file")


def check_configuration() -> None:
    """Refuse a weak configured ``session_secret`` or a malformed trusted proxy list (a ``UserError`` to show).

    Cheap (no file or database access): run at the top of every script run. The project folder's own secret is
    checked (and replaced when damaged) where it is read (``accounts.secret_from_folder``)."""
    configured = _from_secrets("session_secret")
    if configured is not None:
        accounts.check_secret(str(configured), "the secrets file")
    trusted_proxies()


# --- single sign-on (Streamlit's st.login, OpenID Connect) -----------------------------------------------------

#: Session key: this browser session's login ended (logout elsewhere, …) while the provider's identity is still
#: in Streamlit's cookie; it must not silently log in again from it, only after "Sign in with …".
SSO_ENDED_KEY = "sso_ended"


@dataclass(frozen=True)
class SsoProvider:
    """One ``[auth]`` provider: ``name`` for ``st.login`` (None: the settings directly in ``[auth]``)."""

    name: str | None
    label: str


def sso_providers() -> list[SsoProvider]:
    """The providers configured in ``[auth]`` of Streamlit's secrets; none when single sign-on is off.

    ``[auth]`` itself is one provider when it has a ``client_id`` (its button says ``sso_label``, a top-level
    secret, default "single sign-on"); each ``[auth.NAME]`` table is one more ("Sign in with NAME", or its
    ``sso_label`` entry in ``[sso_labels]``).
    """
    auth = _from_secrets("auth")
    if not isinstance(auth, Mapping):
        return []
    labels = _from_secrets("sso_labels")
    labels = labels if isinstance(labels, Mapping) else {}
    providers = []
    if "client_id" in auth:
        providers.append(SsoProvider(None, str(_from_secrets("sso_label") or "single sign-on")))
    for name, section in auth.items():
        if isinstance(section, Mapping) and name != "client_kwargs" and "client_id" in section:
            providers.append(SsoProvider(str(name), str(labels.get(name) or name)))
    return providers


def local_login_allowed() -> bool:
    """The user-name-and-password form is offered unless single sign-on is on and ``local_login = false``."""
    return not sso_providers() or _from_secrets("local_login") is not False


def sso_identity() -> dict[str, object] | None:
    """The provider's identity (``st.user``) when this browser signed in with single sign-on, else None."""
    if not sso_providers():
        return None
    identity = st.user.to_dict()  # empty without a browser session; no is_logged_in outside one (AppTest)
    if not identity.get("is_logged_in"):
        return None
    return dict(identity)


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
    st.session_state[USER_KEY] = session
    st.session_state[COOKIE_PENDING_KEY] = accounts.session_token(_secret(project), project_key(project), session)
    st.session_state.pop(ENDED_KEY, None)
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
    session = accounts.session_from_token(_secret(project), key, token, accounts.session_hours() * 3600)
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
    return accounts.client_address(peer, forwarded, trusted_proxies())


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
    st.session_state[COOKIE_PENDING_KEY] = accounts.session_token(_secret(project), project_key(project), session)
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
    if isinstance(session, accounts.Session):
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


# --- database faults -------------------------------------------------------------------------------------

#: Session key: the text inputs' values kept when a database fault stopped the page (``database_faults_shown``).
_KEPT_INPUTS_KEY = "database_fault_kept_inputs"
#: Session key: an action said the database is not answering; the page, failing too, need not say it again.
_ACTION_FAULT_KEY = "database_fault_in_action"


def say_database_fault(error: DatabaseUnavailableError) -> None:
    """An action's change met a database that is not answering: queue what became of it ("your last change was
    not saved"), shown once by ``database_faults_shown`` when the page, failing too, stops."""
    flash("error", error.unsaved_message)
    st.session_state[_ACTION_FAULT_KEY] = True


def database_faults_shown(run: Callable[_Params, None]) -> Callable[_Params, None]:
    """Wrap the app's whole run, and each fragment (a fragment reruns alone, outside it): a database that stops
    answering (a PostgreSQL restart, a full disk) while the page is read shows one message saying whether the last
    change was saved, never a traceback.

    An action's own message ("your last change was not saved", from ``run_action``) and the others it queued are
    drawn here instead, once, with a "Try again" button (a click runs the page again).
    The inputs the page could not draw are gone from the browser, so their text is kept and set again before
    the next run draws them: what the user typed is there to redo.
    """

    @functools.wraps(run)
    def guarded(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
        for key, value in st.session_state.pop(_KEPT_INPUTS_KEY, {}).items():
            st.session_state[key] = value  # set before its widget is drawn: the browser shows the kept text
        try:
            run(*args, **kwargs)
        except DatabaseUnavailableError as error:
            said = st.session_state.pop(_ACTION_FAULT_KEY, False)  # the action's message is queued: enough
            show_flash_messages([*take_flashes(), *([] if said else [("error", str(error))])])
            st.session_state[_KEPT_INPUTS_KEY] = {
                key: value for key, value in st.session_state.items() if isinstance(value, str) and value
            }
            st.button("Try again", key=f"database_retry|{run.__qualname__}", icon=":material/refresh:")
            st.stop()
        st.session_state.pop(_ACTION_FAULT_KEY, None)

    return guarded
