"""Issue 8: bulk add (all or nothing, every bad line named), live duplicate check, provenance kept on re-add."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_helpers import area, feedback, send_area
from curation_pages import ITEM, LANG, MAIN, TRANSLATOR, read_state
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.commands.project import create_demo
from annotator.domain.model import Origin, Side
from annotator.errors import UserError
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
    send_area(at, "add_many", side="good", text="sorso\nprend* permesso\ncicchetto")  # pasted: three lines
    said = feedback(at)
    assert said is not None and said["kind"] == "error" and said["where"] == "good"  # under the box pasted into
    assert "line 2 'prend* permesso'" in said["text"] and "'*' must be a token of its own" in said["text"]
    assert "rule:" not in said["text"]  # rule ids are for leads
    assert "line 1" not in said["text"] and "line 3" not in said["text"]
    assert dump(project) == before  # nothing added
    assert "clear" not in said  # the pasted text stays to fix

    send_area(at, "add_many", side="good", text="sorso\n\ncicchetto\n")
    assert feedback(at)["text"] == "Added 2 candidates to GOOD."
    state = read_state(demo)
    assert [e.text for e in state.good][-2:] == ["sorso", "cicchetto"]
    assert state.version == 2  # one change, one history row


def test_a_lead_is_told_the_rule_of_a_bad_line(demo: Path) -> None:
    project = Project.open(demo)
    lead = authenticate(project, "lead", "demo-lead-pass")
    assert lead is not None
    with pytest.raises(UserError, match=r"line 1 'prend\* permesso': .* \(rule: wildcard_token\)"):
        CurationService(project, lead).add_candidates(ITEM, LANG, Side.GOOD, ["prend* permesso"], 1)


def test_a_duplicate_is_caught_while_typing(demo: Path) -> None:
    at = logged_in_translator()
    send_area(at, "check", side="bad", text="goccio")  # already in GOOD
    assert area(at)["check"]["message"] == "goccio is already in GOOD."


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
    notices = [n["text"] for n in area(at)["card"]["notices"]]
    assert "This item is done. To change it, reopen it (Reopen, or the o key)." in notices, notices
    assert area(at)["actions"]["reopen"]["enabled"]
    send_area(at, "reopen")
    assert feedback(at)["text"] == "Reopened shot-whiskey: edit it, then Done."
    assert read_state(demo).status.value in ("pending", "in_progress")
    assert area(at)["editable"]


def test_opened_from_an_evaluate_miss_the_card_shows_that_translation_with_its_match(demo: Path) -> None:
    at = logged_in_translator()
    # what the Evaluate page's "Open in Curate" keeps for the Curate page (``curate.open_from_evaluate``)
    at.session_state["cur_eval_translation"] = {
        "item": ITEM, "lang": LANG, "system": "sys-a", "text": "Ha versato un colpo di whisky.", "span": [14, 19],
        "outcome": "BAD",
    }  # fmt: skip
    at.run()
    shown = area(at)["card"]["translation"]
    assert shown["label"] == "sys-a (BAD):" and shown["outcome"] == "BAD"
    assert shown["text"][shown["start"] : shown["end"]] == "colpo"  # the match, marked by the element
    at.query_params.update({"item": "head-stream", "lang": LANG})  # another item: not its translation
    at.run()
    assert area(at)["item"] == "head-stream" and area(at)["card"]["translation"] is None
