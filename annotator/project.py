"""The composition root: opens a project and wires its database, repository, settings and lexicon provider.

The command line and the app both call ``Project.open`` so the data-folder rules (flag, environment,
default) and the database URL rules are the same everywhere. The services, exports and evaluation below never
import this module: they receive the ``Project`` as the ``annotator.context.ProjectContext`` they declare.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import NoReturn

from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from annotator.domain.settings import (
    BUILTIN_PREFIX,
    DEFAULT_LANGUAGES,
    LexiconSettings,
    ProjectSettings,
    parse_languages,
)
from annotator.errors import DatabaseUnavailableError, UserError
from annotator.lexicon.base import Lexicon
from annotator.private_files import make_private_folder
from annotator.services.administration import project_limits
from annotator.store.database import Database, committed_writes, sqlite_url
from annotator.store.repository import Repository

#: The settings types are handed over with the project that reads and writes them (the tests and benchmarks
#: build projects from this one import).
__all__ = [
    "BABELNET_CACHE_FILE",
    "BUILTIN_PREFIX",
    "DATABASE_FILE",
    "DEFAULT_LANGUAGES",
    "LexiconSettings",
    "Project",
    "ProjectExistsError",
    "ProjectSettings",
    "builtin_path",
    "committed_writes",
    "database_url",
    "display_url",
    "parse_languages",
    "project_exists",
    "resolve_data_dir",
]

DATABASE_FILE = "annotator.sqlite"
BABELNET_CACHE_FILE = "babelnet-cache.sqlite"
#: What a project without a lexicon is told, wherever it meets the gap (``prepopulate``, ``info``).
LEXICON_CHOICES = (
    "choose one with 'annotator lexicon use-wordnet FILE…' (open wordnets, no key), 'annotator lexicon "
    "use-babelnet' (BabelNet, needs a key) or 'annotator lexicon use-snapshot FILE' (an offline snapshot)."
)
NO_LEXICON = f"No lexicon is set for this project yet: {LEXICON_CHOICES}"


def resolve_data_dir(data: str | os.PathLike[str] | None = None) -> Path:
    """``--data`` wins, then ``$ANNOTATOR_DATA``, then ``./data``."""
    return Path(data or os.environ.get("ANNOTATOR_DATA") or "data").resolve()


def database_url(data_dir: Path) -> str | None:
    """``ANNOTATOR_DATABASE_URL``, else the data folder's SQLite file when it exists (None: no database yet)."""
    url = os.environ.get("ANNOTATOR_DATABASE_URL")
    if url:
        return url
    db_file = data_dir / DATABASE_FILE
    return sqlite_url(db_file) if db_file.exists() else None


def display_url(url: str) -> str:
    """The URL as shown in messages: the password masked."""
    return make_url(url).render_as_string(hide_password=True)


def has_project(database: Database) -> bool:
    """True when the database holds a project: its ``project_id`` (or, before migration 0003, its settings)."""
    with database.read() as conn:
        return Repository(database).holds_project(conn)


def cannot_use(url: str, error: Exception) -> UserError:
    """The operator's message when the database cannot be opened: the driver's reason (server down, password
    wrong, database missing) with the URL, password masked."""
    cause = error.__cause__ if isinstance(error, DatabaseUnavailableError) else error
    original = getattr(cause, "orig", None) or cause
    reason = str(original).strip().splitlines()[0] if str(original).strip() else type(original).__name__
    return UserError(f"Cannot use the database {display_url(url)}: {reason}")


def project_exists(data: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``init``/``demo`` would find a project here (in the configured database, not by file)."""
    url = database_url(resolve_data_dir(data))
    if url is None:
        return False
    database = Database(url)
    try:
        return has_project(database)
    except (OperationalError, DatabaseUnavailableError) as error:
        raise cannot_use(url, error) from error
    finally:
        database.dispose()


def _claim_database(database: Database) -> None:
    """Give a fresh database its project identity, in one write so two ``init`` runs cannot both succeed."""
    with database.write() as conn:
        if not Repository(database).claim_project_id(conn):
            _refuse_existing(database)


def _refuse_existing(database: Database) -> NoReturn:
    where = display_url(database.url)
    database.dispose()
    raise ProjectExistsError(
        f"The database {where} already holds a project; nothing was changed. Use another --data folder "
        "or ANNOTATOR_DATABASE_URL, or open the existing project without 'init'/'demo'."
    )


class ProjectExistsError(UserError):
    """``init`` or ``demo`` pointed at a database that already holds a project."""


def builtin_path(name: str) -> Path:
    return Path(str(resources.files("annotator").joinpath(name)))


class Project:
    """An opened project. Cheap to create; the app keeps one per process."""

    def __init__(self, data_dir: Path, database: Database) -> None:
        self.data_dir = data_dir
        self.db = database
        self.repo = Repository(database)

    @classmethod
    def open(cls, data: str | os.PathLike[str] | None = None, create: bool = False) -> Project:
        """Open the project held by the database; ``create=True`` makes a new one and refuses an existing one.

        The database (``ANNOTATOR_DATABASE_URL``, else the data folder's SQLite file) is the project: its
        ``project_id`` meta row, not a file's existence, says whether a project is there.
        """
        data_dir = resolve_data_dir(data)
        url = database_url(data_dir)
        if url is None:
            if not create:
                raise UserError(
                    f"No project in {data_dir} (no {DATABASE_FILE}). Create one with 'annotator init' "
                    "or 'annotator demo', or point --data / ANNOTATOR_DATA at an existing project."
                )
            make_private_folder(data_dir)  # it holds the database, uploads and logs: owner only (0700)
            url = sqlite_url(data_dir / DATABASE_FILE)
        database = Database(url)
        try:
            return cls._open(data_dir, database, create)
        except (OperationalError, DatabaseUnavailableError) as error:  # server down, database missing, password
            database.dispose()
            raise cannot_use(url, error) from error

    @classmethod
    def _open(cls, data_dir: Path, database: Database, create: bool) -> Project:
        url = database.url
        if create:
            if has_project(database):  # refused before any migration: an existing project is left as it was
                _refuse_existing(database)
            database.create_or_migrate()
            _claim_database(database)
        else:
            if not has_project(database):
                database.dispose()
                raise UserError(
                    f"No project in the database {display_url(url)}. "
                    "Create one with 'annotator init' or 'annotator demo'."
                )
            database.create_or_migrate()
        return cls(data_dir, database)

    # --- settings ---------------------------------------------------------------------------------------

    def settings(self) -> ProjectSettings:
        with self.db.read() as conn:
            data = self.repo.get_meta(conn, "settings")
        return ProjectSettings.from_json(data) if data else ProjectSettings()

    def save_settings(self, settings: ProjectSettings) -> None:
        """Store the settings and give every item a row in each language; inside a caller's ``write()`` this joins
        it, so a service saves settings and their audit row in one transaction."""
        with self.db.write() as conn:
            self.repo.set_meta(conn, "settings", settings.to_json())
            ids = [item.id for item in self.repo.list_items(conn)]
            self.repo.ensure_item_languages(conn, ids, settings.languages)

    def resolve_path(self, path: str) -> Path:
        if path.startswith(BUILTIN_PREFIX):
            return builtin_path(path[len(BUILTIN_PREFIX) :])
        candidate = Path(path)
        return candidate if candidate.is_absolute() else (self.data_dir / candidate)

    @property
    def babelnet_cache_path(self) -> Path:
        return self.data_dir / BABELNET_CACHE_FILE

    @property
    def wordnet_folder(self) -> Path:
        """The project's own ``wn`` database folder (never the user's global one)."""
        return self.data_dir / "wordnet"

    def lexicon(self, settings: ProjectSettings | None = None) -> Lexicon:
        """Build the configured provider; errors say what to configure."""
        settings = settings or self.settings()
        config = settings.lexicon
        if config.provider == "snapshot":
            if not config.snapshot:  # said before the import: a card asks on every run
                raise UserError(NO_LEXICON)
            from annotator.lexicon.snapshot import SnapshotLexicon

            return SnapshotLexicon.load(self.resolve_path(config.snapshot), project_limits(self), self.data_dir)
        if config.provider == "babelnet":
            from annotator.lexicon.babelnet import BabelNetLexicon, load_api_key
            from annotator.lexicon.http_cache import HttpCache

            key = load_api_key(Path(".streamlit/secrets.toml"))
            if not key:
                raise UserError("No BabelNet key: set BABELNET_API_KEY or put it in .streamlit/secrets.toml.")
            return BabelNetLexicon(api_key=key, base_url=config.base_url, cache=HttpCache(self.babelnet_cache_path))
        if config.provider == "wordnet":
            from annotator.lexicon.wordnet import WordnetLexicon

            return WordnetLexicon(self.wordnet_folder)
        raise UserError(f"Unknown lexicon provider {config.provider!r} (use 'snapshot', 'babelnet' or 'wordnet').")
