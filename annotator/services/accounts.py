"""Accounts: salted scrypt password hashes, user management, login checks and session epochs.

scrypt is memory-hard, so a stolen database does not give the translators' passwords away cheaply. Failed
log-ins are counted in the database (so every app server shares them): per client address and user name
(refused for a while: one browser guessing one account), and per user name and per address alone (only
*delayed*, a few seconds at most, so nobody can lock an account or everyone behind one proxy out). Every session
remembers its user's *session epoch*; changing the password, disabling the account or logging out bumps it,
which ends the user's other sessions. Sessions also carry their issue time and end after the session lifetime.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import ipaddress
import logging
import math
import os
import re
import secrets
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import Connection, select

from annotator.context import ProjectContext
from annotator.domain.languages import check_in_project
from annotator.domain.model import Role, User
from annotator.errors import UserError
from annotator.store import schema

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSWORD_LENGTH = 8
_USERNAME = re.compile(r"^[A-Za-z0-9_.-]{2,64}$")

LOG = logging.getLogger("annotator.accounts")

#: Throttling policy (docs/DEPLOYMENT.md, "Sessions, secrets and log-in throttling"):
#: - one client address guessing one user name: ``USER_FREE_FAILURES`` free failures, then each further attempt
#:   from that address for that name is *refused* (not checked) until a wait that doubles with every failure
#:   (1, 2, 4 … ``MAX_WAIT_S``) is over. With trusted proxies configured, only the guesser's own address waits.
#: - one user name from all addresses (``NAME_FREE_FAILURES``) and one address for all names
#:   (``ADDRESS_FREE_FAILURES``): never refused, only *delayed* before the password is checked, doubling from
#:   ``FIRST_DELAY_S`` up to ``NAME_MAX_DELAY_S`` / ``ADDRESS_MAX_DELAY_S``. So the right password always gets in
#:   within a few seconds, whatever anyone else does from other addresses or with other names.
USER_FREE_FAILURES = 5
NAME_FREE_FAILURES = 10
ADDRESS_FREE_FAILURES = 20
MAX_WAIT_S = 15 * 60
FIRST_DELAY_S = 0.125
NAME_MAX_DELAY_S = 3.0
ADDRESS_MAX_DELAY_S = 1.0
#: Failures older than this are forgotten: a translator's typos last week do not slow them down today.
FORGET_AFTER_S = 24 * 3600


class LoginThrottled(UserError):
    """Too many failed log-ins for this user name from this address: the attempt was not even checked."""

    def __init__(self, wait_s: float) -> None:
        self.wait_s = wait_s
        super().__init__(
            "Too many failed log-ins for this user name from this address: "
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


def delay_after(failures: int, free: int, cap: float) -> float:
    """Seconds an attempt is held back after ``failures`` failures: none up to ``free``, then doubling to ``cap``."""
    if failures < free:
        return 0.0
    return float(min(FIRST_DELAY_S * 2 ** min(failures - free, 20), cap))


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
    project: ProjectContext,
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
    langs = check_in_project(languages, project.settings().languages)  # ISO 639 codes of this project only
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


def _check_email_free(project: ProjectContext, conn: Connection, address: str, name: str) -> None:
    other = project.repo.get_user_by_email(conn, address)
    if other is not None and other.name != name:
        raise UserError(f"E-mail address {address!r} is already used by the account {other.name!r}.")


def set_email(project: ProjectContext, name: str, email: str | None) -> str | None:
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


def sso_log_in(
    project: ProjectContext, email: str, issued_at: object = None, now: float | None = None
) -> Session | None:
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
    issued = float(issued_at) if isinstance(issued_at, int | float) and not isinstance(issued_at, bool) else now
    return Session(user.name, epoch, min(issued, now))


def set_password(project: ProjectContext, name: str, password: str) -> None:
    """A new password; the user's open sessions end at their next action (they were opened with the old one)."""
    _check_password(password)
    with project.db.write() as conn:
        project.repo.update_user(conn, name, password_hash=hash_password(password))
        _bump_epoch(conn, name)
        t = schema.login_throttle
        by_address = t.c.key.startswith("pair:") & t.c.key.endswith(f"\x1f{name}", autoescape=True)
        conn.execute(t.delete().where((t.c.key == _user_key(name)) | by_address))


def set_role(project: ProjectContext, name: str, role: Role | str, languages: tuple[str, ...]) -> User:
    """Change an account's role and languages (the rules of ``add_user``); the next action of an open session
    already runs with them (every request reads the account afresh), so no session needs to end."""
    role = Role(role)
    langs = check_in_project(languages, project.settings().languages)  # ISO 639 codes of this project only
    if role is Role.TRANSLATOR and not langs:
        raise UserError("A translator needs at least one language (--languages IT,DE).")
    with project.db.write() as conn:
        project.repo.update_user(conn, name, role=role, languages=langs)
        user = project.repo.get_user(conn, name)
    if user is None:  # update_user already refused an unknown name; this keeps the return type honest
        raise UserError(f"No user named {name!r}.")
    return user


def set_disabled(project: ProjectContext, name: str, disabled: bool) -> None:
    """Disable or enable an account; disabling also ends its open sessions (enabling does not revive them)."""
    with project.db.write() as conn:
        project.repo.update_user(conn, name, disabled=disabled)
        _bump_epoch(conn, name)


def list_users(project: ProjectContext) -> list[User]:
    with project.db.read() as conn:
        return project.repo.list_users(conn)


def find_user(project: ProjectContext, name: str) -> User | None:
    """The account named ``name`` (None when there is none), disabled or not: the caller decides."""
    with project.db.read() as conn:
        return project.repo.get_user(conn, name)


def authenticate(
    project: ProjectContext,
    name: str,
    password: str,
    address: str | None = None,
    now: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> User | None:
    """The user if the password is right and the account is enabled; None otherwise (never says which).

    Raises ``LoginThrottled`` without checking the password while this address must wait for this user name.
    Failures of the name from anywhere, or of the address with any name, only hold the check back (``sleep``,
    at most a few seconds): they never refuse a right password. The attempt is counted as a failure *before*
    the (slow) password check, so parallel guesses cannot slip past the limit; a successful check then forgets
    the failures of the name and takes this one back from the address.
    """
    name = name.strip()[:64]
    now = time.time() if now is None else now
    pair = _pair_key(address, name)
    counted = [(_user_key(name), NAME_FREE_FAILURES, NAME_MAX_DELAY_S)]
    if address is not None:
        counted.append((_address_key(address), ADDRESS_FREE_FAILURES, ADDRESS_MAX_DELAY_S))
    with project.db.write() as conn:
        failures, _last, blocked_until = _throttle_row(conn, pair, now)
        if blocked_until > now:
            raise LoginThrottled(blocked_until - now)
        failures += 1
        _save_throttle(conn, pair, failures, now, now + wait_after(failures, USER_FREE_FAILURES))
        delay = 0.0
        for key, free, cap in counted:
            before = _throttle_row(conn, key, now)[0]
            delay = max(delay, delay_after(before, free, cap))
            _save_throttle(conn, key, before + 1, now, 0.0)
        user = project.repo.get_user(conn, name)
        stored = project.repo.get_password_hash(conn, name) if user else None
    if delay > 0:
        sleep(delay)  # outside the transaction: a held-back attempt blocks nobody else's write
    # Always pay for one scrypt, so the answer time does not tell which user names exist.
    valid = verify_password(password, stored or _dummy_hash())
    if user is None or user.disabled or not valid:
        return None
    with project.db.write() as conn:
        t = schema.login_throttle
        conn.execute(t.delete().where(t.c.key.in_((pair, _user_key(name)))))
        if address is not None:  # this attempt was not a failure after all
            key = _address_key(address)
            failures, last, _blocked = _throttle_row(conn, key, now)
            _save_throttle(conn, key, max(failures - 1, 0), last, 0.0)
    return user


def _user_key(name: str) -> str:
    return f"user:{name}"


def _address_key(address: str) -> str:
    return f"addr:{address[:120]}"


def _pair_key(address: str | None, name: str) -> str:
    return f"pair:{(address or '-')[:120]}\x1f{name}"


# --- the client's address behind trusted proxies ---------------------------------------------------------------

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted_proxies(value: object, where: str) -> tuple[Network, ...]:
    """The trusted proxies' addresses or networks (``10.0.0.5``, ``10.0.0.0/24``, ``::1``) from a comma- or
    space-separated string or a list; a ``UserError`` naming ``where`` and the entry when one is not an address."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        entries: Iterable[object] = value.replace(",", " ").split()
    elif isinstance(value, list | tuple):
        entries = value
    else:
        raise UserError(f'{where}: trusted_proxies must be a list of addresses, e.g. ["127.0.0.1", "10.0.0.0/24"].')
    networks = []
    for entry in entries:
        text = str(entry).strip()
        if text.lower() == "localhost":
            networks += [ipaddress.ip_network("127.0.0.1"), ipaddress.ip_network("::1")]
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise UserError(
                f"{where}: trusted proxy {text!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)."
            ) from None
    return tuple(networks)


def _is_trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str | None, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The address to count log-in failures against.

    ``peer`` is the connection's own address (None: localhost, as Streamlit reports it). ``X-Forwarded-For`` is
    believed only when the peer is a trusted proxy, and then read from the right: the last entry that is not
    itself a trusted proxy is the one our proxy saw (anything left of it the browser may have made up).
    """
    peer = peer or "127.0.0.1"
    if not forwarded_for or not _is_trusted(peer, trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            return hop[:100]
    return hops[0][:100] if hops else peer


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
    """What a browser session remembers of its login: who, the user's session epoch at that moment, and when the
    login happened (``issued_at``, Unix time: a session ends ``session_hours()`` after it, however long it is open).
    """

    user: str
    epoch: int
    issued_at: float = field(default_factory=time.time, compare=False)


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


def log_in(
    project: ProjectContext,
    name: str,
    password: str,
    address: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Session | None:
    """``authenticate``, then the session to remember; None for a wrong password or a disabled account."""
    user = authenticate(project, name, password, address, sleep=sleep)
    if user is None:
        return None
    with project.db.read() as conn:
        return Session(user.name, _epoch(conn, user.name), time.time())


def session_expired(session: Session, now: float | None = None) -> bool:
    """True once the session is older than the session lifetime (``ANNOTATOR_SESSION_HOURS``)."""
    now = time.time() if now is None else now
    return now - session.issued_at > session_hours() * 3600


def session_user(project: ProjectContext, session: Session, now: float | None = None) -> User | None:
    """The session's user while it is valid: not older than the session lifetime, the account exists, is enabled
    and its epoch has not moved on. Checked at every request, so an open tab stops when its lifetime is over."""
    if session_expired(session, now):
        return None
    with project.db.read() as conn:
        user = project.repo.get_user(conn, session.user)
        if user is None or user.disabled or _epoch(conn, session.user) != session.epoch:
            return None
    return user


def end_sessions(project: ProjectContext, name: str) -> None:
    """Log the user out everywhere: every session opened before now stops at its next action."""
    with project.db.write() as conn:
        _bump_epoch(conn, name)


def has_users(project: ProjectContext) -> bool:
    with project.db.read() as conn:
        return project.repo.count_users(conn) > 0


# --- session tokens (a login that survives a reload or a second tab) --------------------------------------------

#: How long a login lasts without logging in again, unless configured (``ANNOTATOR_SESSION_HOURS``).
SESSION_HOURS = 12.0
SECRET_FILE = "session_secret"
#: Version 2: the salt and the payload carry the project's id, the payload the issue time (version 1 tokens, bound
#: to no project, are refused: their holders log in again once).
TOKEN_SALT = "annotator-session-v2"
#: A signing secret shorter than this is refused (from a secrets file) or replaced (the project folder's file).
MIN_SECRET_LENGTH = 32
#: A token issued this far in the future (clocks of several servers disagree a little) is still taken.
CLOCK_SKEW_S = 300.0


def session_hours() -> float:
    """``ANNOTATOR_SESSION_HOURS`` when set to a positive number, else 12."""
    try:
        hours = float(os.environ.get("ANNOTATOR_SESSION_HOURS", SESSION_HOURS))
    except ValueError:
        return SESSION_HOURS
    return hours if hours > 0 and math.isfinite(hours) else SESSION_HOURS


class WeakSecretError(UserError):
    """A configured ``session_secret`` is empty or too short to sign sessions with."""


def check_secret(secret: str, where: str) -> str:
    """``secret`` stripped, or ``WeakSecretError`` naming ``where`` when it is too short to sign sessions with."""
    text = secret.strip()
    if len(text) < MIN_SECRET_LENGTH:
        what = "empty" if not text else f"only {len(text)} characters long"
        raise WeakSecretError(
            f"session_secret in {where} is {what}: it signs everyone's log-in and needs at least "
            f"{MIN_SECRET_LENGTH} random characters. Generate one with "
            'python -c "import secrets; print(secrets.token_urlsafe(48))", or remove the entry to use a '
            "secret kept in the project folder (one server only)."
        )
    return text


def _read_secret(path: Path) -> str | None:
    """The file's secret; None when there is no file; "" when it is unreadable as text (a damaged file)."""
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (UnicodeDecodeError, IsADirectoryError):
        return ""


def secret_from_folder(data_dir: Path) -> str:
    """The signing secret kept in the project folder, created on first use readable by the owner only (0600).

    Written whole to a temporary file and then put in place (a link: the first of two servers starting at once
    wins, the other reads its secret), so the file is never seen empty or half-written. A file that is empty or
    too short anyway (left by an older version, a crash, a full disk) is replaced, never used: a session signed
    with such a key proves nothing, so no session may depend on it and everyone simply logs in again.
    """
    path = Path(data_dir) / SECRET_FILE
    for _attempt in range(3):
        existing = _read_secret(path)
        if existing is not None and len(existing) >= MIN_SECRET_LENGTH:
            return existing
        if existing is not None:
            LOG.warning("%s is empty or too short to sign sessions with: writing a new secret", path)
        _write_secret(path, replace=existing is not None)
    raise UserError(f"Cannot keep a session secret in {path}: it stays empty or too short. Check the disk.")


def _write_secret(path: Path, replace: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # on PostgreSQL the data folder may hold nothing else yet
    fd, temporary = tempfile.mkstemp(prefix=f".{SECRET_FILE}-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            with contextlib.suppress(FileExistsError):  # another server put its secret there first: use that one
                os.link(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def project_id(project: ProjectContext) -> str:
    """The project's id (the database's ``project_id``): tokens and the cookie name are bound to it."""
    with project.db.read() as conn:
        row = conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == "project_id")).first()
    if row is None or not row[0]:
        raise UserError("This database holds no project id; open it once with a current annotator to add one.")
    return str(row[0])


def cookie_name(project_key: str) -> str:
    """The session cookie's name for a project: browsers share cookies between ports of one host, so two
    projects served there must not overwrite (log out) each other's."""
    return "annotator_session_" + re.sub(r"[^A-Za-z0-9]", "", project_key)[:16]


def _serializer(secret: str, project_key: str) -> URLSafeTimedSerializer:
    if len(secret) < MIN_SECRET_LENGTH:  # never sign or check with a weak key, whoever passes one
        raise WeakSecretError("The session secret is too short to sign sessions with.")
    return URLSafeTimedSerializer(secret, salt=f"{TOKEN_SALT}:{project_key}")


def session_token(secret: str, project_key: str, session: Session) -> str:
    """A signed token of the session for one project: user name, epoch, project id and issue time; it holds no
    password or hash."""
    payload = {"u": session.user, "e": session.epoch, "p": project_key, "t": session.issued_at}
    return _serializer(secret, project_key).dumps(payload)


def session_from_token(
    secret: str, project_key: str, token: str, max_age_s: float, now: float | None = None
) -> Session | None:
    """The session a token stands for, or None when it is forged, damaged, for another project, or older than
    ``max_age_s``. A weak ``secret`` accepts nothing.

    The caller still checks it with ``session_user``: a logout, a password change or a disabled account since
    the token was issued moves the epoch on and refuses it.
    """
    if len(secret) < MIN_SECRET_LENGTH:
        return None
    now = time.time() if now is None else now
    try:
        data = _serializer(secret, project_key).loads(token, max_age=math.ceil(max_age_s))
    except BadSignature:  # SignatureExpired is a BadSignature too
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), str) or type(data.get("e")) is not int:
        return None
    issued = data.get("t")
    if data.get("p") != project_key or not isinstance(issued, int | float) or isinstance(issued, bool):
        return None
    if not math.isfinite(issued) or issued > now + CLOCK_SKEW_S or now - issued > max_age_s:
        return None
    return Session(data["u"], data["e"], float(issued))
