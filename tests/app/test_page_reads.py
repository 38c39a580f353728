"""What the Project and Dataset pages read per run (issue 32, acceptance 4): the jobs once for all the jobs panels of
a run, the data version in one statement, the empty-GOOD rows from their partial index (revision 0014), the Dataset
page's progress counts only after a change — each counted with SQLAlchemy's ``before_cursor_execute`` event, on
SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest
from app_helpers import logged_in, plain
from project_helpers import LATER_INDEXES, LATER_REVISIONS, SAMPLE_ITEMS, dump
from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine
from streamlit.testing.v1 import AppTest

from annotator.domain.jobs import JobKind, JobState
from annotator.domain.model import Role, Status, User
from annotator.project import Project
from annotator.services import jobs, read_model
from annotator.services.accounts import add_user
from annotator.services.administration import record, set_excluded
from annotator.services.importing import import_items
from annotator.services.jobs.liveness import host_name
from annotator.services.suggestions.project_counts import empty_good_counts
from annotator.store.schema_migrations import head_revision

pytestmark = pytest.mark.both_engines

MORE_ITEMS = [{**SAMPLE_ITEMS[0], "id": f"extra-{n}", "sentence": f"He poured shot number {n}."} for n in range(4)]


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every statement any engine of this process sends while the block runs (the app's engine included), but
    what opens a transaction (SQLite's ``BEGIN``, PostgreSQL's isolation level): not reads."""
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith(("BEGIN", "SET TRANSACTION")):
            seen.append(" ".join(statement.split()))

    event.listen(Engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", note)


@contextmanager
def transactions(project: Project) -> Iterator[list[object]]:
    """The transactions the project's engine begins while the block runs (one entry per ``BEGIN``)."""
    begun: list[object] = []

    def began(conn) -> None:  # type: ignore[no-untyped-def]
        begun.append(conn)

    event.listen(project.db.engine, "begin", began)
    try:
        yield begun
    finally:
        event.remove(project.db.engine, "begin", began)


def reading(table: str, seen: list[str]) -> list[str]:
    return [s for s in seen if s.startswith("SELECT") and f"FROM {table}" in s]


@pytest.fixture
def lead(project: Project, write_jsonl, monkeypatch: pytest.MonkeyPatch) -> User:  # type: ignore[no-untyped-def]
    """The project's lead, six items imported (IT, DE … each pending), the app pointed at the project."""
    user = add_user(project, "lena", Role.LEAD, (), "lead-password")
    import_items(project, write_jsonl("items.jsonl", [*SAMPLE_ITEMS, *MORE_ITEMS]), user=user)
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    return user


def empty_good(project: Project, pairs: list[tuple[str, str]]) -> None:
    """Pre-populate ``pairs`` with an empty GOOD list (what pre-population leaves when the lexicon has nothing)."""
    with project.db.write() as conn:
        states = [project.repo.get_item_language(conn, item_id, lang) for item_id, lang in pairs]
        changed = [replace(s, prepopulated=True, initial_good=(), good=()) for s in states if s is not None]
        project.repo.save_item_languages(conn, changed, "cli", "prepopulate", [{}] * len(changed))


# --- the jobs panel's one read ----------------------------------------------------------------------------------


def add_job(project: Project, kind: JobKind, state: JobState, **values: object) -> int:
    with project.db.write() as conn:
        job_id = project.repo.insert_job(conn, kind, "cli:test", {}, "2026-11-27T00:00:00+00:00")
        project.repo.update_job(conn, job_id, None, state=state, **values)
    return job_id


def test_the_jobs_board_is_the_recent_list_and_the_newest_of_each_kind_in_one_statement(
    project: Project, lead: User
) -> None:
    kinds = [JobKind.IMPORT, JobKind.FILTERS, JobKind.IMPORT, JobKind.EXPORT, JobKind.EXPORT, JobKind.EXPORT]
    for kind in kinds:
        add_job(project, kind, JobState.DONE)
    with statements() as seen:
        board = jobs.board(project, limit=3)
    assert len(seen) == 1 and reading("jobs", seen) == seen  # the recent list and every kind's newest at once
    assert [j.id for j in board.recent] == [j.id for j in jobs.list_jobs(project, limit=3)] == [6, 5, 4]
    for kind in (JobKind.IMPORT, JobKind.FILTERS, JobKind.EXPORT):  # older than the three newest: still there
        assert board.latest[kind] == jobs.list_jobs(project, limit=1, kinds=[kind])[0]
    assert JobKind.PREPOPULATE not in board.latest
    only = jobs.board(project, limit=2, kinds=[JobKind.IMPORT])
    assert [j.id for j in only.recent] == [j.id for j in jobs.list_jobs(project, limit=2, kinds=[JobKind.IMPORT])]
    assert only.latest[JobKind.EXPORT].id == 6  # the newest of every kind, whatever the list shows


def test_the_board_fails_an_active_job_whose_worker_died_as_list_jobs_does(project: Project, lead: User) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid of this host that no longer runs the worker
    job_id = add_job(project, JobKind.PREPOPULATE, JobState.RUNNING, worker_pid=gone.pid, worker_host=host_name())
    board = jobs.board(project)
    failed = board.latest[JobKind.PREPOPULATE]
    assert failed.id == job_id and failed.state is JobState.FAILED
    assert f"worker process {gone.pid} died" in (failed.error or "") and board.recent[0] == failed
    assert jobs.get(project, job_id).state is JobState.FAILED  # written, not only shown


def project_page(user: str = "lena") -> AppTest:
    at = logged_in(user, "lead-password")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    return at


def test_a_project_page_run_reads_the_jobs_once_for_all_its_panels(project: Project, lead: User) -> None:
    for kind in (JobKind.IMPORT, JobKind.PREPOPULATE, JobKind.FILTERS):
        add_job(project, kind, JobState.DONE, result={"summary": f"{kind.value} finished"})
    empty_good(project, [("shot-whiskey", "IT")])
    at = project_page()
    with statements() as seen:
        at.checkbox(key="project_import_force").check().run()
    assert not at.exception, at.exception
    # three status panels and the jobs table: one statement (46285f4 read 8, two transactions per panel); the other
    # read of ``jobs`` is the empty-GOOD block's newest evaluation (its MT words)
    board = [s for s in reading("jobs", seen) if "max(jobs.id)" in s]
    assert len(board) == 1 and len(reading("jobs", seen)) == 2, reading("jobs", seen)
    assert any("Empty GOOD lists after pre-population" in m.value for m in at.markdown)  # issue 33's block stays
    shown = [plain(s.value) for s in at.success]
    for kind in ("import", "prepopulate", "filters"):  # each panel still shows its own kind's newest job
        assert any(f"· {kind} · done" in text and f"{kind} finished" in text for text in shown), shown


def test_a_job_started_on_the_page_shows_under_its_button_in_the_same_run(project: Project, lead: User) -> None:
    add_job(project, JobKind.IMPORT, JobState.DONE, result={"summary": "imported earlier"})
    at = project_page()
    at.button(key="project_filters").click().run()  # the import panel above already read the jobs in this run
    assert not at.exception, at.exception
    started = jobs.list_jobs(project, limit=1, kinds=[JobKind.FILTERS])[0]
    texts = [plain(p.proto.text) for p in at.get("progress")] + [plain(s.value) for s in [*at.success, *at.warning]]
    assert any(f"Job {started.id} · filters" in text for text in texts), texts
    ended = jobs.wait(project, started.id, timeout=120)
    assert not ended.active  # (this project has no lexicon for the filters: how it ends does not matter here)


# --- the data version ----------------------------------------------------------------------------------------------


def test_the_data_version_is_one_statement_and_moves_with_every_kind_of_change(project: Project, lead: User) -> None:
    with statements() as seen:
        first = read_model.data_version(project)
    assert len(seen) == 1  # 46285f4's successor read it with four
    if project.db.is_sqlite:  # every part from an index: no table walked (SQLite's bare count(*) counts a b-tree)
        with project.db.read() as conn:
            plan = [str(row[3]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {seen[0]}", ("", "settings"))]
        walked = [step for step in plan if step.startswith("SCAN") and "INDEX" not in step and "CONSTANT" not in step]
        assert walked == ["SCAN audit", "SCAN imports"], plan  # bare counts of these two: no row read
    seen_versions = [first]
    assert read_model.data_version(project) == first  # reading changes nothing

    def moved() -> None:
        now = read_model.data_version(project)
        assert now not in seen_versions
        seen_versions.append(now)

    with project.db.write() as conn:  # a curation change (history)
        state = project.repo.get_item_language(conn, "shot-whiskey", "IT")
        assert state is not None
        project.repo.save_item_languages(conn, [replace(state, status=Status.DONE)], "lena", "done", [{}])
    moved()
    with project.db.write() as conn:  # a project-wide change (audit)
        record(project, conn, lead, "test", {})
    moved()
    with project.db.write() as conn:  # an exclusion written without an audit row
        project.repo.set_excluded(conn, ["head-stream"], True)
    moved()
    set_excluded(project, ["head-stream"], False, lead)
    moved()
    with project.db.write() as conn:  # an item replaced without an audit row (its import time moves)
        item = project.repo.get_item(conn, "extra-0")
        assert item is not None
        time.sleep(0.01)
        project.repo.replace_item(conn, replace(item, sentence="He poured another shot."), "changed", True)
    moved()
    project.save_settings(replace(project.settings(), name="renamed"))  # the settings
    moved()
    with project.db.write() as conn:  # an import stages an item (hidden: the version may move, never go stale) …
        import_id = project.repo.begin_import(conn, "more.jsonl", "lena", host_name(), 1, time.time())
        new = replace(item, id="staged-0")
        project.repo.stage_new_items(conn, import_id, [(new, "hash", 1000)], ["IT"])
    moved()
    with project.db.write() as conn:  # … and commits, without an audit row here: its item becomes visible
        assert project.repo.end_import(conn, import_id)
    moved()
    assert read_model.item_count(project) == len(SAMPLE_ITEMS) + len(MORE_ITEMS) + 1


# --- the empty-GOOD block and its index ------------------------------------------------------------------------


def test_the_empty_good_block_reads_in_one_transaction_from_its_partial_index(project: Project, lead: User) -> None:
    empty_good(project, [("shot-whiskey", "IT"), ("extra-1", "IT"), ("extra-2", "DE")])
    with transactions(project) as begun, statements() as seen:
        counts = {c.lang: c for c in empty_good_counts(project)}
    assert (counts["IT"].empty_good, counts["DE"].empty_good, counts["ES"].empty_good) == (2, 1, 0)
    assert counts["IT"].not_computed == 2
    assert len(begun) == 1  # version, empty rows, newest evaluation, kept suggestions: one read
    scan = next(s for s in seen if "FROM item_languages JOIN items" in s and "initial_good" in s)
    if project.db.is_sqlite:  # the planner takes the partial index (a bound '[]' would not let it)
        with project.db.read() as conn:
            plan = " ".join(str(row) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {scan}"))
        assert "ix_item_languages_empty_good" in plan, plan
    assert "'[]'" in scan

    with statements() as again:  # the data unchanged: the rows are kept, only their suggestions read
        assert {c.lang: c for c in empty_good_counts(project)} == counts
    assert not [s for s in again if "FROM item_languages JOIN items" in s]


def test_an_existing_database_gets_the_indexes_and_keeps_its_data(project: Project, lead: User) -> None:
    empty_good(project, [("shot-whiskey", "IT"), ("extra-3", "ES")])
    set_excluded(project, ["extra-1"], True, lead)
    before_counts = empty_good_counts(project)
    later_tables = LATER_REVISIONS["0015_provenance"][0]
    rows_before = {table: rows for table, rows in dump(project).items() if table not in later_tables}
    with project.db.write() as conn:  # as an annotator of revision 0013 left it (the indexes are 0014's only change)
        for index in LATER_INDEXES["0014_empty_good"]:
            conn.exec_driver_sql(f"DROP INDEX {index}")
        for table in later_tables:  # a later revision's tables, made again by the migration
            conn.exec_driver_sql(f"DROP TABLE {table}")
        for table, column in LATER_REVISIONS["0016_suggestion_kinds"][1]:  # and its columns of older tables
            conn.exec_driver_sql(f"ALTER TABLE {table} DROP COLUMN {column}")
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0013_suggestions'")
    url = project.db.url
    project.db.engine.dispose()

    reopened = Project.open(project.data_dir)  # migrates to 0014 and on
    assert reopened.db.url == url and reopened.db.schema_revision() == head_revision()
    with reopened.db.read() as conn:
        item_indexes = {i["name"] for i in inspect(conn).get_indexes("items")}
        il_indexes = {i["name"] for i in inspect(conn).get_indexes("item_languages")}
    assert {"ix_items_imported_at", "ix_items_flagged"} <= item_indexes
    assert "ix_item_languages_empty_good" in il_indexes
    assert {t: rows for t, rows in dump(reopened).items() if t not in later_tables} == rows_before  # every row kept
    assert empty_good_counts(reopened) == before_counts


def test_the_project_page_reads_settings_audit_and_flagged_items_in_one_transaction(
    project: Project, lead: User
) -> None:
    set_excluded(project, ["extra-2"], True, lead)
    with project.db.write() as conn:
        project.repo.set_filter_results(conn, {"extra-0": ["δ(λ) < 3"]})
    with transactions(project) as begun, statements() as seen:
        page = read_model.project_page(project)
    assert len(begun) == 1  # 46285f4: three
    assert page.settings == project.settings() and page.recent_changes == read_model.recent_changes(project)
    assert [i.id for i in page.flagged] == [i.id for i in read_model.flagged_items(project)] == ["extra-0", "extra-2"]
    flagged = next(s for s in seen if "filter_failures" in s and s.startswith("SELECT"))
    if project.db.is_sqlite:  # the partial index of flagged items, not every item read
        with project.db.read() as conn:
            plan = " ".join(str(row) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {flagged}"))
        assert "ix_items_flagged" in plan, plan


# --- the Dataset page ----------------------------------------------------------------------------------------------


def test_a_dataset_rerun_reads_the_progress_counts_only_after_a_change(project: Project, lead: User) -> None:
    at = logged_in("lena", "lead-password")
    at.switch_page("pages/dataset.py").run()
    assert not at.exception, at.exception
    progress = "GROUP BY item_languages.lang, item_languages.status"
    with statements() as seen:
        at.checkbox(key="dataset_keep_partial").check().run()
    assert not at.exception, at.exception
    assert not [s for s in seen if progress in s]  # nothing changed: kept with the overview (46285f4 read it)

    with project.db.write() as conn:
        state = project.repo.get_item_language(conn, "shot-whiskey", "IT")
        assert state is not None
        project.repo.save_item_languages(conn, [replace(state, status=Status.DONE)], "lena", "done", [{}])
    with statements() as seen:
        at.checkbox(key="dataset_keep_partial").uncheck().run()
    assert [s for s in seen if progress in s]
    frame = next(df.value for df in at.dataframe if "total" in df.value.columns)
    italian = frame[frame["language"] == "IT"].iloc[0]
    assert (int(italian["done"]), int(italian["total"])) == (1, len(SAMPLE_ITEMS) + len(MORE_ITEMS))
