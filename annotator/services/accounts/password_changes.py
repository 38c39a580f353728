"""Changing passwords: set by the server's administrator, reset to a one-time password, or changed by their owner.

A reset (a lead on the People page, ``annotator users passwd --reset``) gives a one-time password: it logs in once,
and nothing but the change-password form is served until its owner has replaced it. Every change ends the account's
other sessions and clears its log-in waits; an owner's own change hands back a fresh session for the browser that
made it, so the person who just chose a password stays logged in there.
"""

from __future__ import annotations

from annotator.context import ProjectContext
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.services.accounts.login import authenticate
from annotator.services.accounts.passwords import check_password, hash_password, one_time_password, verify_password
from annotator.services.accounts.sessions import Session, current_session, session_account
from annotator.services.accounts.throttle import forget_failures
from annotator.services.administration import record


class SessionEnded(UserError):
    """The session that asked for the change is no longer valid (logged out elsewhere, disabled, expired)."""

    def __init__(self) -> None:
        super().__init__("Your session has ended; nothing was changed. Please log in again.")


def _store(project: ProjectContext, name: str, password: str, must_change: bool) -> None:
    with project.db.write() as conn:
        project.repo.update_user(conn, name, password_hash=hash_password(password), must_change_password=must_change)
        project.repo.bump_session_epoch(conn, name)  # the account's other sessions end
        forget_failures(project.repo, conn, name)


def set_password(project: ProjectContext, name: str, password: str) -> None:
    """A password chosen on the server (``annotator users passwd``), kept until changed; the user's open sessions
    end at their next action (they were opened with the old one)."""
    check_password(password)
    _store(project, name, password, must_change=False)


def reset_password(project: ProjectContext, name: str, acting: User | None = None) -> str:
    """A new one-time password for ``name`` (returned once, to be handed over): it must be replaced at the next
    log-in before anything else. The account's open sessions end and its log-in waits are cleared.

    Audited in the same transaction, whoever asked: ``acting`` (a lead on the People page) or, for None, the
    operating-system account that ran ``annotator users passwd --reset``."""
    password = one_time_password()
    with project.db.write() as conn:
        if project.repo.get_user(conn, name) is None:
            raise UserError(f"No user named {name!r} (see 'annotator users list').")
        _store(project, name, password, must_change=True)
        record(project, conn, acting, "account_password_reset", {"account": name})
    return password


def change_password(
    project: ProjectContext, session: Session, current: str, new: str, address: str | None = None
) -> Session:
    """The owner of a valid session changes their password, giving the current one (checked under the log-in
    throttle, so an unattended open tab cannot be used to guess it) and a new one following the usual rules.

    Returns the session that replaces ``session`` (every other session of the account ends).
    """
    user = session_account(project, session)
    if user is None:
        raise SessionEnded()
    check_password(new)
    if authenticate(project, user.name, current, address) is None:
        raise UserError("The current password is not right; nothing was changed.")
    if new == current:
        raise UserError("The new password is the current one: choose a different one.")
    _store(project, user.name, new, must_change=False)
    return current_session(project, user.name)


def replace_one_time_password(project: ProjectContext, session: Session, new: str) -> Session:
    """The first thing a session logged in with a one-time password does: choose the password that replaces it.

    The session proves the one-time password was just typed, so it is not asked again. The new one follows the
    usual rules and must differ from the one-time one (which no longer works afterwards). Returns the session that
    replaces ``session``.
    """
    user = session_account(project, session)
    if user is None:
        raise SessionEnded()
    if not user.must_change_password:
        raise UserError("Your password has already been changed; nothing was changed now.")
    check_password(new)
    with project.db.read() as conn:
        stored = project.repo.get_password_hash(conn, user.name)
    if verify_password(new, stored):
        raise UserError("The new password is the one-time password: choose one of your own.")
    _store(project, user.name, new, must_change=False)
    return current_session(project, user.name)
