"""Which database errors mean what: a lock wait that ran out ("busy": try again), a database that does not answer or
has no room (unavailable: say whether the last change was saved), a constraint it enforces (a conflict); and the
one sentence the user reads for each (no server address, no SQL)."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DBAPIError, OperationalError

from annotator.errors import UserError


class StoreConflictError(UserError):
    """The database refused a change (a duplicate written at the same moment, a value too long)."""


def is_lock_error(error: BaseException) -> bool:
    """SQLite "database is locked"/busy, or a PostgreSQL lock timeout (SQLSTATE 55P03) or deadlock (40P01)."""
    original = error.orig if isinstance(error, DBAPIError) else error
    if isinstance(original, sqlite3.OperationalError):
        text = str(original).lower()
        return "database is locked" in text or "database table is locked" in text or "busy" in text
    code = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    return code in {"55P03", "40P01"}


#: SQLite errors that mean the file cannot be used now (disk full, I/O error), not a bug in a statement.
_SQLITE_UNAVAILABLE = ("database or disk is full", "disk i/o error", "unable to open database file")
#: PostgreSQL SQLSTATEs of a full disk (class 53: insufficient resources).
_PG_DISK_FULL = {"53100"}


def is_unavailable_error(error: BaseException) -> bool:
    """The database did not answer or cannot store anything now; a lock time-out is not one (``is_lock_error``).

    PostgreSQL: any ``OperationalError`` (connection refused or lost, server shutting down or starting up, disk
    full) or a connection SQLAlchemy found broken. SQLite: only a full disk, an I/O error or a file it cannot
    open — its other OperationalErrors ("no such table", a syntax error) are bugs and stay tracebacks.
    """
    if is_lock_error(error):
        return False
    original = error.orig if isinstance(error, DBAPIError) else error
    if isinstance(original, sqlite3.Error):
        text = str(original).lower()
        return any(marker in text for marker in _SQLITE_UNAVAILABLE)
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, OperationalError)


def is_disk_full(error: BaseException) -> bool:
    original = error.orig if isinstance(error, DBAPIError) else error
    code = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    return code in _PG_DISK_FULL or "database or disk is full" in str(original).lower()


def unavailable_message(error: BaseException, saved: bool | None, changed: bool = True) -> str:
    """One sentence for the user: what failed (no server address, no SQL) and what became of the last change
    (``changed`` False: there was none to speak of, a read failed before any write of this thread)."""
    what = "The disk holding the database is full" if is_disk_full(error) else "The database is not answering"
    if saved is None:
        return (
            f"{what}: it stopped while your last change was being saved, so it may or may not have been saved. "
            "Reload the page in a moment to see."
        )
    outcome = "your last change was saved" if saved else "your last change was not saved"
    if not changed:
        outcome = "nothing was changed"
    then = "Free some space, then try again." if is_disk_full(error) else "Try again in a moment."
    return f"{what}; {outcome}. {then}"
