"""Session tokens (a login that survives a reload or a second tab): the signing secret, the project's id the
tokens and the cookie name are bound to, and signing and checking a token."""

from __future__ import annotations

import logging
import math
import re
import secrets
import time
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

from annotator.atomic_files import write_text_atomic
from annotator.context import ProjectContext
from annotator.errors import UserError
from annotator.services.accounts.sessions import Session

LOG = logging.getLogger("annotator.accounts")

SECRET_FILE = "session_secret"
#: Version 2: the salt and the payload carry the project's id, the payload the issue time (version 1 tokens, bound
#: to no project, are refused: their holders log in again once).
TOKEN_SALT = "annotator-session-v2"
#: A signing secret shorter than this is refused (from a secrets file) or replaced (the project folder's file).
MIN_SECRET_LENGTH = 32
#: A token issued this far in the future (clocks of several servers disagree a little) is still taken.
CLOCK_SKEW_S = 300.0


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
    """A new secret, written whole; ``replace=False`` keeps a secret another server put there first (and uses it)."""
    write_text_atomic(path, secrets.token_urlsafe(48) + "\n", replace=replace)


def project_id(project: ProjectContext) -> str:
    """The project's id (the database's ``project_id``): tokens and the cookie name are bound to it."""
    with project.db.read() as conn:
        found = project.repo.project_id(conn)
    if found is None:
        raise UserError("This database holds no project id; open it once with a current annotator to add one.")
    return found


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
