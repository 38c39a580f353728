"""The engines: SQLite used carefully from a threaded server (WAL, busy timeout, ``BEGIN IMMEDIATE`` retried every
few milliseconds, checkpoints outside transactions), or PostgreSQL (``lock_timeout``, a snapshot per read, pooled
connections pinged before use); a missing driver named in a message."""

from __future__ import annotations

import os
import sqlite3
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import NoSuchModuleError

from annotator.errors import UserError
from annotator.store.faults import is_lock_error
from annotator.store.schema import add_postgresql_conditions

#: How long a writer waits for the lock before it is told to try again; ``ANNOTATOR_BUSY_TIMEOUT_MS`` overrides.
BUSY_TIMEOUT_MS = 15_000
BUSY_TIMEOUT_ENV = "ANNOTATOR_BUSY_TIMEOUT_MS"

#: A waiting writer retries ``BEGIN IMMEDIATE`` at most this often (SQLite's own handler backs off to 100 ms,
#: which would let a bulk job that pauses briefly between its transactions starve every other writer).
_RETRY_PAUSE_MAX_S = 0.002


#: Every engine this process made and still holds (``dispose_all``).
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def kept_for_exit(engine: Engine) -> Engine:
    """``engine``, remembered so that ``dispose_all`` closes its connections when the process ends."""
    _ENGINES.add(engine)
    return engine


def dispose_all() -> None:
    """Close the pooled connections of every engine made here (SQLite checkpoints its write-ahead log into the
    database file and removes it when its last connection closes); the engines stay usable."""
    for engine in list(_ENGINES):
        engine.dispose()


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def busy_timeout_ms() -> int:
    value = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if not value:
        return BUSY_TIMEOUT_MS
    if not value.isdigit():
        raise UserError(f"{BUSY_TIMEOUT_ENV}={value!r}: give the wait in milliseconds, e.g. 15000.")
    return int(value)


def _retry_while_locked(attempt: Callable[[], object], timeout_ms: int) -> None:
    """Run ``attempt`` until it raises no "locked" error, retrying every few milliseconds (``_RETRY_PAUSE_MAX_S``)
    until the timeout; then, or on any other error, its error is raised."""
    deadline = time.monotonic() + timeout_ms / 1000
    pause = 0.0005
    while True:
        try:
            attempt()
            return
        except sqlite3.OperationalError as error:
            if not is_lock_error(error) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, _RETRY_PAUSE_MAX_S)


def _begin_immediate(dbapi_connection: sqlite3.Connection, timeout_ms: int) -> None:
    """``BEGIN IMMEDIATE``, retried every few milliseconds until the timeout (see ``_RETRY_PAUSE_MAX_S``)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA busy_timeout=0")
        _retry_while_locked(lambda: cursor.execute("BEGIN IMMEDIATE"), timeout_ms)
    finally:
        cursor.execute(f"PRAGMA busy_timeout={timeout_ms}")
        cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor, timeout_ms: int) -> None:
    """Put the file in WAL mode (checking writes nothing; switching does). Two connections opening a new file at once
    both switch it, and SQLite answers the second "locked" at once rather than through the busy wait: retried every
    few milliseconds until the file is in WAL mode or the timeout has passed."""

    def switch() -> None:
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            cursor.execute("PRAGMA journal_mode=WAL")

    _retry_while_locked(switch, timeout_ms)


def configure_sqlite(engine: Engine, timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's "begin" event issue BEGIN itself, so we choose DEFERRED or IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={timeout_ms}")
        _switch_to_wal(cursor, timeout_ms)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA wal_autocheckpoint=0")  # see CHECKPOINT_EVERY_S and Database._checkpoint_if_due
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        if connection.info.pop("begin_mode", "DEFERRED") == "IMMEDIATE":
            _begin_immediate(connection.connection.dbapi_connection, timeout_ms)  # type: ignore[arg-type]
        else:
            connection.exec_driver_sql("BEGIN DEFERRED")


def make_engine(url: str, timeout_ms: int) -> Engine:
    """The engine, or a message naming the driver to install (PostgreSQL's is the ``postgres`` extra).

    PostgreSQL: pooled connections are pinged before use (a server restart between two actions is invisible)
    and a connection attempt gives up after the busy time-out (a host that drops packets would hang otherwise),
    unless the URL sets its own ``connect_timeout``.
    """
    parsed = make_url(url)
    options: dict = {}
    if parsed.get_backend_name() != "sqlite":  # SQLite opens a local file: nothing to ping
        options["pool_pre_ping"] = True
        if "connect_timeout" not in parsed.query:
            options["connect_args"] = {"connect_timeout": max(2, round(timeout_ms / 1000))}
    try:
        return kept_for_exit(create_engine(url, future=True, **options))
    except (ModuleNotFoundError, NoSuchModuleError) as error:
        shown = make_url(url).render_as_string(hide_password=True)
        raise UserError(
            f"No database driver for {shown} ({error}). For PostgreSQL install the extra: "
            "pip install 'annotator[postgres]' and use a postgresql+psycopg:// URL."
        ) from error


def configure_postgresql(engine: Engine, timeout_ms: int) -> None:
    add_postgresql_conditions()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Every lock wait of this connection (the writers' advisory lock, a migration's table locks) gives up
        # after the busy time-out with SQLSTATE 55P03, as SQLite's busy handler does. 0 would mean "for ever".
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = {max(1, timeout_ms)}")
        dbapi_connection.commit()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # A read sees one snapshot, as a deferred SQLite read does; a writer stays READ COMMITTED so that, once it
        # holds the advisory lock, it sees everything the previous writer committed.
        if connection.info.pop("begin_mode", "DEFERRED") != "IMMEDIATE":
            connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
