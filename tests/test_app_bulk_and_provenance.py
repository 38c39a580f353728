"""Issue 8: bulk add (all or nothing, every bad line named), live duplicate check, provenance kept on re-add."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_helpers import plain
from conftest import dump
from streamlit.testing.v1 import AppTest
from test_app_curation import ITEM, LANG, MAIN, TRANSLATOR, P, read_state

from annotator.commands.project import create_demo
from annotator.domain.model import Origin, Side
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService


@pytest.fixture
def demo(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    template = tmp_path_factory.getbasetemp() / "bulk-demo-template"
    if not template.exists():
        create_demo(str(template), quiet=True)
    data = tmp_path / "data"
    shutil.copytree(template, data)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return data


def logged_in_translator() -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input(TRANSLATOR[0])
    at.text_input(key="login_password").input(TRANSLATOR[1])
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_pasting_three_lines_with_one_bad_adds_nothing_and_names_the_line(demo: Path) -> None:
    at = logged_in_translator()
    project = Project.open(demo)
    before = dump(project)
    at.session_state[f"{P}bulk|good"] = "sorso\nprend* permesso\ncicchetto"  # pasted: three lines
    at.run()
    at.button(key=f"{P}bulkbtn|good").click().run()
    assert not at.exception, at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("line 2 'prend* permesso'" in e and "rule: wildcard_token" in e for e in errors), errors
    assert not any("line 1" in e or "line 3" in e for e in errors)
    assert dump(project) == before  # nothing added
    assert at.text_area(key=f"{P}bulk|good").value == "sorso\nprend* permesso\ncicchetto"  # kept to fix

    at.session_state[f"{P}bulk|good"] = "sorso\n\ncicchetto\n"
    at.run()
    at.button(key=f"{P}bulkbtn|good").click().run()
    state = read_state(demo)
    assert [e.text for e in state.good][-2:] == ["sorso", "cicchetto"]
    assert state.version == 2  # one change, one history row


def test_a_duplicate_is_caught_while_typing(demo: Path) -> None:
    at = logged_in_translator()
    at.text_input(key=f"{P}add|bad").input("goccio").run()  # already in GOOD
    assert any("is already in GOOD" in plain(e.value) for e in at.error)


def test_a_removed_prepopulated_candidate_added_back_keeps_its_provenance(demo: Path) -> None:
    project = Project.open(demo)
    translator = authenticate(project, *TRANSLATOR)
    assert translator is not None
    service = CurationService(project, translator)
    state = service.view(ITEM, LANG).state
    original = next(e for e in state.good if e.origin is Origin.LEXICON and e.synsets)
    removed = service.remove_candidate(ITEM, LANG, original.key, state.version)
    back = service.add_candidate(ITEM, LANG, Side.GOOD, original.format(), removed.version)
    readded = next(e for e in back.good if e.key == original.key)
    assert readded.origin is Origin.LEXICON and readded.synsets == original.synsets
    assert read_state(demo).good == back.good  # stored so


def test_a_done_item_opened_from_a_link_offers_reopen(demo: Path) -> None:
    project = Project.open(demo)
    translator = authenticate(project, *TRANSLATOR)
    assert translator is not None
    service = CurationService(project, translator)
    service.mark_done(ITEM, LANG, service.view(ITEM, LANG).state.version)

    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"item": ITEM, "lang": LANG})  # as the Evaluate page's "Open in Curate" link does
    at.run()
    at.text_input(key="login_name").input(TRANSLATOR[0])
    at.text_input(key="login_password").input(TRANSLATOR[1])
    at.button[0].click().run()
    assert any("To add a missing candidate, reopen it" in i.value for i in at.info), [i.value for i in at.info]
    at.button(key=f"{P}reopen").click().run()
    assert not at.exception, at.exception
    assert read_state(demo).status.value in ("pending", "in_progress")
