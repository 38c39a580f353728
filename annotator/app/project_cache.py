"""What the server process and each browser session keep of the project between script runs.

The open project is a plain module-level map, not ``st.cache_resource``: a browser's "clear cache" message empties
Streamlit's caches, and must not make the server open the project (a new engine and connection pool) again.
"""

from __future__ import annotations

import os
import threading
from typing import NamedTuple

from annotator.project import Project, resolve_data_dir
from annotator.services import accounts

#: Session key of the cached progress counts (a ``ProgressCache``); any saved change drops it.
PROGRESS_KEY = "progress_counts"


class ProgressCache(NamedTuple):
    """A language's status counts as the session keeps them between runs, and when they were read."""

    lang: str
    read_at: float  # time.monotonic()
    counts: dict[str, int]


#: The open projects of this server process, by (data folder, database URL), and their ids.
_projects: dict[tuple[str, str | None], Project] = {}
_project_keys: dict[Project, str] = {}
_projects_lock = threading.Lock()


def get_project() -> Project:
    """The project named by ``ANNOTATOR_DATA`` (or ``./data``), opened once per process."""
    key = (os.environ.get("ANNOTATOR_DATA") or "", os.environ.get("ANNOTATOR_DATABASE_URL"))
    with _projects_lock:
        project = _projects.get(key)
        if project is None:
            project = _projects[key] = Project.open(resolve_data_dir(key[0] or None))
        return project


def project_key(project: Project) -> str:
    """The project's id, read once per open project (tokens and the cookie name are bound to it)."""
    with _projects_lock:
        key = _project_keys.get(project)
    if key is None:
        key = accounts.project_id(project)
        with _projects_lock:
            _project_keys[project] = key
    return key


def cookie_name(project: Project) -> str:
    """The session cookie's name, per project: cookies ignore ports, and two projects on one host must not
    overwrite each other's."""
    return accounts.cookie_name(project_key(project))
