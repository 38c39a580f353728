"""Accounts: salted scrypt password hashes, user management, login checks and session epochs.

scrypt is memory-hard, so a stolen database does not give the translators' passwords away cheaply. Failed
log-ins are counted per user name and per client address in the database (so every app server shares them)
and slow further attempts down exponentially. Every session remembers its user's *session epoch*; changing
the password, disabling the account or logging out bumps it, which ends the user's other sessions.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import math
import os
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import Connection, select

from annotator.domain.model import Role, User
from annotator.errors import UserError
from annotator.project import Project
from annotator.store import schema

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSWORD_LENGTH = 8
_USERNAME = re.compile(r"^[A-Za-z0-9_.-]{2,64}$")

#: Failed log-ins allowed before each further attempt must wait: per user name, and per client address (higher,
#: as an office behind one address shares it). The wait doubles with every failure, up to ``MAX_WAIT_S``.
USER_FREE_FAILURES = 5
ADDRESS_FREE_FAILURES = 20
MAX_WAIT_S = 15 * 60
#: Failures older than this are forgotten: a translator's typos last week do not slow them down today.
FORGET_AFTER_S = 24 * 3600


class LoginThrottled(UserError):
    """Too many failed log-ins for this user name or from this address: the attempt was not even checked."""

    def __init__(self, wait_s: float) -> None:
        self.wait_s = wait_s
        super().__init__(
            "Too many failed log-ins for this user name or from this address: "
            f"try again in {format_wait(wait_s)}. Ask a lead if you have forgotten your password."
        )


def format_wait(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    minutes, secs = divmod(whole, 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def wait_after(failures: int, free: int) -> float:
    """Seconds to wait after ``failures`` failed attempts: none up to ``free``, then 1, 2, 4 … ``MAX_WAIT_S``."""
    if failures < free:
        return 0.0
    return float(min(2 ** min(failures - free, 20), MAX_WAIT_S))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    encode = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


def verify_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    try:
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except ValueError:  # a damaged stored hash locks the account instead of crashing the login page
        return False
    return hmac.compare_digest(actual, expected)


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"A password needs at least {MIN_PASSWORD_LENGTH} characters.")


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the user does not exist (see ``authenticate``); made once, on first use."""
    return hash_password("not-a-real-password")


def add_user(
    project: Project,
    name: str,
    role: Role | str,
    languages: tuple[str, ...],
    password: str,
    display_name: str = "",
    email: str | None = None,
) -> User:
    if not _USERNAME.match(name):
        raise UserError(f"User name {name!r}: use 2-64 letters, digits, '.', '_' or '-'.")
    role = Role(role)
    _check_password(password)
    langs = tuple(lang.upper() for lang in languages)
    if role is Role.TRANSLATOR and not langs:
        raise UserError("A translator needs at least one language (--languages IT,DE).")
    address = normalize_email(email) if email else None
    user = User(name=name, role=role, languages=langs, display_name=display_name or name, email=address)
    with project.db.write() as conn:
        if address is not None:
            _check_email_free(project, conn, address, name)
        project.repo.add_user(conn, user, hash_password(password))
    return user


# --- e-mail addresses (single sign-on matches a login to an account by them) ----------------------------------

#: One '@', no spaces, a dot in the domain: enough to catch typos; the provider vouches for the rest.
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s.]+(\.[^@\s.]+)+$")
MAX_EMAIL_LENGTH = 254


def normalize_email(email: str) -> str:
    """The address as stored and matched: trimmed and lower-cased; a ``UserError`` naming it when malformed."""
    address = email.strip().lower()
    if len(address) > MAX_EMAIL_LENGTH or not _EMAIL.match(address):
        raise UserError(f"E-mail address {email.strip()!r} is not valid: write it as name@example.org.")
    return address


def _check_email_free(project: Project, conn: Connection, address: str, name: str) -> None:
    other = project.repo.get_user_by_email(conn, address)
    if other is not None and other.name != name:
        raise UserError(f"E-mail address {address!r} is already used by the account {other.name!r}.")


def set_email(project: Project, name: str, email: str | None) -> str | None:
    """Give the account an e-mail address (or none, with ``None`` or ""); returns the address as stored.

    Changing it ends the account's open sessions: a single sign-on session was opened for the old address.
    """
    address = normalize_email(email) if email else None
    with project.db.write() as conn:
        if address is not None:
            _check_email_free(project, conn, address, name)
        project.repo.update_user(conn, name, email=address)
        _bump_epoch(conn, name)
    return address


def verified_email(claims: Mapping[str, object]) -> str | None:
    """The e-mail address an OpenID Connect identity (``st.user``) vouches for, lower-cased, or None.

    None when there is no address, or when the provider says ``email_verified`` is anything but true (a provider
    that does not send the claim is trusted to have checked the address itself).
    """
    email = claims.get("email")
    if not isinstance(email, str) or not email.strip():
        return None
    if "email_verified" in claims:
        verified = claims["email_verified"]
        if isinstance(verified, str):  # some providers send the JSON boolean as a string
            verified = verified.strip().lower() == "true"
        if verified is not True:
            return None
    try:
        return normalize_email(email)
    except UserError:
        return None


class SignInAgain(UserError):
    """The provider's identity is older than the account's last logout (or than a session may last)."""

    def __init__(self) -> None:
        super().__init__("Your session has ended. Please sign in again.")


def sso_log_in(project: Project, email: str, issued_at: object = None, now: float | None = None) -> Session | None:
    """The session for the enabled account whose e-mail address is ``email`` (any case), or None.

    ``email`` must be one the provider verified (``verified_email``). A disabled account is refused like an
    unknown address: the person has to ask a lead either way. ``issued_at`` is the identity token's ``iat``
    (Unix time, when the provider signed the person in): an identity from before the account's last logout,
    password change or e-mail change, or older than a session lasts (``session_hours``), raises ``SignInAgain``
    (Streamlit keeps the identity in a cookie for 30 days; a logout here must not be undone by it).
    """
    try:
        address = normalize_email(email)
    except UserError:
        return None
    now = time.time() if now is None else now
    with project.db.read() as conn:
        user = project.repo.get_user_by_email(conn, address)
        if user is None or user.disabled:
            return None
        changed_at = _epoch_changed_at(conn, user.name)
        epoch = _epoch(conn, user.name)
    # ``iat`` is whole seconds: one issued in the very second of the logout is taken as from before it
    if isinstance(issued_at, int | float) and not isinstance(issued_at, bool):
        too_old = now - issued_at > session_hours() * 3600
        if too_old or (changed_at is not None and issued_at <= math.floor(changed_at)):
            raise SignInAgain()
    return Session(user.name, epoch)


def set_password(project: Project, name: str, password: str) -> None:
    """A new password; the user's open sessions end at their next action (they were opened with the old one)."""
    _check_password(password)
    with project.db.write() as conn:
        project.repo.update_user(conn, name, password_hash=hash_password(password))
        _bump_epoch(conn, name)
        conn.execute(schema.login_throttle.delete().where(schema.login_throttle.c.key == _user_key(name)))


def set_disabled(project: Project, name: str, disabled: bool) -> None:
    """Disable or enable an account; disabling also ends its open sessions (enabling does not revive them)."""
    with project.db.write() as conn:
        project.repo.update_user(conn, name, disabled=disabled)
        _bump_epoch(conn, name)


def list_users(project: Project) -> list[User]:
    with project.db.read() as conn:
        return project.repo.list_users(conn)


def authenticate(
    project: Project, name: str, password: str, address: str | None = None, now: float | None = None
) -> User | None:
    """The user if the password is right and the account is enabled; None otherwise (never says which).

    Raises ``LoginThrottled`` without checking the password while this user name or ``address`` must wait.
    The attempt is counted as a failure *before* the (slow) password check, so parallel guesses cannot slip
    past the limit; a successful check then forgets the user name's failures and takes this one back.
    """
    name = name.strip()[:64]
    now = time.time() if now is None else now
    keys = [(_user_key(name), USER_FREE_FAILURES)]
    if address is not None:
        keys.append((f"addr:{address[:190]}", ADDRESS_FREE_FAILURES))
    with project.db.write() as conn:
        rows = {key: _throttle_row(conn, key, now) for key, _free in keys}
        wait = max(row[2] - now for row in rows.values())
        if wait > 0:
            raise LoginThrottled(wait)
        for key, free in keys:
            failures = rows[key][0] + 1
            _save_throttle(conn, key, failures, now, now + wait_after(failures, free))
        user = project.repo.get_user(conn, name)
        stored = project.repo.get_password_hash(conn, name) if user else None
    # Always pay for one scrypt, so the answer time does not tell which user names exist.
    valid = verify_password(password, stored or _dummy_hash())
    if user is None or user.disabled or not valid:
        return None
    with project.db.write() as conn:
        conn.execute(schema.login_throttle.delete().where(schema.login_throttle.c.key == keys[0][0]))
        for key, free in keys[1:]:  # this attempt was not a failure after all
            failures, last, _blocked = _throttle_row(conn, key, now)
            failures = max(failures - 1, 0)
            _save_throttle(conn, key, failures, last, last + wait_after(failures, free) if failures else 0.0)
    return user


def _user_key(name: str) -> str:
    return f"user:{name}"


def _throttle_row(conn: Connection, key: str, now: float) -> tuple[int, float, float]:
    """(failures, last failure time, blocked until) of ``key``; failures older than a day are forgotten."""
    t = schema.login_throttle
    row = conn.execute(select(t.c.failures, t.c.last_failure_at, t.c.blocked_until).where(t.c.key == key)).first()
    if row is None or now - row.last_failure_at > FORGET_AFTER_S:
        return 0, 0.0, 0.0
    return int(row.failures), float(row.last_failure_at), float(row.blocked_until)


def _save_throttle(conn: Connection, key: str, failures: int, last: float, blocked_until: float) -> None:
    t = schema.login_throttle
    values = {"failures": failures, "last_failure_at": last, "blocked_until": blocked_until}
    if conn.execute(t.update().where(t.c.key == key).values(**values)).rowcount == 0:
        conn.execute(t.insert().values(key=key, **values))


# --- session epochs -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    """What a browser session remembers of its login: who, and the user's session epoch at that moment."""

    user: str
    epoch: int


def _epoch(conn: Connection, name: str) -> int:
    t = schema.session_epochs
    row = conn.execute(select(t.c.epoch).where(t.c.user == name)).first()
    return int(row[0]) if row else 0


def _bump_epoch(conn: Connection, name: str) -> None:
    t = schema.session_epochs
    now = time.time()
    if conn.execute(t.update().where(t.c.user == name).values(epoch=t.c.epoch + 1, changed_at=now)).rowcount == 0:
        conn.execute(t.insert().values(user=name, epoch=1, changed_at=now))


def _epoch_changed_at(conn: Connection, name: str) -> float | None:
    t = schema.session_epochs
    row = conn.execute(select(t.c.changed_at).where(t.c.user == name)).first()
    return float(row[0]) if row and row[0] is not None else None


def log_in(project: Project, name: str, password: str, address: str | None = None) -> Session | None:
    """``authenticate``, then the session to remember; None for a wrong password or a disabled account."""
    user = authenticate(project, name, password, address)
    if user is None:
        return None
    with project.db.read() as conn:
        return Session(user.name, _epoch(conn, user.name))


def session_user(project: Project, session: Session) -> User | None:
    """The session's user while it is valid: the account exists, is enabled and its epoch has not moved on."""
    with project.db.read() as conn:
        user = project.repo.get_user(conn, session.user)
        if user is None or user.disabled or _epoch(conn, session.user) != session.epoch:
            return None
    return user


def end_sessions(project: Project, name: str) -> None:
    """Log the user out everywhere: every session opened before now stops at its next action."""
    with project.db.write() as conn:
        _bump_epoch(conn, name)


def has_users(project: Project) -> bool:
    with project.db.read() as conn:
        return project.repo.count_users(conn) > 0


# --- session tokens (a login that survives a reload or a second tab) --------------------------------------------

#: How long a login lasts without logging in again, unless configured (``ANNOTATOR_SESSION_HOURS``).
SESSION_HOURS = 12.0
SECRET_FILE = "session_secret"
_TOKEN_SALT = "annotator-session-v1"


def session_hours() -> float:
    """``ANNOTATOR_SESSION_HOURS`` when set to a positive number, else 12."""
    try:
        hours = float(os.environ.get("ANNOTATOR_SESSION_HOURS", SESSION_HOURS))
    except ValueError:
        return SESSION_HOURS
    return hours if hours > 0 else SESSION_HOURS


def secret_from_folder(data_dir: Path) -> str:
    """The signing secret kept in the project folder, created on first use readable by the owner only (0600)."""
    path = Path(data_dir) / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)  # on PostgreSQL the data folder may hold nothing else yet
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secrets.token_urlsafe(48))
    return path.read_text(encoding="ascii").strip()


def session_token(secret: str, session: Session) -> str:
    """A signed, timestamped token of the session (user name and epoch); it holds no password or hash."""
    return URLSafeTimedSerializer(secret, salt=_TOKEN_SALT).dumps({"u": session.user, "e": session.epoch})


def session_from_token(secret: str, token: str, max_age_s: float) -> Session | None:
    """The session a token stands for, or None when it is forged, damaged or older than ``max_age_s``.

    The caller still checks it with ``session_user``: a logout, a password change or a disabled account since
    the token was issued moves the epoch on and refuses it.
    """
    try:
        data = URLSafeTimedSerializer(secret, salt=_TOKEN_SALT).loads(token, max_age=max_age_s)
    except BadSignature:  # SignatureExpired is a BadSignature too
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), str) or not isinstance(data.get("e"), int):
        return None
    return Session(data["u"], data["e"])
