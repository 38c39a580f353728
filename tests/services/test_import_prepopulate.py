"""``import_and_prepopulate`` (``annotator import --prepopulate``): the new items pre-populated while the import stages
them store exactly what ``import_items`` then ``prepopulate`` store; hidden until the import commits; a failed import
leaves nothing behind, pre-populated rows, their history and records included."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from prepopulate_data import GHOST, ROWS, SNAPSHOT
from project_helpers import dump
from sqlalchemy import func, select
from store_rows import table_rows

from annotator.project import Project
from annotator.second_process import SecondProcessError
from annotator.services.importing import INSERT_CHUNK, import_items
from annotator.services.lexicon_admin import use_snapshot
from annotator.services.prepopulate import prepopulate
from annotator.services.prepopulate_staged import StagedPrepopulation, import_and_prepopulate
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


def test_a_second_process_stores_what_one_process_stores(two: tuple[Project, Project], write_jsonl) -> None:
    """The new items pre-populated in a second process while this one writes them: the same rows, history numbers
    and report as in one process."""
    in_two, in_one = two
    path = write_jsonl("items.jsonl", [*_rows(2 * INSERT_CHUNK + 7), GHOST])  # three chunks
    written: list[int] = []
    imported, report = import_and_prepopulate(
        in_two, path, processes=2, progress=lambda done, _t, step: written.append(done) if step == "writing" else None
    )
    assert written == [INSERT_CHUNK, 2 * INSERT_CHUNK, 2 * INSERT_CHUNK + 8]
    imported_alone, alone = import_and_prepopulate(in_one, path, processes=1)
    assert imported.summary() == imported_alone.summary()
    assert report.summary() == alone.summary() and report.warnings == alone.warnings
    assert report.per_language == alone.per_language and report.item_languages == 5 * (2 * INSERT_CHUNK + 7)
    assert _stored(in_two) == _stored(in_one)


def _children() -> set[int]:
    """This process's child processes (Linux)."""
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        pids.update(int(pid) for pid in (task / "children").read_text().split())
    return pids


def test_a_second_process_that_dies_fails_the_import_and_leaves_nothing(
    project: Project, write_jsonl, tmp_path: Path
) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    use_snapshot(project, snapshot)
    before, earlier = dump(project), _children()
    killed: list[int] = []

    def kill_the_second(_done: int, _total: int, step: str) -> None:
        if step == "writing" and not killed:
            killed.extend(_children() - earlier)
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    # three chunks: the first written, the second process still holds the pickles of the next two (far more than a
    # pipe's buffer), so it is alive when killed
    rows = _rows(3 * INSERT_CHUNK)
    with pytest.raises(SecondProcessError, match="ended without a word \\(killed by signal"):
        import_and_prepopulate(project, write_jsonl("many.jsonl", rows), processes=2, progress=kill_the_second)
    assert len(killed) == 1 and not Path(f"/proc/{killed[0]}").exists()  # killed, and reaped
    assert dump(project) == before
    imported, report = import_and_prepopulate(project, write_jsonl("many.jsonl", rows), processes=2)
    assert imported.added == 3 * INSERT_CHUNK and report.item_languages == 5 * 3 * INSERT_CHUNK


def test_processes_are_one_or_two(project: Project, write_jsonl) -> None:
    with pytest.raises(ValueError, match="processes must be 1 or 2"):
        import_and_prepopulate(project, write_jsonl("items.jsonl", ROWS), processes=3)


def test_the_lexicon_built_while_the_file_is_read_is_the_one_the_run_uses(project: Project, tmp_path: Path) -> None:
    """``load_lexicon`` builds the project's lexicon before the file's read is waited for; ``begin`` takes it while the
    lexicon settings are the ones it was built from, and builds the lexicon again when they changed meanwhile."""
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for path in (first, second):
        path.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    use_snapshot(project, first)
    work = StagedPrepopulation(project)
    work.load_lexicon()
    assert work.loaded is not None
    built = work.loaded[1]
    assert work.begin(0) and work.run is not None and work.run.lexicon is built
    assert work.loaded is None  # taken: not held for the rest of the import

    work = StagedPrepopulation(project)
    work.load_lexicon()
    assert work.loaded is not None
    stale = work.loaded[1]
    use_snapshot(project, second)  # a lead switches the snapshot while the file is read
    assert work.begin(0) and work.run is not None and work.run.lexicon is not stale
    assert work.run.provenance.records and "second.json" in work.run.provenance.english


def test_a_lexicon_that_cannot_be_built_ahead_leaves_the_import_alone(project: Project, write_jsonl) -> None:
    """No lexicon configured: building it ahead fails quietly, and the import goes on alone, as before."""
    work = StagedPrepopulation(project)
    work.load_lexicon()
    assert work.loaded is None and not work.begin(0)
    imported = import_items(project, write_jsonl("items.jsonl", ROWS))
    assert imported.added == len(ROWS)


#: A command line's process (no other thread runs): the default import, reporting at each chunk written which child
#: processes and threads it has, and at the end which threads are left.
_DEFAULT_RUN = """
import json, sys, threading
from pathlib import Path
from annotator.project import Project
from annotator.services.prepopulate_staged import StagedPrepopulation, import_and_prepopulate

def children():
    return [pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()]

seen = []
def progress(done, _total, step):
    if step == "writing":
        seen.append([done, len(children()), sorted(t.name for t in threading.enumerate())])

project = Project.open(sys.argv[1])
imported, report = import_and_prepopulate(project, sys.argv[2], progress=progress)
print(json.dumps({"seen": seen, "left": [t.name for t in threading.enumerate()], "done": report.item_languages}))
"""


def test_by_default_a_command_line_forks_before_its_checkpoints_get_a_thread(
    project: Project, engine: str, write_jsonl, tmp_path: Path
) -> None:
    """The second process is forked when the first chunk is asked for, while this process has one thread; the
    checkpoints' thread (SQLite) starts with the first write after it and is ended with the staging."""
    assert len(os.sched_getaffinity(0)) >= 2, "this test needs two usable CPUs"
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    use_snapshot(project, snapshot)
    path = write_jsonl("many.jsonl", _rows(2 * INSERT_CHUNK + 1))  # three chunks
    program = [sys.executable, "-c", _DEFAULT_RUN, str(project.data_dir), str(path)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run(program, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout.splitlines()[-1])
    assert answer["done"] == 5 * (2 * INSERT_CHUNK + 1)
    written = [done for done, _children, _threads in answer["seen"]]
    assert written == [INSERT_CHUNK, 2 * INSERT_CHUNK, 2 * INSERT_CHUNK + 1]
    assert all(children == 1 for _done, children, _threads in answer["seen"][:-1])  # the second process, alive
    threads = [threads for _done, _children, threads in answer["seen"]]
    assert threads[0] == (["MainThread", "sqlite-checkpoints"] if engine == "sqlite" else ["MainThread"])
    assert answer["left"] == ["MainThread"]
