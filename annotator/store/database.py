"""Engine set-up: SQLite used carefully from a threaded server (WAL, busy timeout, BEGIN IMMEDIATE), or PostgreSQL.

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
The schema is created and migrated by Alembic (``annotator/store/migrations``) on both engines.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, NoSuchModuleError, OperationalError

from annotator.errors import DatabaseBusyError, DatabaseUnavailableError, UserError
from annotator.private_files import create_private_file, make_private_folder
from annotator.store import schema

LOG = logging.getLogger("annotator.store")

#: How long a writer waits for the lock before it is told to try again; ``ANNOTATOR_BUSY_TIMEOUT_MS`` overrides.
BUSY_TIMEOUT_MS = 15_000
BUSY_TIMEOUT_ENV = "ANNOTATOR_BUSY_TIMEOUT_MS"

#: A waiting writer retries ``BEGIN IMMEDIATE`` at most this often (SQLite's own handler backs off to 100 ms,
#: which would let a bulk job that pauses briefly between its transactions starve every other writer).
_RETRY_PAUSE_MAX_S = 0.002
#: Bulk jobs leave at least this long between their short transactions so a waiting writer (polling as above) gets
#: in; time spent computing the next batch counts.
BULK_PAUSE_S = 0.01
#: Seconds between the WAL checkpoints a process runs after its writes. SQLite's automatic checkpoint would run
#: inside the committing call (copying pages and syncing the file, seconds on a busy disk); run after the
#: commit instead, it holds no lock other writers need (PASSIVE) and is not counted as transaction time.
CHECKPOINT_EVERY_S = 1.0
#: The PostgreSQL advisory-lock key every writer takes (one database holds one project): "anno" in ASCII.
WRITE_LOCK_KEY = 0x616E6E6F
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: The pre-Alembic ``schema_version`` numbers and the Alembic revision each one equals.
LEGACY_REVISIONS = {1: "0001", 2: "0002"}
#: Written to ``meta.schema_version`` once Alembic manages the schema, so an older annotator (which only knows
#: versions 1 and 2) refuses the database instead of re-creating tables in it.
ALEMBIC_MANAGED = 1000


def alembic_config() -> Config:
    """Alembic's configuration for the migration scripts shipped in the package (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@functools.cache
def _alembic_revisions() -> tuple[frozenset[str], str]:
    """Every revision this annotator knows, and the head (read once per process)."""
    scripts = ScriptDirectory.from_config(alembic_config())
    head = scripts.get_current_head()
    if head is None:
        raise RuntimeError("annotator/store/migrations/versions holds no revision (a broken installation)")
    return frozenset(script.revision for script in scripts.walk_revisions()), head


def head_revision() -> str:
    """The newest schema revision this annotator knows (what ``create_or_migrate`` upgrades to)."""
    return _alembic_revisions()[1]


class StoreConflictError(UserError):
    """The database refused a change (a duplicate written at the same moment, a value too long)."""


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


def _create_engine(url: str, timeout_ms: int) -> Engine:
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
        return create_engine(url, future=True, **options)
    except (ModuleNotFoundError, NoSuchModuleError) as error:
        shown = make_url(url).render_as_string(hide_password=True)
        raise UserError(
            f"No database driver for {shown} ({error}). For PostgreSQL install the extra: "
            "pip install 'annotator[postgres]' and use a postgresql+psycopg:// URL."
        ) from error


def _configure_postgresql(engine: Engine, timeout_ms: int) -> None:
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
        self.engine = _create_engine(url, self.busy_timeout_ms)
        if self.is_sqlite:
            _configure_sqlite(self.engine, self.busy_timeout_ms)
        else:
            _configure_postgresql(self.engine, self.busy_timeout_ms)
        #: The write transaction open in this thread/context, which nested read()/write() calls join.
        self._active: ContextVar[Connection | None] = ContextVar(f"annotator_db_{id(self)}", default=None)
        #: Whether the last write transaction of this thread/context committed (None: there was none): a read
        #: that fails afterwards tells the user whether their last change was saved.
        self._last_write_saved: ContextVar[bool | None] = ContextVar(f"annotator_db_saved_{id(self)}", default=None)
        #: Optional: called with the seconds each outermost write transaction held the lock (benchmarks).
        self.write_recorder: Callable[[float], None] | None = None
        self._last_checkpoint = time.monotonic()
        self._last_write_ended = 0.0

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
        """Create a new schema, or migrate an older one (Alembic, all in one write transaction); refuse a newer one."""
        from alembic import command

        known, head = _alembic_revisions()
        if self.schema_revision() == head:  # the usual case: no write lock, no Alembic run
            return
        with self.write() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            current = self._alembic_revision(connection)
            if current is None:
                legacy = self._legacy_version(connection)
                if legacy is not None:
                    if legacy not in LEGACY_REVISIONS:
                        raise self._newer_error(str(legacy))
                    command.stamp(config, LEGACY_REVISIONS[legacy])
            elif current not in known:
                raise self._newer_error(current)
            command.upgrade(config, "head")
            self._mark_alembic_managed(connection)

    def schema_revision(self) -> str | None:
        """The Alembic revision the database is at (None before the first migration)."""
        with self.read() as connection:
            return self._alembic_revision(connection)

    @staticmethod
    def _alembic_revision(connection: Connection) -> str | None:
        if not inspect(connection).has_table("alembic_version"):
            return None
        return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()

    @staticmethod
    def _legacy_version(connection: Connection) -> int | None:
        """The pre-Alembic ``schema_version`` of a database made by annotator 0.1 (None for an empty database)."""
        if not inspect(connection).has_table("meta"):
            return None
        value = connection.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")).scalar()
        return None if value is None else int(value)

    @staticmethod
    def _mark_alembic_managed(connection: Connection) -> None:
        key = schema.meta.c.key == "schema_version"
        if connection.execute(select(schema.meta.c.key).where(key)).first() is None:
            connection.execute(schema.meta.insert().values(key="schema_version", value=str(ALEMBIC_MANAGED)))
        else:
            connection.execute(schema.meta.update().where(key).values(value=str(ALEMBIC_MANAGED)))

    def _newer_error(self, version: str) -> UserError:
        return UserError(
            f"The database {make_url(self.url).render_as_string(hide_password=True)} has schema version "
            f"{version}, newer than this annotator. Upgrade annotator."
        )

    def dispose(self) -> None:
        self.engine.dispose()
