"""What services, exports and evaluation receive from the composition root: the project they work on.

``annotator.project.Project`` (built by the command line and the app) satisfies this interface structurally, so
the layers below the composition root name exactly what they use (the database, its repository, the data folder,
the settings, a lexicon built from them) and never import ``annotator.project`` — which keeps the import graph
free of cycles (``tests/architecture/test_architecture.py``, the ``lint-imports`` contracts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from annotator.domain.settings import ProjectSettings
from annotator.lexicon.base import Lexicon
from annotator.store.database import Database
from annotator.store.repository import Repository


class ProjectContext(Protocol):
    """An opened project, as the services use it."""

    @property
    def data_dir(self) -> Path:
        """The project's folder: uploads, exports, job files, wordnet database."""
        ...

    @property
    def db(self) -> Database: ...

    @property
    def repo(self) -> Repository: ...

    @property
    def wordnet_folder(self) -> Path:
        """The project's own ``wn`` database folder (never the user's global one)."""
        ...

    def settings(self) -> ProjectSettings: ...

    def save_settings(self, settings: ProjectSettings) -> None:
        """Store the settings; every item gets a pending item-language for a newly added language (inside an open
        ``write()`` it joins that transaction)."""
        ...

    def lexicon(self, settings: ProjectSettings | None = None) -> Lexicon:
        """The configured provider (``settings`` or the stored ones); a ``UserError`` says what to configure."""
        ...

    def resolve_path(self, path: str) -> Path:
        """A configured file's path: ``builtin:NAME`` inside the package, relative paths inside ``data_dir``."""
        ...
