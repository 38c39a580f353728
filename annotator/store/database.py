"""Transactions: SQLite used carefully from a threaded server (WAL, busy timeout, BEGIN IMMEDIATE), or PostgreSQL.

Reads run in deferred transactions and never wait for writers (WAL); every read-then-write runs in
``BEGIN IMMEDIATE`` so two writers queue on the database lock instead of failing half-way. A writer that
cannot get the lock in time gets ``DatabaseBusyError`` (a user error: "try again"), never a traceback.
On PostgreSQL a transaction-level advisory lock gives the same one-writer-at-a-time guarantee, so every
read-then-write sees the previous writer's commit; ``lock_timeout`` (and a statement time-out on taking that
lock) equal to the busy time-out make a writer stalled inside its transaction (a frozen server, a cut network)
cost the others ``DatabaseBusyError`` after the same wait as on SQLite, not an endless wait.
A database that does not answer (a PostgreSQL restart, a full disk) gives ``DatabaseUnavailableError``, which
says whether the last change was saved; pooled PostgreSQL connections are pinged before use, so a restart
between two actions costs nothing.
A new database gets the head schema in one step; an older one is migrated by Alembic
(``annotator/store/migrations``), on both engines.
The engines' set-up is ``engines.py``, the classification of errors ``faults.py``, the migrations'
runner ``schema_migrations.py``.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

from annotator.errors import DatabaseBusyError, DatabaseUnavailableError
from annotator.private_files import create_private_file, make_private_folder
from annotator.store.checkpoints import BackgroundCheckpoints
from annotator.store.engines import (
    BUSY_TIMEOUT_ENV,
    BUSY_TIMEOUT_MS,
    busy_timeout_ms,
    configure_postgresql,
    configure_sqlite,
    make_engine,
    sqlite_url,
)
from annotator.store.faults import StoreConflictError, is_lock_error, is_unavailable_error, unavailable_message
from annotator.store.schema_migrations import ALEMBIC_MANAGED, alembic_revision, head_revision, upgrade

#: Names importers know from here (the engines, the errors, the migrations now live in their own modules).
__all__ = [
    "ALEMBIC_MANAGED",
    "BUSY_TIMEOUT_ENV",
    "BUSY_TIMEOUT_MS",
    "Database",
    "StoreConflictError",
    "head_revision",
    "sqlite_url",
]

LOG = logging.getLogger("annotator.store")

#: Bulk jobs leave at least this long between their short transactions so a waiting writer (retrying every ≤ 2 ms,
#: see ``engines.py``) gets in; time spent computing the next batch counts.
BULK_PAUSE_S = 0.01
#: Seconds between the WAL checkpoints a process runs after its writes. SQLite's automatic checkpoint would run
#: inside the committing call (copying pages and syncing the file, seconds on a busy disk); run after the
#: commit instead, it holds no lock other writers need (PASSIVE) and is not counted as transaction time.
CHECKPOINT_EVERY_S = 1.0
#: The PostgreSQL advisory-lock key every writer takes (one database holds one project): "anno" in ASCII.
WRITE_LOCK_KEY = 0x616E6E6F


#: Write transactions committed by this process (every database): an interrupted command says whether it saved any.
_COMMITTED = [0]


def committed_writes() -> int:
    """How many write transactions this process has committed so far (an interrupted command tells the user)."""
    return _COMMITTED[0]


class Database:
    """Owns the engine and hands out read and write transactions."""

    def __init__(self, url: str, busy_timeout: int | None = None) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            make_private_folder(Path(parsed.database).parent)
            create_private_file(Path(parsed.database))  # it holds password hashes: owner only (0600)
        self.busy_timeout_ms = busy_timeout_ms() if busy_timeout is None else busy_timeout
        self.engine = make_engine(url, self.busy_timeout_ms)
        if self.is_sqlite:
            configure_sqlite(self.engine, self.busy_timeout_ms)
        else:
            configure_postgresql(self.engine, self.busy_timeout_ms)
        #: The write transaction open in this thread/context, which nested read()/write() calls join.
        self._active: ContextVar[Connection | None] = ContextVar(f"annotator_db_{id(self)}", default=None)
        #: Whether the last write transaction of this thread/context committed (None: there was none): a read
        #: that fails afterwards tells the user whether their last change was saved.
        self._last_write_saved: ContextVar[bool | None] = ContextVar(f"annotator_db_saved_{id(self)}", default=None)
        #: Optional: called with the seconds each outermost write transaction held the lock (benchmarks).
        self.write_recorder: Callable[[float], None] | None = None
        self._last_checkpoint = time.monotonic()
        self._last_write_ended = 0.0
        #: Whether a bulk job asked for its checkpoints off its thread (``background_checkpoints``).
        self._checkpoints_in_background = False
        self._background: BackgroundCheckpoints | None = None
        #: Two writers of a threaded server finishing at once must not start two checkpoint threads.
        self._background_lock = threading.Lock()

    def busy_error(self) -> DatabaseBusyError:
        waited = f"{self.busy_timeout_ms / 1000:g} s"
        return DatabaseBusyError(
            f"The database is busy (another change held it for more than {waited}); nothing was changed. "
            "Try again in a moment."
        )

    @contextmanager
    def _faults_as_user_errors(self, writing: bool) -> Iterator[dict[str, bool]]:
        """Turn "database is locked" (or a PostgreSQL lock timeout) into the user's "try again" message, and a
        database that does not answer into ``DatabaseUnavailableError`` saying what became of the last change.

        The caller sets ``committing`` in the yielded dict once its transaction body is done: a write that
        fails after that point failed in COMMIT (on PostgreSQL it may have been saved; SQLite rolls it back).
        """
        stage = {"committing": False}
        try:
            yield stage
        except (DBAPIError, sqlite3.OperationalError) as error:
            if is_lock_error(error):
                raise self.busy_error() from error
            if not is_unavailable_error(error):
                raise
            LOG.warning("database fault: %s", error)  # the details (server, SQL) stay in the server's log
            last = self._last_write_saved.get()
            if not writing:
                saved: bool | None = bool(last)
            elif stage["committing"] and not self.is_sqlite:
                saved = None
            else:
                saved = False
            if writing:
                self._last_write_saved.set(False)
            changed = writing or last is not None
            message = unavailable_message(error, saved, changed)
            unsaved = unavailable_message(error, False) if saved is False else message
            raise DatabaseUnavailableError(message, saved, unsaved) from error

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; inside an open ``write()`` it joins that one (and sees its uncommitted changes)."""
        active = self._active.get()
        if active is not None:
            yield active
            return
        with self._faults_as_user_errors(writing=False), self.engine.connect() as connection, connection.begin():
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
        with self._faults_as_user_errors(writing=True) as stage, self.engine.connect() as connection:
            connection.info["begin_mode"] = "IMMEDIATE"
            with self._refusals_as_user_errors(), connection.begin():
                started = time.perf_counter()
                self._serialise_writers(connection)
                token = self._active.set(connection)
                try:
                    yield connection
                finally:
                    self._active.reset(token)
                stage["committing"] = True
            self._last_write_saved.set(True)
            _COMMITTED[0] += 1
            self._record_write(time.perf_counter() - started)
            self._checkpoint_if_due(connection)
            self._last_write_ended = time.monotonic()

    @contextmanager
    def background_checkpoints(self) -> Iterator[None]:
        """For a bulk job's writes (SQLite; nothing on PostgreSQL): a checkpoint after each of them, run on a thread
        of its own while the job makes its next batch (``checkpoints.py``), instead of one every
        ``CHECKPOINT_EVERY_S`` on the writer's thread; the WAL the job leaves is then about its last write.
        The thread starts with the first write's checkpoint, not before (a job that forks a second process for
        its batches has forked by then), and is ended with the block."""
        if not self.is_sqlite or self._checkpoints_in_background:
            yield
            return
        self._checkpoints_in_background = True
        try:
            yield
        finally:
            self._checkpoints_in_background = False
            self._stop_background()

    def _stop_background(self) -> None:
        with self._background_lock:
            background, self._background = self._background, None
        if background is not None:
            background.stop()

    def _checkpoint_if_due(self, connection: Connection) -> None:
        """A passive WAL checkpoint at most every ``CHECKPOINT_EVERY_S``, outside any transaction, or after every
        write on a thread of its own inside ``background_checkpoints``."""
        if self._checkpoints_in_background:
            with self._background_lock:
                if self._background is None:
                    database = make_url(self.url).database
                    assert database, "a SQLite database in a file"
                    self._background = BackgroundCheckpoints(database)
                self._background.ask()
            return
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
        """Called by bulk jobs before each of their short transactions: at least ``BULK_PAUSE_S`` since this
        process's last write, so a waiting writer takes the lock meanwhile (a batch computed in between already
        gave it that time: pre-population then does not sleep)."""
        if self.is_sqlite:
            time.sleep(max(0.0, self._last_write_ended + BULK_PAUSE_S - time.monotonic()))

    def _serialise_writers(self, connection: Connection) -> None:
        """PostgreSQL: wait for the previous writer to commit, as ``BEGIN IMMEDIATE`` does on SQLite.

        The wait ends after the busy time-out: ``lock_timeout`` (per connection) and a statement time-out on the
        lock call alone, reset for the transaction's own statements; one round trip (simple query protocol).
        """
        if self.is_sqlite:
            return
        limit, key = max(1, int(self.busy_timeout_ms)), int(WRITE_LOCK_KEY)
        try:
            connection.exec_driver_sql(
                f"SET LOCAL statement_timeout = {limit}; SELECT pg_advisory_xact_lock({key}); "
                "SET LOCAL statement_timeout TO DEFAULT"
            )
        except DBAPIError as error:
            if getattr(error.orig, "sqlstate", None) == "57014":  # query_canceled: the statement time-out above
                raise self.busy_error() from error
            raise

    @contextmanager
    def _refusals_as_user_errors(self) -> Iterator[None]:
        """A constraint the database enforces becomes a message (the transaction is rolled back), not a traceback."""
        try:
            yield
        except IntegrityError as error:
            detail = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
            raise StoreConflictError(
                f"The change was refused because it conflicts with data already saved ({detail}); "
                "nothing was changed. Reload and try again."
            ) from error
        except DataError as error:
            detail = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
            raise StoreConflictError(f"The database refused a value ({detail}); nothing was changed.") from error

    def create_or_migrate(self) -> None:
        """Create a new schema, or migrate an older one (Alembic), in one write transaction; refuse a newer one."""
        if self.schema_revision() == head_revision():  # the usual case: no write lock, no Alembic run
            return
        with self.write() as connection:
            upgrade(connection, self.url)

    def schema_revision(self) -> str | None:
        """The Alembic revision the database is at (None before the first migration)."""
        with self.read() as connection:
            return alembic_revision(connection)

    def dispose(self) -> None:
        self._stop_background()
        self.engine.dispose()
