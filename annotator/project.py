"""A project: its data folder, database, settings and lexicon provider, opened from one place.

The command line and the app both call ``Project.open`` so the data-folder rules (flag, environment,
default) and the database URL rules are the same everywhere.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from annotator.errors import UserError
from annotator.lexicon.base import Lexicon
from annotator.store.database import Database, sqlite_url
from annotator.store.repository import Repository

DEFAULT_LANGUAGES = ("DE", "ES", "IT", "RU", "ZH")
DATABASE_FILE = "annotator.sqlite"
BABELNET_CACHE_FILE = "babelnet-cache.sqlite"
#: A snapshot path with this prefix names a file shipped inside the package.
BUILTIN_PREFIX = "builtin:"


def resolve_data_dir(data: str | os.PathLike[str] | None = None) -> Path:
    """``--data`` wins, then ``$ANNOTATOR_DATA``, then ``./data``."""
    return Path(data or os.environ.get("ANNOTATOR_DATA") or "data").resolve()


def builtin_path(name: str) -> Path:
    return Path(str(resources.files("annotator").joinpath(name)))


@dataclass(frozen=True)
class LexiconSettings:
    """Which provider pre-population uses: ``snapshot`` (a file) or ``babelnet`` (the HTTP API)."""

    provider: str = "snapshot"
    snapshot: str | None = None
    base_url: str = "https://babelnet.io/v9/"


@dataclass(frozen=True)
class ProjectSettings:
    name: str = "annotator project"
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    lexicon: LexiconSettings = field(default_factory=LexiconSettings)
    allowed_sources: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["languages"] = list(self.languages)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProjectSettings:
        return cls(
            name=data.get("name", "annotator project"),
            languages=tuple(data.get("languages", DEFAULT_LANGUAGES)),
            lexicon=LexiconSettings(**data.get("lexicon", {})),
            allowed_sources={k: list(v) for k, v in data.get("allowed_sources", {}).items()},
        )


def parse_languages(text: str) -> tuple[str, ...]:
    langs = tuple(dict.fromkeys(part.strip().upper() for part in text.replace(" ", ",").split(",") if part.strip()))
    for lang in langs:
        if not (lang.isalpha() and 2 <= len(lang) <= 3):
            raise UserError(f"{lang!r} is not a language code (use ISO 639-1 like IT, DE, ZH).")
    if not langs:
        raise UserError("Give at least one language.")
    return langs


class Project:
    """An opened project. Cheap to create; the app keeps one per process."""

    def __init__(self, data_dir: Path, database: Database) -> None:
        self.data_dir = data_dir
        self.db = database
        self.repo = Repository(database)

    @classmethod
    def open(cls, data: str | os.PathLike[str] | None = None, create: bool = False) -> Project:
        data_dir = resolve_data_dir(data)
        url = os.environ.get("ANNOTATOR_DATABASE_URL")
        if url is None:
            db_file = data_dir / DATABASE_FILE
            if not create and not db_file.exists():
                raise UserError(
                    f"No project in {data_dir} (no {DATABASE_FILE}). Create one with 'annotator init' "
                    "or 'annotator demo', or point --data / ANNOTATOR_DATA at an existing project."
                )
            data_dir.mkdir(parents=True, exist_ok=True)
            url = sqlite_url(db_file)
        database = Database(url)
        database.create_or_migrate()
        return cls(data_dir, database)

    # --- settings ---------------------------------------------------------------------------------------

    def settings(self) -> ProjectSettings:
        with self.db.read() as conn:
            data = self.repo.get_meta(conn, "settings")
        return ProjectSettings.from_json(data) if data else ProjectSettings()

    def save_settings(self, settings: ProjectSettings) -> None:
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

    def lexicon(self, settings: ProjectSettings | None = None) -> Lexicon:
        """Build the configured provider; errors say what to configure."""
        settings = settings or self.settings()
        config = settings.lexicon
        if config.provider == "snapshot":
            from annotator.data_import.limits import project_limits
            from annotator.lexicon.snapshot import SnapshotLexicon

            if not config.snapshot:
                raise UserError("No lexicon snapshot configured: run 'annotator lexicon use-snapshot FILE'.")
            return SnapshotLexicon.load(self.resolve_path(config.snapshot), project_limits(self))
        if config.provider == "babelnet":
            from annotator.lexicon.babelnet import BabelNetLexicon, load_api_key
            from annotator.lexicon.http_cache import HttpCache

            key = load_api_key(Path(".streamlit/secrets.toml"))
            if not key:
                raise UserError("No BabelNet key: set BABELNET_API_KEY or put it in .streamlit/secrets.toml.")
            return BabelNetLexicon(api_key=key, base_url=config.base_url, cache=HttpCache(self.babelnet_cache_path))
        raise UserError(f"Unknown lexicon provider {config.provider!r} (use 'snapshot' or 'babelnet').")
