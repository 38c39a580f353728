"""Read model for the pages: what they show, computed once per change of the data instead of on every rerun.

A Streamlit page reruns on every widget change, and the DiBiMT tables read every item-language. So the statistics
are cached per process, keyed on ``data_version`` (``store.data_version``: a row that moves with every
item-language change, every project-wide change — import, pre-population, filters, exclusions, languages — and
the settings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.domain.model import Item, Status
from annotator.domain.settings import ProjectSettings
from annotator.domain.unicode_rules import check_storable
from annotator.store.repository import QueueEntry as QueueEntry  # re-exported: pages never import the store
from annotator.store.repository import Repository
from annotator.store.repository import ReviewState as ReviewState


def data_version(project: ProjectContext) -> tuple:
    """Changes whenever anything the statistics read changes (see the module docstring); one statement."""
    with project.db.read() as conn:
        return data_version_in(project.repo, conn)


def data_version_in(repo: Repository, conn: Connection) -> tuple:
    """``data_version`` inside a caller's read (a page block reading its data with it: one transaction)."""
    return repo.data_version(conn)


def review_list(project: ProjectContext, langs: Sequence[str], status: Status) -> list[tuple[QueueEntry, ReviewState]]:
    """The Review page's DISCUSS or discarded list: every such item-language with its notes, in one query."""
    with project.db.read() as conn:
        return project.repo.queue_with_states(conn, langs, status)


@dataclass(frozen=True)
class ProjectPage:
    """The Project page's own data: its settings, the audit trail's newest entries and the flagged items."""

    settings: ProjectSettings
    recent_changes: list[dict[str, Any]]
    flagged: list[Item]


def project_page(project: ProjectContext, changes: int = 50) -> ProjectPage:
    """What the Project page shows on every rerun, in one read transaction (it read them with three)."""
    with project.db.read() as conn:
        stored = project.repo.get_meta(conn, "settings")
        recent = project.repo.audit(conn, limit=changes)
        flagged = project.repo.flagged_items(conn)
    return ProjectPage(ProjectSettings.from_json(stored) if stored else ProjectSettings(), recent, flagged)


def flagged_items(project: ProjectContext) -> list[Item]:
    """Items failing a selection filter or excluded by a lead (read from the flagged ones, not every item decoded)."""
    with project.db.read() as conn:
        return project.repo.flagged_items(conn)


def queue_ids(project: ProjectContext, lang: str, statuses: Sequence[Status], search: str) -> list[str]:
    """The Curate queue: ids in import order of ``lang`` in ``statuses`` (all when empty) matching ``search``,
    leaving out the item-languages curated as private copies (the Double curation page's). Ids only: the page
    keeps the list per filter and moves along it, so this runs once per filter change, not per click. A search no
    database can take (a NUL: PostgreSQL refuses it) is refused by name, the same on both engines."""
    check_storable("search", search)
    with project.db.read() as conn:
        ids = project.repo.queue_ids(conn, lang, list(statuses) or None, search)
        assigned = project.repo.open_keys(conn)
    return [item_id for item_id in ids if (item_id, lang) not in assigned] if assigned else ids


def progress_counts(project: ProjectContext, lang: str) -> dict[str, int]:
    """status -> count of ``lang`` for the progress bar (excluded items left out); about a millisecond."""
    with project.db.read() as conn:
        return project.repo.lang_status_counts(conn, lang)


@dataclass(frozen=True)
class ItemStatuses:
    """The Items page's data: every item, its status per language, and the pairs given to double curation."""

    items: list[Item]
    status: dict[str, dict[str, str]]  # lang -> item id -> the stored value of its ``Status``
    assigned: set[tuple[str, str]]


def item_statuses(project: ProjectContext, languages: Sequence[str]) -> ItemStatuses:
    """Items with their statuses, in one transaction: the statuses of every language from one query as plain
    strings, not the queue's entries (an object per item-language for the collector to walk, and most of the Items
    page's time to read)."""
    with project.db.read() as conn:
        items = project.repo.list_items(conn)
        status = project.repo.statuses_by_language(conn, list(languages))
        assigned = project.repo.assigned_keys(conn)  # shown as "×2" after the status
    return ItemStatuses(items, status, assigned)


def item_count(project: ProjectContext) -> int:
    """Items in the project (staged rows of an unfinished import left out)."""
    with project.db.read() as conn:
        return project.repo.count_items(conn)


def status_counts(project: ProjectContext) -> dict[str, dict[str, int]]:
    """lang -> status -> count over the whole project (excluded items left out)."""
    with project.db.read() as conn:
        return project.repo.status_counts(conn)


def status_counts_with_users(
    project: ProjectContext,
) -> tuple[dict[str, dict[str, int]], list[tuple[str, str, str, int]]]:
    """``status_counts`` and (user, lang, status, count) by whoever last set each status, read together."""
    with project.db.read() as conn:
        return project.repo.status_counts(conn), project.repo.status_counts_by_user(conn)


def recent_changes(project: ProjectContext, limit: int = 50) -> list[dict[str, Any]]:
    """The newest project-level changes (the audit trail), newest first."""
    with project.db.read() as conn:
        return project.repo.audit(conn, limit=limit)
