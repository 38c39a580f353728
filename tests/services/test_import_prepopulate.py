"""``import_and_prepopulate`` (``annotator import --prepopulate``): the new items pre-populated while the import stages
them store exactly what ``import_items`` then ``prepopulate`` store; hidden until the import commits; a failed import
leaves nothing behind, pre-populated rows, their history and records included."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prepopulate_data import GHOST, ROWS, SNAPSHOT
from project_helpers import dump
from sqlalchemy import func, select
from store_rows import table_rows

from annotator.project import Project
from annotator.services.importing import INSERT_CHUNK, import_items
from annotator.services.lexicon_admin import use_snapshot
from annotator.services.prepopulate import prepopulate
from annotator.services.prepopulate_staged import import_and_prepopulate
from annotator.store import schema
from annotator.store.database import Database

pytestmark = pytest.mark.both_engines

#: Times differ between two runs that store the same work.
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")
#: What an import and a pre-population write.
_TABLES = (
    "items", "item_languages", "history", "suggestion_cache", "item_language_sources", "lexicon_records",
    "provenance_sources", "audit",
)  # fmt: skip


def _build(folder: Path) -> None:
    """A project on the snapshot of ``prepopulate_data`` (kept beside the template, so every copy names one file)."""
    snapshot = folder.parent / "snapshot.json"
    snapshot.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    project = Project.open(folder, create=True)
    use_snapshot(project, snapshot)
    project.db.dispose()


@pytest.fixture
def two(tmp_path: Path, copy_project) -> tuple[Project, Project]:  # type: ignore[no-untyped-def]
    """Two copies of the same new project, each on its own database."""
    copies = []
    for name in ("one", "two"):
        copy_project("import-prepopulate", _build, tmp_path / name)
        copies.append(Project.open(tmp_path / name))
    return copies[0], copies[1]


def _stored(project: Project) -> dict[str, list[tuple[object, ...]]]:
    return table_rows(project, _TABLES, _TIME)


def _rows(count: int) -> list[dict]:
    return [dict(ROWS[n % len(ROWS)], id=f"item-{n:04d}") for n in range(count)]


def test_it_stores_what_import_then_prepopulate_store(two: tuple[Project, Project], write_jsonl) -> None:
    combined, separate = two
    path = write_jsonl("items.jsonl", [*_rows(INSERT_CHUNK + 20), GHOST])  # two chunks; σ of the ghost unknown
    steps: set[str] = set()
    imported, report = import_and_prepopulate(combined, path, progress=lambda _d, _t, step: steps.add(step))
    assert "writing" in steps and not steps & {row["id"] for row in _rows(3)}  # no run of its own after the import
    assert import_items(separate, path).summary() == imported.summary()
    expected = prepopulate(separate)
    assert report.summary() == expected.summary() and report.warnings == expected.warnings
    assert report.item_languages == 5 * (INSERT_CHUNK + 20) and [s.item_id for s in report.skipped] == ["ghost"] * 5
    assert _stored(combined) == _stored(separate)
    with combined.db.read() as conn:
        ghost = combined.repo.item_languages_of(conn, "ghost")
        drink = combined.repo.get_item_language(conn, "item-0000", "IT")
    assert {s.prepopulated for s in ghost.values()} == {False} and {s.version for s in ghost.values()} == {0}
    assert drink is not None and drink.prepopulated and drink.version == 1 and drink.initial_good


@pytest.mark.parametrize("earlier", ["pending items", "a changed item"])
def test_with_other_work_left_it_imports_then_prepopulates_as_the_two_commands(
    two: tuple[Project, Project], write_jsonl, earlier: str
) -> None:
    """What else is left to pre-populate (an earlier import's items), or a replaced item, comes first in the
    history, as the two commands number it."""
    first = write_jsonl("first.jsonl", _rows(3))
    changed = [dict(_rows(1)[0], synset="bn:00000001n")]  # its sense changes: its item-languages start again
    second = write_jsonl("second.jsonl", [*changed, *_rows(8)[3:]])
    combined, separate = two
    for project in two:
        import_items(project, first)
        if earlier == "a changed item":
            prepopulate(project)
    imported, report = import_and_prepopulate(combined, second)
    assert import_items(separate, second).summary() == imported.summary()
    assert report.summary() == prepopulate(separate).summary()
    assert report.item_languages == 5 * (8 if earlier == "pending items" else 6)
    assert _stored(combined) == _stored(separate)


def test_the_staged_rows_stay_hidden_and_a_failed_import_leaves_nothing(
    project: Project, write_jsonl, tmp_path
) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    use_snapshot(project, snapshot)
    import_items(project, write_jsonl("first.jsonl", ROWS[:1]))
    prepopulate(project)  # nothing else left to do: the new items are pre-populated while staged
    before = dump(project)
    other = Database(project.db.url)  # another process's view: only what is committed
    seen: list[tuple[object, ...]] = []

    def explode(done: int, total: int, message: str) -> None:
        if message == "writing":
            with other.read() as conn:
                il, history = schema.item_languages, schema.history
                staged = select(func.count()).where(il.c.prepopulated, il.c.item_id.like("item-%"))
                written = select(func.count()).where(history.c.item_id.like("item-%"))
                counts = [conn.execute(query).scalar() for query in (staged, written)]
                seen.append((project.repo.count_items(conn), len(project.repo.queue(conn, "IT")), *counts))
            raise RuntimeError("simulated crash after the first chunk")

    rows = _rows(INSERT_CHUNK + 1)
    with pytest.raises(RuntimeError):
        import_and_prepopulate(project, write_jsonl("many.jsonl", rows), progress=explode)
    # the chunk was committed, pre-populated (its history written), yet no reader saw an item of it
    assert seen == [(1, 1, 5 * INSERT_CHUNK, 5 * INSERT_CHUNK)]
    assert dump(project) == before
    other.dispose()
    imported, report = import_and_prepopulate(project, write_jsonl("many.jsonl", rows))
    assert imported.added == INSERT_CHUNK + 1 and report.item_languages == 5 * (INSERT_CHUNK + 1)
