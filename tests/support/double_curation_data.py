"""The double-curation tests' item-language and user lookup."""

from __future__ import annotations

from annotator.domain.model import User
from annotator.project import Project

ITEM, OTHER, LANG = "shot-whiskey", "head-stream", "IT"


def user(project: Project, name: str) -> User:
    with project.db.read() as conn:
        found = project.repo.get_user(conn, name)
    assert found is not None
    return found
