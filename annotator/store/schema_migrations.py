"""The schema's migrations: the Alembic revisions shipped in the package (``migrations/versions``), the head this
annotator knows, and upgrading a database to it (an annotator 0.1 database stamped at its legacy revision first).

A database that holds no table yet gets the head schema in one step: ``schema.py``'s tables created as they are,
the Alembic version table beside them stamped at the head. Replaying every revision builds the same schema (a test
compares the two on both engines) in many more statements, with Alembic imported for it.

Alembic is imported only when a database is upgraded: every command opens the database, which is nearly always
at the head already, and importing Alembic (with the SQL dialects and template engine it loads) would be a
large part of a short command's start-up. The head is read from the revision files' ``revision`` and
``down_revision`` lines; a test holds that reading to Alembic's own.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Column, Connection, MetaData, PrimaryKeyConstraint, String, Table, inspect, select, text
from sqlalchemy.engine import make_url

from annotator.errors import UserError
from annotator.store import schema

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: The pre-Alembic ``schema_version`` numbers and the Alembic revision each one equals.
LEGACY_REVISIONS = {1: "0001", 2: "0002"}
#: Written to ``meta.schema_version`` once Alembic manages the schema, so an older annotator (which only knows
#: versions 1 and 2) refuses the database instead of re-creating tables in it.
ALEMBIC_MANAGED = 1000
#: ``revision = "…"`` and ``down_revision = "…"`` (or ``None``, or a tuple of revisions) in a revision file,
#: with or without a type annotation, as Alembic's templates write them.
_REVISION_LINE = re.compile(r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"""["']([^"']+)["']""")
#: Alembic's version table, as Alembic creates it.
_VERSION_TABLE = Table(
    "alembic_version",
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)

if TYPE_CHECKING:
    from alembic.config import Config


def alembic_config() -> Config:
    """Alembic's configuration for the migration scripts shipped in the package (no alembic.ini needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@functools.cache
def _alembic_revisions() -> tuple[frozenset[str], str]:
    """Every revision this annotator knows, and the head, as Alembic reads them (once per process)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config())
    head = scripts.get_current_head()
    if head is None:
        raise RuntimeError("annotator/store/migrations/versions holds no revision (a broken installation)")
    return frozenset(script.revision for script in scripts.walk_revisions()), head


@functools.cache
def revision_files() -> tuple[frozenset[str], str | None]:
    """Every revision the shipped files declare, and the one head no other revises (None when that is not a
    single revision: then Alembic, which knows merges and branches, is asked instead)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        declared = {match[1]: match[2] for match in _REVISION_LINE.finditer(text)}
        if "revision" not in declared:
            continue  # ``__init__.py``: not a revision
        names = _QUOTED.findall(declared["revision"])
        if len(names) != 1:
            return frozenset(revisions), None
        revisions.add(names[0])
        revised.update(_QUOTED.findall(declared.get("down_revision", "")))
    heads = revisions - revised
    return frozenset(revisions), (next(iter(heads)) if len(heads) == 1 else None)


def head_revision() -> str:
    """The newest schema revision this annotator knows (what ``create_or_migrate`` upgrades to)."""
    return revision_files()[1] or _alembic_revisions()[1]


def upgrade(connection: Connection, url: str) -> None:
    """Inside the caller's write transaction: create the schema of a database that holds no table yet
    (``create_schema``), or migrate one that does (``migrate``)."""
    if inspect(connection).get_table_names():
        migrate(connection, url)
    else:
        create_schema(connection)


def create_schema(connection: Connection) -> None:
    """The head schema in an empty database, in one step: the tables, the Alembic version table at the head, and
    the mark older annotators read."""
    schema.metadata.create_all(connection, checkfirst=False)
    _VERSION_TABLE.create(connection, checkfirst=False)
    connection.execute(_VERSION_TABLE.insert().values(version_num=head_revision()))
    _mark_alembic_managed(connection)


def migrate(connection: Connection, url: str) -> None:
    """Run Alembic's revisions up to the head: from nothing, or after stamping an annotator 0.1 database at its
    legacy revision; refuse a revision this annotator does not know (a newer one)."""
    from alembic import command

    known, _head = _alembic_revisions()
    config = alembic_config()
    config.attributes["connection"] = connection
    current = alembic_revision(connection)
    if current is None:
        legacy = _legacy_version(connection)
        if legacy is not None:
            if legacy not in LEGACY_REVISIONS:
                raise _newer_error(url, str(legacy))
            command.stamp(config, LEGACY_REVISIONS[legacy])
    elif current not in known:
        raise _newer_error(url, current)
    command.upgrade(config, "head")
    _mark_alembic_managed(connection)


def alembic_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _legacy_version(connection: Connection) -> int | None:
    """The pre-Alembic ``schema_version`` of a database made by annotator 0.1 (None for an empty database)."""
    if not inspect(connection).has_table("meta"):
        return None
    value = connection.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")).scalar()
    return None if value is None else int(value)


def _mark_alembic_managed(connection: Connection) -> None:
    key = schema.meta.c.key == "schema_version"
    if connection.execute(select(schema.meta.c.key).where(key)).first() is None:
        connection.execute(schema.meta.insert().values(key="schema_version", value=str(ALEMBIC_MANAGED)))
    else:
        connection.execute(schema.meta.update().where(key).values(value=str(ALEMBIC_MANAGED)))


def _newer_error(url: str, version: str) -> UserError:
    return UserError(
        f"The database {make_url(url).render_as_string(hide_password=True)} has schema version "
        f"{version}, newer than this annotator. Upgrade annotator."
    )
