"""Engine set-up: SQLite used carefully from a threaded server (WAL, busy timeout, BEGIN IMMEDIATE), or PostgreSQL.

Reads run in deferred transactions; every read-then-write runs in ``BEGIN IMMEDIATE`` so two writers
queue on the database lock instead of failing half-way. On PostgreSQL a transaction-level advisory lock
gives the same one-writer-at-a-time guarantee, so every read-then-write sees the previous writer's commit.
The schema is created and migrated by Alembic (``annotator/store/migrations``) on both engines.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, IntegrityError, NoSuchModuleError

from annotator.errors import UserError
from annotator.private_files import create_private_file
from annotator.store import schema

BUSY_TIMEOUT_MS = 15_000
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
    assert head is not None, "annotator/store/migrations/versions holds no revision"
    return frozenset(script.revision for script in scripts.walk_revisions()), head


def head_revision() -> str:
    """The newest schema revision this annotator knows (what ``create_or_migrate`` upgrades to)."""
    return _alembic_revisions()[1]


class StoreConflictError(UserError):
    """The database refused a change (a duplicate written at the same moment, a value too long)."""


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's "begin" event issue BEGIN itself, so we choose DEFERRED or IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.info.pop("begin_mode", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def _create_engine(url: str) -> Engine:
    """The engine, or a message naming the driver to install (PostgreSQL's is the ``postgres`` extra)."""
    try:
        return create_engine(url, future=True)
    except (ModuleNotFoundError, NoSuchModuleError) as error:
        shown = make_url(url).render_as_string(hide_password=True)
        raise UserError(
            f"No database driver for {shown} ({error}). For PostgreSQL install the extra: "
            "pip install 'annotator[postgres]' and use a postgresql+psycopg:// URL."
        ) from error


def _configure_postgresql(engine: Engine) -> None:
    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # A read sees one snapshot, as a deferred SQLite read does; a writer stays READ COMMITTED so that, once it
        # holds the advisory lock, it sees everything the previous writer committed.
        if connection.info.pop("begin_mode", "DEFERRED") != "IMMEDIATE":
            connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")


class Database:
    """Owns the engine and hands out read and write transactions."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            create_private_file(Path(parsed.database))  # it holds password hashes: owner only (0600)
        self.engine = _create_engine(url)
        if self.is_sqlite:
            _configure_sqlite(self.engine)
        else:
            _configure_postgresql(self.engine)
        #: The write transaction open in this thread/context, which nested read()/write() calls join.
        self._active: ContextVar[Connection | None] = ContextVar(f"annotator_db_{id(self)}", default=None)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; inside an open ``write()`` it joins that one (and sees its uncommitted changes)."""
        active = self._active.get()
        if active is not None:
            yield active
            return
        with self.engine.connect() as connection, connection.begin():
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
        with self.engine.connect() as connection:
            connection.info["begin_mode"] = "IMMEDIATE"
            with self._refusals_as_user_errors(), connection.begin():
                self._serialise_writers(connection)
                token = self._active.set(connection)
                try:
                    yield connection
                finally:
                    self._active.reset(token)

    def _serialise_writers(self, connection: Connection) -> None:
        """PostgreSQL: wait for the previous writer to commit, as ``BEGIN IMMEDIATE`` does on SQLite."""
        if not self.is_sqlite:
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": WRITE_LOCK_KEY})

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
