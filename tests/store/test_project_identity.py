"""A project is its database (a ``project_id`` meta row), not a file: init, demo, serve and commands ask it.

On PostgreSQL every data folder points at the same database, so "is there a project?" must be asked of the
database: a second ``init`` or a ``demo`` is refused (exit 2, nothing changed) before touching anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from project_helpers import dump
from sqlalchemy import create_engine, inspect

from annotator.cli import main
from annotator.project import Project, database_url
from annotator.store.database import head_revision

pytestmark = pytest.mark.both_engines


def test_init_refuses_an_existing_project_and_changes_nothing(engine: str, tmp_path: Path, capsys) -> None:
    assert main(["init", "--data", str(tmp_path / "p"), "--name", "first", "--languages", "IT,DE"]) == 0
    project = Project.open(tmp_path / "p")
    before = dump(project)
    # on PostgreSQL another folder still names the same database: that is the same project
    again = tmp_path / ("other" if engine == "postgresql" else "p")
    assert main(["init", "--data", str(again), "--name", "second", "--languages", "ZH"]) == 2
    err = capsys.readouterr().err
    assert "already holds a project" in err and "nothing was changed" in err and "Traceback" not in err
    assert dump(project) == before
    assert project.settings().name == "first" and project.settings().languages == ("IT", "DE")


def test_demo_refuses_an_existing_project_before_importing_anything(engine: str, tmp_path: Path, capsys) -> None:
    assert main(["init", "--data", str(tmp_path / "p"), "--languages", "IT"]) == 0
    project = Project.open(tmp_path / "p")
    before = dump(project)
    folder = tmp_path / ("other" if engine == "postgresql" else "p")
    assert main(["demo", "--data", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "already holds a project" in err and "nothing was changed" in err
    assert dump(project) == before and before["items"] == []
    if engine == "postgresql":  # --force never drops a shared database
        assert main(["demo", "--force", "--data", str(folder)]) == 2
        assert "never dropped" in capsys.readouterr().err
        assert dump(project) == before


def test_commands_and_serve_open_the_project_from_the_database(engine: str, tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    for command in (["info"], ["serve", "--port", "9"], ["users", "list"]):
        assert main([*command, "--data", str(empty)]) == 2
        assert "No project in" in capsys.readouterr().err
    url = database_url(empty)
    if url is not None:  # PostgreSQL: looking for a project created nothing in the database
        checked = create_engine(url)
        assert inspect(checked).get_table_names() == []
        checked.dispose()
    assert main(["init", "--data", str(tmp_path / "p"), "--name", "shared", "--languages", "IT"]) == 0
    assert main(["info", "--data", str(tmp_path / ("elsewhere" if engine == "postgresql" else "p"))]) == 0
    out = capsys.readouterr().out
    assert "Project: shared" in out and f"(schema revision {head_revision()})" in out
    assert ("Database: postgresql+psycopg://" if engine == "postgresql" else "Database: sqlite:///") in out


def test_messages_show_the_database_url_without_its_password() -> None:
    from annotator.project import display_url

    shown = display_url("postgresql+psycopg://annotator:s3cret-pass@db.internal/annotator")
    assert "s3cret-pass" not in shown and "db.internal/annotator" in shown


def test_an_unreachable_database_or_a_missing_driver_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from pg_cluster import free_port

    closed = f"postgresql+psycopg://annotator:s3cret-pass@127.0.0.1:{free_port()}/annotator"
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", closed)
    for command in (["info"], ["init"], ["demo"], ["serve", "--demo"]):
        assert main([*command, "--data", str(tmp_path / "p")]) == 2
        err = capsys.readouterr().err
        assert "Cannot use the database postgresql+psycopg://annotator:***@127.0.0.1" in err, command
        assert "s3cret-pass" not in err and "Traceback" not in err
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", "postgresql+pg8000://annotator@127.0.0.1/annotator")
    assert main(["info", "--data", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "No database driver" in err and "annotator[postgres]" in err
