"""Engine set-up: SQLite used carefully from a threaded server (WAL, busy timeout, BEGIN IMMEDIATE).

Reads run in deferred transactions; every read-then-write runs in ``BEGIN IMMEDIATE`` so two writers
queue on the database lock instead of failing half-way. Any other SQLAlchemy URL (PostgreSQL) works too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, select
from sqlalchemy.engine import make_url

from annotator.errors import UserError
from annotator.store import schema

BUSY_TIMEOUT_MS = 15_000


def _add_audit_table(connection: Connection) -> None:
    schema.audit.create(connection, checkfirst=True)


def _add_login_tables(connection: Connection) -> None:
    schema.login_throttle.create(connection, checkfirst=True)
    schema.session_epochs.create(connection, checkfirst=True)


#: Migration steps: version N -> N+1, each a function over a connection, all in one transaction.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _add_audit_table, 2: _add_login_tables}


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


class Database:
    """Owns the engine and hands out read and write transactions."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_engine(url, future=True)
        if self.is_sqlite:
            _configure_sqlite(self.engine)
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
            if self.is_sqlite:
                connection.info["begin_mode"] = "IMMEDIATE"
            with connection.begin():
                token = self._active.set(connection)
                try:
                    yield connection
                finally:
                    self._active.reset(token)

    def create_or_migrate(self) -> None:
        """Create a new schema, or migrate an older one step by step; refuse a newer one."""
        with self.write() as connection:
            schema.meta.create(connection, checkfirst=True)
            row = connection.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")).first()
            if row is None:  # a new database
                schema.metadata.create_all(connection)
                connection.execute(schema.meta.insert().values(key="schema_version", value=str(schema.SCHEMA_VERSION)))
                return
            version = int(row[0])
            if version > schema.SCHEMA_VERSION:
                raise UserError(
                    f"The database {self.url} has schema version {version}, newer than this annotator "
                    f"({schema.SCHEMA_VERSION}). Upgrade annotator."
                )
            while version < schema.SCHEMA_VERSION:
                MIGRATIONS[version](connection)
                version += 1
                connection.execute(
                    schema.meta.update().where(schema.meta.c.key == "schema_version").values(value=str(version))
                )

    def dispose(self) -> None:
        self.engine.dispose()
