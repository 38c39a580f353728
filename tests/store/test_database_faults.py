"""Issue 20, points 3 and 8: a writer frozen inside its transaction, a PostgreSQL restart, a server that is down.

A frozen writer (here a real process stopped with SIGSTOP while it holds the write lock) costs every other writer
the busy time-out and then the same "try again" message on both engines — on PostgreSQL through ``lock_timeout``,
where the advisory lock used to wait for ever. A restart between two actions is invisible (pooled connections are
pinged before use); while the server is down, an action says the database is not answering and whether the last
change was saved, in the services and in the app — never a traceback.

The restart tests run a PostgreSQL cluster of their own (tests/pg_cluster.py), so stopping it disturbs no other test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from app_helpers import area, send_area
from frozen_writer import frozen_writer
from pg_cluster import Cluster, create_database
from project_helpers import SAMPLE_ITEMS, build_demo, dump
from streamlit.testing.v1 import AppTest

from annotator.domain.model import Role, Side, User
from annotator.errors import DatabaseBusyError, DatabaseUnavailableError
from annotator.project import Project
from annotator.services.accounts import add_user, log_in
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.store.database import BUSY_TIMEOUT_ENV, Database

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"
ITEM, LANG = "shot-whiskey", "IT"
NOT_SAVED = "The database is not answering; your last change was not saved. Try again in a moment."
SAVED = "The database is not answering; your last change was saved. Try again in a moment."


@pytest.fixture
def started(project: Project, write_jsonl) -> Project:  # type: ignore[no-untyped-def]
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    return project


@pytest.mark.both_engines
def test_a_writer_frozen_inside_its_transaction_costs_others_the_busy_timeout_then_try_again(
    started: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BUSY_TIMEOUT_ENV, "500")
    impatient = Project.open(started.data_dir)
    lead = impatient_lead(impatient)
    before = dump(started)
    with frozen_writer(started.data_dir):
        with pytest.raises(DatabaseBusyError) as caught:
            CurationService(impatient, lead).add_candidate(ITEM, LANG, Side.GOOD, "goccio", 0)
        assert str(caught.value) == (  # the same message on SQLite and PostgreSQL
            "The database is busy (another change held it for more than 0.5 s); nothing was changed. "
            "Try again in a moment."
        )
        with pytest.raises(DatabaseBusyError):  # a log-in writes the throttle: it waits as long, no longer
            log_in(impatient, "lena", "lead-password")
        with impatient.db.read() as conn:  # readers are never blocked by the writer
            assert impatient.repo.count_items(conn) == 2
    assert dump(started) == before  # the frozen writer's row was never committed, nothing else was written
    saved = CurationService(impatient, lead).add_candidate(ITEM, LANG, Side.GOOD, "goccio", 0)
    assert [c.text for c in saved.good] == ["goccio"]
    impatient.db.dispose()


def impatient_lead(project: Project) -> User:
    with project.db.read() as conn:
        user = project.repo.get_user(conn, "lena")
    assert user is not None
    return user


# --- PostgreSQL restarted or down -------------------------------------------------------------------------------


@pytest.fixture
def pg_url(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = create_database(cluster.url(), "annotator_faults")
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", url)
    yield url


@pytest.fixture
def pg_project(pg_url: str, tmp_path: Path, write_jsonl) -> Iterator[Project]:  # type: ignore[no-untyped-def]
    project = Project.open(tmp_path / "data", create=True)
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    yield project
    project.db.dispose()


@contextmanager
def server_down(cluster: Cluster) -> Iterator[None]:
    cluster.stop_server()
    try:
        yield
    finally:
        cluster.start_server()


def good(project: Project) -> list[str]:
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, ITEM, LANG)
    assert state is not None
    return [c.text for c in state.good]


def test_a_restart_between_two_actions_is_invisible(pg_project: Project, cluster: Cluster) -> None:
    service = CurationService(pg_project, impatient_lead(pg_project))
    service.add_candidate(ITEM, LANG, Side.GOOD, "goccio", 0)  # the pool now holds a connection to the old server
    cluster.restart()
    assert [c.text for c in service.view(ITEM, LANG).state.good] == ["goccio"]  # a read, then a write
    cluster.restart()
    saved = service.add_candidate(ITEM, LANG, Side.GOOD, "sorso", 1)
    assert [c.text for c in saved.good] == ["goccio", "sorso"] and saved.version == 2


def test_while_the_server_is_down_an_action_says_so_and_whether_the_last_change_was_saved(
    pg_project: Project, cluster: Cluster
) -> None:
    service = CurationService(pg_project, impatient_lead(pg_project))
    service.add_candidate(ITEM, LANG, Side.GOOD, "goccio", 0)
    other = Project(pg_project.data_dir, Database(pg_project.db.url))  # another process: no change of its own
    lead = impatient_lead(pg_project)
    with server_down(cluster):
        with pytest.raises(DatabaseUnavailableError) as fresh:
            CurationService(other, lead).view(ITEM, LANG)
        assert str(fresh.value) == "The database is not answering; nothing was changed. Try again in a moment."
        with pytest.raises(DatabaseUnavailableError) as read:  # the last change (goccio) was saved
            service.view(ITEM, LANG)
        assert str(read.value) == SAVED and read.value.saved is True
        with pytest.raises(DatabaseUnavailableError) as write:
            service.add_candidate(ITEM, LANG, Side.GOOD, "sorso", 1)
        assert str(write.value) == NOT_SAVED and write.value.saved is False
        assert "127.0.0.1" not in str(write.value) and "SELECT" not in str(write.value)  # no server, no SQL
        with pytest.raises(DatabaseUnavailableError) as again:  # and now the last change is the one not saved
            service.view(ITEM, LANG)
        assert str(again.value) == NOT_SAVED
    assert good(pg_project) == ["goccio"]
    other.db.dispose()
    saved = service.add_candidate(ITEM, LANG, Side.GOOD, "sorso", 1)  # the server is back: it works again
    assert [c.text for c in saved.good] == ["goccio", "sorso"]


@pytest.fixture
def pg_demo(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "demo"
    build_demo(data)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    return data


def shown_errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def test_the_app_across_a_restart_and_while_the_server_is_down(pg_demo: Path, cluster: Cluster) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input("translator")
    at.text_input(key="login_password").input("demo-translator-pass")
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception

    cluster.restart()  # between two actions: the next one just works
    send_area(at, "add", side="good", text="sorso")
    assert not at.exception and not at.error, (at.exception, shown_errors(at))

    with server_down(cluster):
        send_area(at, "add", side="good", text="cicchetto")  # no traceback: one message
        assert shown_errors(at) == [NOT_SAVED]
        at.run()  # a reload while it is still down: the page says so too
        assert not at.exception  # this run made no change of its own
        assert shown_errors(at) == ["The database is not answering; nothing was changed. Try again in a moment."]

    at.run()
    assert not at.exception and not at.error
    assert area(at)["feedback"] is None or "clear" not in area(at)["feedback"]  # the box keeps it to redo
    project = Project.open(pg_demo)
    assert good(project) == ["goccio", "bicchierino", "sorso"]
    project.db.dispose()
