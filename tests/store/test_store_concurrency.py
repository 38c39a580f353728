"""Writers at the same moment on both engines (issue 10): they queue, so nothing collides or is lost.

Each test opens the project twice, as two app servers or a server and a command would, and starts both
writers together at a barrier.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.domain.model import Role
from annotator.errors import UserError
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.importing import ImportInProgressError, import_items

pytestmark = pytest.mark.both_engines


def run_together(*calls: Callable[[], object]) -> list[object]:
    """Run the calls in threads released at once; each result is the return value or the exception raised."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except Exception as error:  # collected for the assertions
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


def items_file(tmp_path: Path, name: str, prefix: str, count: int) -> Path:
    lines = ["id,sentence,target,lemma,pos,synset"]
    lines += [f"{prefix}-{n},They sat on the bank number {n}.,bank,bank,NOUN,bn:00008364n" for n in range(count)]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_two_concurrent_imports_give_every_item_its_own_queue_position(project: Project, tmp_path: Path) -> None:
    other = Project.open(project.data_dir)  # a second server on the same database
    first, second = items_file(tmp_path, "a.csv", "a", 300), items_file(tmp_path, "b.csv", "b", 300)
    results = run_together(lambda: import_items(project, first), lambda: import_items(other, second))
    # Both run, or the later one is refused while the first stages its rows ("Another import is running"):
    # a clear user error, and running it again then imports it.
    for index, (result, path, opened) in enumerate(zip(results, (first, second), (project, other), strict=True)):
        if isinstance(result, ImportInProgressError):
            assert "Another import is running" in str(result)
            results[index] = import_items(opened, path)
    assert [r.added for r in results] == [300, 300]  # type: ignore[union-attr]
    with project.db.read() as conn:
        positions = conn.exec_driver_sql("SELECT position FROM items").scalars().all()
        languages = conn.exec_driver_sql("SELECT count(*) FROM item_languages").scalar()
    assert len(positions) == 600 and len(set(positions)) == 600
    assert sorted(positions) == list(range(1, 601))
    assert languages == 600 * 5
    # each import's items stay together, in file order
    with project.db.read() as conn:
        order = [item.id for item in project.repo.list_items(conn)]
    assert order[:300] in ([f"a-{n}" for n in range(300)], [f"b-{n}" for n in range(300)])


def test_adding_the_same_user_twice_at_once_gives_one_account_and_one_clear_error(project: Project, lead) -> None:
    other = Project.open(project.data_dir)
    for round_ in range(20):
        name = f"maria{round_}"
        results = run_together(
            lambda name=name: add_user(project, name, Role.TRANSLATOR, ("IT",), "maria-password"),
            lambda name=name: add_user(other, name, Role.TRANSLATOR, ("DE",), "maria-password"),
        )
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 1, f"round {round_}: {results}"
        assert isinstance(errors[0], UserError) and str(errors[0]) == f"User {name!r} already exists."
    with project.db.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM users").scalar() == 21  # and the lead


def test_two_inits_at_once_create_one_project_and_refuse_the_other(engine: str, tmp_path: Path) -> None:
    from annotator.project import ProjectExistsError

    results = run_together(
        lambda: Project.open(tmp_path / "data", create=True), lambda: Project.open(tmp_path / "data", create=True)
    )
    opened = [r for r in results if isinstance(r, Project)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(opened) == 1 and len(refused) == 1, results
    assert isinstance(refused[0], ProjectExistsError) and "already holds a project" in str(refused[0])
    assert opened[0].db.schema_revision() is not None
    with opened[0].db.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM meta WHERE key='project_id'").scalar() == 1
