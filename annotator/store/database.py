"""Engine set-up: SQLite used carefully from a threaded server (WAL, busy timeout, BEGIN IMMEDIATE).

Reads run in deferred transactions and never wait for writers (WAL); every read-then-write runs in
``BEGIN IMMEDIATE`` so two writers queue on the database lock instead of failing half-way. A writer that
cannot get the lock in time gets ``DatabaseBusyError`` (a user error: "try again"), never a traceback.
Any other SQLAlchemy URL (PostgreSQL) works too.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from annotator.errors import DatabaseBusyError, UserError
from annotator.store import schema

#: How long a writer waits for the lock before it is told to try again; ``ANNOTATOR_BUSY_TIMEOUT_MS`` overrides.
BUSY_TIMEOUT_MS = 15_000
BUSY_TIMEOUT_ENV = "ANNOTATOR_BUSY_TIMEOUT_MS"

#: A waiting writer retries ``BEGIN IMMEDIATE`` at most this often (SQLite's own handler backs off to 100 ms,
#: which would let a bulk job that pauses briefly between its transactions starve every other writer).
_RETRY_PAUSE_MAX_S = 0.002
#: Bulk jobs sleep this long between their short transactions so a waiting writer (polling as above) gets in.
BULK_PAUSE_S = 0.01
#: Seconds between the WAL checkpoints a process runs after its writes. SQLite's automatic checkpoint would run
#: inside the committing call (copying pages and syncing the file, seconds on a busy disk); run after the
#: commit instead, it holds no lock other writers need (PASSIVE) and is not counted as transaction time.
CHECKPOINT_EVERY_S = 1.0


def _add_audit_table(connection: Connection) -> None:
    schema.audit.create(connection, checkfirst=True)


def _add_import_staging(connection: Connection) -> None:
    """Imports stage their rows hidden behind an ``imports`` row, then commit by deleting that row."""
    schema.imports.create(connection, checkfirst=True)
    for table in ("items", "item_languages"):
        if "import_id" not in {column["name"] for column in inspect(connection).get_columns(table)}:
            connection.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN import_id INTEGER NOT NULL DEFAULT 0")


#: Migration steps: version N -> N+1, each a function over a connection, all in one transaction.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _add_audit_table, 2: _add_import_staging}


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def busy_timeout_ms() -> int:
    value = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if not value:
        return BUSY_TIMEOUT_MS
    if not value.isdigit():
        raise UserError(f"{BUSY_TIMEOUT_ENV}={value!r}: give the wait in milliseconds, e.g. 15000.")
    return int(value)


def is_lock_error(error: BaseException) -> bool:
    """SQLite "database is locked"/busy, or a PostgreSQL lock timeout (SQLSTATE 55P03) or deadlock (40P01)."""
    original = error.orig if isinstance(error, DBAPIError) else error
    if isinstance(original, sqlite3.OperationalError):
        text = str(original).lower()
        return "database is locked" in text or "database table is locked" in text or "busy" in text
    code = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    return code in {"55P03", "40P01"}


def _begin_immediate(dbapi_connection: sqlite3.Connection, timeout_ms: int) -> None:
    """``BEGIN IMMEDIATE``, retried every few milliseconds until the timeout (see ``_RETRY_PAUSE_MAX_S``)."""
    cursor = dbapi_connection.cursor()
    deadline = time.monotonic() + timeout_ms / 1000
    pause = 0.0005
    try:
        cursor.execute("PRAGMA busy_timeout=0")
        while True:
            try:
                cursor.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if not is_lock_error(error) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, _RETRY_PAUSE_MAX_S)
    finally:
        cursor.execute(f"PRAGMA busy_timeout={timeout_ms}")
        cursor.close()


def _configure_sqlite(engine: Engine, timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's "begin" event issue BEGIN itself, so we choose DEFERRED or IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # switching writes; checking does not
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={timeout_ms}")
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


class Database:
    """Owns the engine and hands out read and write transactions."""

    def __init__(self, url: str, busy_timeout: int | None = None) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout_ms = busy_timeout_ms() if busy_timeout is None else busy_timeout
        self.engine = create_engine(url, future=True)
        if self.is_sqlite:
            _configure_sqlite(self.engine, self.busy_timeout_ms)
        #: The write transaction open in this thread/context, which nested read()/write() calls join.
        self._active: ContextVar[Connection | None] = ContextVar(f"annotator_db_{id(self)}", default=None)
        #: Optional: called with the seconds each outermost write transaction held the lock (benchmarks).
        self.write_recorder: Callable[[float], None] | None = None
        self._last_checkpoint = time.monotonic()

    @contextmanager
    def _busy_is_a_user_error(self) -> Iterator[None]:
        """Turn "database is locked" (or a PostgreSQL lock timeout) into the user's "try again" message."""
        try:
            yield
        except (DBAPIError, sqlite3.OperationalError) as error:
            if not is_lock_error(error):
                raise
            waited = f"{self.busy_timeout_ms / 1000:g} s"
            raise DatabaseBusyError(
                f"The database is busy (another change held it for more than {waited}); nothing was changed. "
                "Try again in a moment."
            ) from error

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; inside an open ``write()`` it joins that one (and sees its uncommitted changes)."""
        active = self._active.get()
        if active is not None:
            yield active
            return
        with self._busy_is_a_user_error(), self.engine.connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A read-then-write transaction: all or nothing, serialised with other writers.

        A ``write()`` opened inside another one joins it, so a caller can run several service changes
        (a spreadsheet import) as one all-or-nothing transaction.
        """
        active = self._active.get()
        if active is not None:
            yield active
            return
        with self._busy_is_a_user_error(), self.engine.connect() as connection:
            if self.is_sqlite:
                connection.info["begin_mode"] = "IMMEDIATE"
            with connection.begin():
                started = time.perf_counter()
                token = self._active.set(connection)
                try:
                    yield connection
                finally:
                    self._active.reset(token)
            self._record_write(time.perf_counter() - started)
            self._checkpoint_if_due(connection)

    def _checkpoint_if_due(self, connection: Connection) -> None:
        """A passive WAL checkpoint at most every ``CHECKPOINT_EVERY_S``, outside any transaction."""
        now = time.monotonic()
        if not self.is_sqlite or now - self._last_checkpoint < CHECKPOINT_EVERY_S:
            return
        self._last_checkpoint = now
        with contextlib.suppress(sqlite3.OperationalError):  # busy: the next one catches up
            connection.connection.dbapi_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")  # type: ignore[union-attr]

    def _record_write(self, seconds: float) -> None:
        if self.write_recorder is not None:
            self.write_recorder(seconds)

    def pause_for_other_writers(self) -> None:
        """Called by bulk jobs between their short transactions: a waiting writer takes the lock meanwhile."""
        if self.is_sqlite:
            time.sleep(BULK_PAUSE_S)

    def schema_version(self) -> int | None:
        """The stored schema version, read without taking the write lock; None for an empty database."""
        with self.read() as connection:
            if not inspect(connection).has_table(schema.meta.name):
                return None
            row = connection.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")).first()
            return int(row[0]) if row else None

    def create_or_migrate(self) -> None:
        """Create a new schema, or migrate an older one step by step; refuse a newer one.

        A current schema is only read, so opening a project (``info``, ``export``) never waits for a writer.
        """
        if self._check_version(self.schema_version()):
            return
        with self.write() as connection:
            schema.meta.create(connection, checkfirst=True)
            row = connection.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")).first()
            if row is None:  # a new database
                schema.metadata.create_all(connection)
                connection.execute(schema.meta.insert().values(key="schema_version", value=str(schema.SCHEMA_VERSION)))
                return
            version = int(row[0])
            if self._check_version(version):
                return  # another process migrated it meanwhile
            while version < schema.SCHEMA_VERSION:
                MIGRATIONS[version](connection)
                version += 1
                connection.execute(
                    schema.meta.update().where(schema.meta.c.key == "schema_version").values(value=str(version))
                )

    def _check_version(self, version: int | None) -> bool:
        """True when ``version`` is current; refuses a newer one."""
        if version is not None and version > schema.SCHEMA_VERSION:
            raise UserError(
                f"The database {self.url} has schema version {version}, newer than this annotator "
                f"({schema.SCHEMA_VERSION}). Upgrade annotator."
            )
        return version == schema.SCHEMA_VERSION

    def dispose(self) -> None:
        self.engine.dispose()
