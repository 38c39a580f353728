"""Lead-only project actions: who may run them, and the audit trail of who did.

Import, pre-population, the filters, exclusions and settings change the whole project, so the check lives
here (not only in the page) and every run leaves an audit row. ``user`` None means the command line: the
operator has the database file already, and the audit names the operating-system account.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.data_import.limits import META_KEY as LIMITS_META_KEY
from annotator.data_import.limits import InputLimits
from annotator.domain import workflow
from annotator.domain.languages import check_language
from annotator.domain.model import User


def actor(user: User | None) -> str:
    if user is not None:
        return user.name
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no passwd entry (containers)
        return "cli"


def check_admin(user: User | None, action: str) -> None:
    """Only leads run project-wide actions from the app."""
    if user is not None:
        workflow.check_lead(user, action)


def record(project: ProjectContext, conn: Connection, user: User | None, action: str, detail: dict[str, Any]) -> None:
    project.repo.add_audit(conn, actor(user), action, detail)


def set_excluded(project: ProjectContext, item_ids: Iterable[str], excluded: bool, user: User | None = None) -> int:
    """Exclude items from curation and export (or include them again); a lead's decision, audited."""
    check_admin(user, "exclude or include items")
    ids = sorted(set(item_ids))
    if not ids:
        return 0
    with project.db.write() as conn:
        changed = project.repo.set_excluded(conn, ids, excluded)
        record(project, conn, user, "exclude" if excluded else "include", {"items": ids})
    return changed


def add_languages(project: ProjectContext, codes: Iterable[str], user: User | None = None) -> tuple[str, ...]:
    """Add the languages of ``codes`` the project does not have yet (checked against ISO 639 first); returns them.

    The settings are read and saved inside one write transaction (under the write lock) with the new
    item-language rows and the audit row, so a language another process removed or added meanwhile, or a provider
    it switched, stays as that process left it."""
    check_admin(user, "change the project's languages")
    wanted = tuple(dict.fromkeys(check_language(code) for code in codes))  # refused before the lock is taken
    with project.db.write() as conn:
        settings = project.settings()  # joins this transaction: the last committed settings
        added = tuple(lang for lang in wanted if lang not in settings.languages)
        languages = (*settings.languages, *added)
        if added:
            project.save_settings(replace(settings, languages=languages))
        record(project, conn, user, "languages", {"languages": list(languages), "added": list(added)})
    return added


def project_limits(project: ProjectContext | None) -> InputLimits:
    """The limits a project configured (defaults when it has none, or when there is no project)."""
    if project is None:
        return InputLimits()
    with project.db.read() as conn:
        return InputLimits.from_json(project.repo.get_meta(conn, LIMITS_META_KEY))


def update_project_limits(
    project: ProjectContext, change: Callable[[InputLimits], InputLimits], user: User | None = None
) -> InputLimits:
    """Apply ``change`` to the stored limits read inside the write transaction (under the write lock), so a limit
    another process set meanwhile is kept; returns the limits stored."""
    check_admin(user, "change the input limits")
    with project.db.write() as conn:
        limits = change(InputLimits.from_json(project.repo.get_meta(conn, LIMITS_META_KEY)))
        project.repo.set_meta(conn, LIMITS_META_KEY, limits.to_json())
        changed = {k: v for k, v in limits.to_json().items() if v != getattr(InputLimits(), k)}
        record(project, conn, user, "input_limits", changed)
    return limits
