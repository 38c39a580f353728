"""``store/history.py``: an item-language's saved changes, oldest first, never another item-language's."""

from __future__ import annotations

import pytest
from store_rows import add_items, item

from annotator.domain.model import ItemLanguage, Status
from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_history_lists_each_save_of_one_item_language_in_order(project: Project) -> None:
    add_items(project, [item("a"), item("b")], langs=("IT", "DE"))
    with project.db.write() as conn:
        first = project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.IN_PROGRESS), 0, "ivo", "edit")
        project.repo.save_item_language(conn, ItemLanguage("a", "DE", Status.DONE), 0, "ida", "done")
        project.repo.save_item_language(conn, ItemLanguage("b", "IT", Status.DONE), 0, "ivo", "done")
        project.repo.save_item_language(
            conn, ItemLanguage("a", "IT", Status.DONE, first.version), first.version, "lena", "done", {"from": "edit"}
        )
    with project.db.read() as conn:
        history = project.repo.history(conn, "a", "IT")
        assert project.repo.history(conn, "a", "ZH") == []
    assert [(h.item_id, h.lang, h.user, h.action, h.version, h.detail) for h in history] == [
        ("a", "IT", "ivo", "edit", 1, {}),
        ("a", "IT", "lena", "done", 2, {"from": "edit"}),
    ]
    assert history[0].at <= history[1].at
