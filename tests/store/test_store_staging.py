"""``store/staging.py``: an import registers a row, stages hidden items and item-languages behind it, and its rows
appear at once when that row goes; an abandoned import's rows are deleted a bounded number at a time."""

from __future__ import annotations

import os

import pytest
from store_rows import add_items, begin_staging, item

from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_a_staged_import_appears_at_once_when_it_ends(project: Project) -> None:
    add_items(project, [item("kept")], langs=("IT",))
    import_id = begin_staging(project, [item("new-1"), item("new-2")], langs=("IT", "DE"))
    with project.db.read() as conn:
        (staging,) = project.repo.staging_imports(conn)
        assert (staging.id, staging.file, staging.user) == (import_id, "staged.jsonl", "cli:test")
        assert staging.pid == os.getpid()
        assert staging.heartbeat == 1.0 and staging.started_at
        assert project.repo.count_items(conn) == 1
        assert project.repo.item_languages_of(conn, "new-1") == {}
    with project.db.write() as conn:
        assert project.repo.touch_import(conn, import_id, 5.0)
        assert project.repo.staging_imports(conn)[0].heartbeat == 5.0
        assert project.repo.end_import(conn, import_id)
        assert not project.repo.end_import(conn, import_id)  # already gone
        assert not project.repo.touch_import(conn, import_id, 6.0)  # an import cleaned away learns it here
    with project.db.read() as conn:
        assert project.repo.staging_imports(conn) == []
        assert [i.id for i in project.repo.list_items(conn)] == ["kept", "new-1", "new-2"]
        assert sorted(project.repo.item_languages_of(conn, "new-2")) == ["DE", "IT"]


def test_two_imports_get_their_own_ids_and_only_the_ended_one_shows(project: Project) -> None:
    first = begin_staging(project, [item("first")])
    second = begin_staging(project, [item("second")])
    assert first != second
    with project.db.write() as conn:
        project.repo.end_import(conn, second)
    with project.db.read() as conn:
        assert [i.id for i in project.repo.list_items(conn)] == ["second"]
        assert [s.id for s in project.repo.staging_imports(conn)] == [first]


def test_an_abandoned_import_is_deleted_in_bounded_steps_and_others_rows_are_left(project: Project) -> None:
    add_items(project, [item("kept")], langs=("IT",))
    abandoned = begin_staging(project, [item(f"gone-{n}") for n in range(5)], langs=("IT",))
    other = begin_staging(project, [item("other")], langs=("IT",))
    with project.db.write() as conn:
        assert project.repo.delete_staged(conn, abandoned, 2) == 2
        assert project.repo.delete_staged(conn, abandoned, 2) == 2
        assert project.repo.delete_staged(conn, abandoned, 2) == 1
        assert project.repo.delete_staged(conn, abandoned, 2) == 0
        project.repo.end_import(conn, abandoned)
        project.repo.end_import(conn, other)
        counts = project.repo.table_counts(conn)
        ids = [i.id for i in project.repo.list_items(conn)]
    assert ids == ["kept", "other"]
    assert (counts["items"], counts["item_languages"], counts["imports"]) == (2, 2, 0)


def test_staging_nothing_writes_nothing(project: Project) -> None:
    with project.db.write() as conn:
        before = project.repo.table_counts(conn)
        project.repo.stage_new_items(conn, 0, [], ["IT"])
        assert project.repo.table_counts(conn) == before
