"""Login sessions: what a browser session remembers, and whether it is still valid at each request.

Every session remembers its user's *session epoch*; changing the password, disabling the account or logging out
bumps it, which ends the user's other sessions. Sessions also carry their issue time and end after the session
lifetime. An account whose password must be changed (a one-time password) has a valid session that serves nothing
but the change-password form: ``session_user`` refuses it like an ended one, ``password_change_due`` names it.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

from annotator.context import ProjectContext
from annotator.domain.model import User

#: How long a login lasts without logging in again, unless configured (``ANNOTATOR_SESSION_HOURS``).
SESSION_HOURS = 12.0


def session_hours() -> float:
    """``ANNOTATOR_SESSION_HOURS`` when set to a positive number, else 12."""
    try:
        hours = float(os.environ.get("ANNOTATOR_SESSION_HOURS", SESSION_HOURS))
    except ValueError:
        return SESSION_HOURS
    return hours if hours > 0 and math.isfinite(hours) else SESSION_HOURS


@dataclass(frozen=True)
class Session:
    """What a browser session remembers of its login: who, the user's session epoch at that moment, and when the
    login happened (``issued_at``, Unix time: a session ends ``session_hours()`` after it, however long it is open).
    """

    user: str
    epoch: int
    issued_at: float = field(default_factory=time.time, compare=False)


def session_expired(session: Session, now: float | None = None) -> bool:
    """True once the session is older than the session lifetime (``ANNOTATOR_SESSION_HOURS``)."""
    now = time.time() if now is None else now
    return now - session.issued_at > session_hours() * 3600


def session_account(project: ProjectContext, session: Session, now: float | None = None) -> User | None:
    """The session's account while the session is valid: not older than the session lifetime, the account exists,
    is enabled and its epoch has not moved on; whether or not its password must be changed first."""
    if session_expired(session, now):
        return None
    with project.db.read() as conn:
        user = project.repo.get_user(conn, session.user)
        if user is None or user.disabled or project.repo.session_epoch(conn, session.user) != session.epoch:
            return None
    return user


def session_user(project: ProjectContext, session: Session, now: float | None = None) -> User | None:
    """The session's user while it is valid and may work: checked at every request (script run, fragment, callback,
    download), so an open tab stops when its lifetime is over. None too while the account's one-time password has
    not been replaced (``password_change_due``): nothing but the change-password form is served then."""
    user = session_account(project, session, now)
    return None if user is None or user.must_change_password else user


def password_change_due(project: ProjectContext, session: Session, now: float | None = None) -> User | None:
    """The account of a valid session whose one-time password must be replaced before anything else; else None."""
    user = session_account(project, session, now)
    return user if user is not None and user.must_change_password else None


def end_sessions(project: ProjectContext, name: str) -> None:
    """Log the user out everywhere: every session opened before now stops at its next action."""
    with project.db.write() as conn:
        project.repo.bump_session_epoch(conn, name)  # every session opened before now stops at its next action


def current_session(project: ProjectContext, name: str) -> Session:
    """A new session of ``name`` at the account's current epoch (after a log-in or the user's own password change)."""
    with project.db.read() as conn:
        return Session(name, project.repo.session_epoch(conn, name), time.time())
