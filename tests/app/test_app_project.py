"""The Project page through AppTest: a lead imports items (bad file refused, nothing written), pre-populates
and runs the selection filters in the browser — checked against the database."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from project_page import counts, finish_jobs, table_with

from annotator.commands.project import DEMO_ITEMS, DEMO_SNAPSHOT
from annotator.domain.model import Role
from annotator.project import LexiconSettings, Project, ProjectSettings, builtin_path
from annotator.services.accounts import add_user

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL


@pytest.fixture
def empty(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project on the bundled demo snapshot with a lead and a translator but no items yet."""
    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(
        ProjectSettings(name="p", lexicon=LexiconSettings(provider="snapshot", snapshot=DEMO_SNAPSHOT))
    )
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    return project


def test_translators_do_not_get_the_page(empty: Project) -> None:
    at = logged_in("ivo", "translator-password")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/project.py")


def test_import_prepopulate_and_filter_in_the_browser(empty: Project) -> None:
    at = logged_in("lena", "lead-password")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    before = counts(empty)

    bad = b'{"sentence": "A bank.", "target": "bank", "lemma": "bank", "pos": "XX", "synset": "bn:00097400n"}\n'
    at.file_uploader(key="project_import_file").set_value(("bad.jsonl", bad, "application/json")).run()
    at.button(key="project_import").click().run()
    assert any("nothing was imported" in e.value for e in at.error)
    problems = table_with(at, "rule")
    assert list(problems["rule"]) == ["bad_pos"] and list(problems["row"]) == [1]
    assert counts(empty) == before

    items = builtin_path(DEMO_ITEMS).read_bytes()
    at.file_uploader(key="project_import_file").set_value(("items.jsonl", items, "application/json")).run()
    at.selectbox(key="project_import_licence").select("cc-by-nc-4.0").run()  # the sentences' licence, recorded
    at.button(key="project_import").click().run()
    assert not at.exception, at.exception
    finish_jobs(empty)
    at.run()
    assert any("18 added" in plain(s.value) for s in at.success)
    assert any("Sentences' licence recorded: cc-by-nc-4.0" in plain(s.value) for s in at.success)
    with empty.db.read() as conn:
        recorded = empty.repo.sources_by_key(conn)
    assert [(r.kind, r.licence) for r in recorded.values()] == [("corpus", "cc-by-nc-4.0")]

    at.button(key="project_prepopulate").click().run()
    assert not at.exception, at.exception
    finish_jobs(empty)
    at.run()
    assert any("90 item-languages pre-populated" in plain(s.value) for s in [*at.success, *at.warning])
    with empty.db.read() as conn:
        states = list(empty.repo.iter_item_languages(conn))
    assert len(states) == 90 and all(s.prepopulated for s in states)

    at.button(key="project_filters").click().run()
    assert not at.exception, at.exception
    finish_jobs(empty)
    at.run()
    assert any("3 fail at least one rule" in plain(s.value) for s in at.success)
    flagged = table_with(at, "exclude")  # the exclusions editor
    with empty.db.read() as conn:
        failing = {i.id for i in empty.repo.list_items(conn) if i.filter_failures}
        assert not any(i.excluded for i in empty.repo.list_items(conn))  # marking, not excluding
    assert failing == {"cricket-porch", "fire-coach", "plant-automobiles"}
    assert set(flagged["id"]) == failing

    row = list(flagged["id"]).index("cricket-porch")  # the lead ticks one row, as the browser would send it
    at.session_state["project_exclusions"] = {
        "edited_rows": {row: {"exclude": True}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="project_save_exclusions").click().run()
    assert not at.exception, at.exception
    with empty.db.read() as conn:
        assert {i.id for i in empty.repo.list_items(conn) if i.excluded} == {"cricket-porch"}
        audit = [(e["user"], e["action"]) for e in reversed(empty.repo.audit(conn))]
    assert audit == [("lena", "import"), ("lena", "prepopulate"), ("lena", "filters"), ("lena", "exclude")]
