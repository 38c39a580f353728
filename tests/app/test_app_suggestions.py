"""Issue 33 in the Curate work area (AppTest, both engines): why a list is empty on the card, suggestions below the
lists accepted into GOOD or BAD (a BAD word suggested for GOOD moves), a dismissal that survives a rerun and another
session of the same user but not another user, and the typing hint for any word — all through the element's events
(``accept``, ``dismiss``, ``check``), the one action runner and ``CurationService.handle``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import area, area_rows, feedback, send_area
from streamlit.testing.v1 import AppTest
from suggestion_data import person, version

from annotator.domain.jobs import JobKind, JobState
from annotator.domain.model import Side
from annotator.evaluation.run import create_analyser, evaluate
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.evaluate_project import prepare_current
from annotator.services.evaluation_results import save_result
from annotator.store.repository import utc_now

pytestmark = pytest.mark.both_engines

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"


@pytest.fixture
def wnp(wn_project: Project) -> Project:
    """The tiny Italian wordnet project of ``test_suggestions`` (both engines)."""
    return wn_project


def curate(project: Project, monkeypatch: pytest.MonkeyPatch, name: str, item: str = "a1") -> AppTest:
    """A fresh browser session of ``name`` on Curate at ``item`` [IT]."""
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"item": item, "lang": "IT"})
    at.run()
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(f"{name}-password-long")
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    assert area(at)["item"] == item
    return at


def suggested(at: AppTest) -> list[str]:
    return [row["text"] for row in area(at)["suggestions"]["rows"]]


def lists(project: Project, item: str = "a1") -> tuple[list[str], list[str]]:
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, "IT")
    assert state is not None
    return [e.text for e in state.good], [e.text for e in state.bad]


def test_the_card_says_why_good_is_empty_and_shows_ranked_suggestions(wnp: Project, monkeypatch) -> None:
    person(wnp, "ivo")
    at = curate(wnp, monkeypatch, "ivo")
    data = area(at)
    assert data["lists"]["good"]["rows"] == []
    assert data["lists"]["good"]["empty"].startswith("None of the Italian lexicons consulted (sg-it) has a word")
    assert data["lists"]["bad"]["empty"] == ""  # BAD is not empty: nothing to explain
    rows = data["suggestions"]["rows"]
    assert [r["text"] for r in rows][:3] == ["cicchetto", "bevanda", "[sorseggiare]_VERB"]
    assert rows[0]["side"] == "good" and "related sense" in rows[0]["label"]
    assert rows[1]["label"] == "for GOOD · from a related sense (hypernym)"
    assert "a single serving of a beverage" in rows[1]["reason"]
    assert data["suggestions"]["title"] == f"Suggestions ({len(rows)})"


def test_accepting_a_suggestion_adds_it_good_or_bad(wnp: Project, monkeypatch) -> None:
    person(wnp, "ivo")
    at = curate(wnp, monkeypatch, "ivo")
    send_area(at, "accept", side="good", text="cicchetto")
    assert feedback(at)["kind"] == "success" and feedback(at)["text"] == "cicchetto is now in GOOD."
    assert feedback(at)["where"] == "suggestions" and feedback(at)["focus"] == "cursor"
    assert [r["text"] for r in area_rows(at, "good")] == ["cicchetto"]
    assert "cicchetto" not in suggested(at)
    assert area(at)["lists"]["good"]["empty"] == ""
    send_area(at, "accept", side="bad", text="bevanda")
    assert lists(wnp) == (["cicchetto"], ["sparo", "bevanda"])
    with wnp.db.read() as conn:
        actions = [h.action for h in wnp.repo.history(conn, "a1", "IT")]
    assert actions[-2:] == ["accept_suggestion", "accept_suggestion"]


def test_a_move_to_good_suggestion_moves_the_bad_candidate(wnp: Project, monkeypatch) -> None:
    ivo = person(wnp, "ivo")
    CurationService(wnp, ivo).add_candidate("a1", "IT", Side.BAD, "bevanda", version(wnp, "a1"))
    at = curate(wnp, monkeypatch, "ivo")
    row = next(r for r in area(at)["suggestions"]["rows"] if r["text"] == "bevanda")
    assert row["side"] == "move" and row["label"].startswith("move from BAD to GOOD")
    send_area(at, "accept", side="good", text="bevanda")
    assert feedback(at)["kind"] == "success", feedback(at)
    assert lists(wnp) == (["bevanda"], ["sparo"])


def test_a_stale_accept_is_refused_and_nothing_changes(wnp: Project, monkeypatch) -> None:
    person(wnp, "ivo")
    at = curate(wnp, monkeypatch, "ivo")
    stale = area(at)["version"]
    send_area(at, "accept", side="good", text="cicchetto")
    send_area(at, "accept", side="good", text="bevanda", version=stale)
    assert feedback(at)["kind"] == "error" and "conflict" in feedback(at)["text"]
    assert lists(wnp)[0] == ["cicchetto"]


def test_a_dismissal_survives_a_rerun_and_a_new_session_of_the_user_but_not_another_user(
    wnp: Project, monkeypatch
) -> None:
    person(wnp, "ivo"), person(wnp, "ada")
    at = curate(wnp, monkeypatch, "ivo")
    send_area(at, "dismiss", side="good", text="cicchetto")
    assert feedback(at)["text"] == (
        "Dismissed cicchetto: it will not be suggested to you here again. Undo (u) brings it back."
    )
    assert "cicchetto" not in suggested(at)
    at.run()  # a rerun
    assert "cicchetto" not in suggested(at) and "bevanda" in suggested(at)
    assert lists(wnp) == ([], ["sparo"])  # nothing added or removed
    again = curate(wnp, monkeypatch, "ivo")  # another session of the same user
    assert "cicchetto" not in suggested(again)
    other = curate(wnp, monkeypatch, "ada")
    assert suggested(other)[0] == "cicchetto"


def test_typing_a_word_says_which_sense_it_lexicalizes(wnp: Project, monkeypatch) -> None:
    person(wnp, "ivo")
    at = curate(wnp, monkeypatch, "ivo")
    send_area(at, "check", side="good", text="sparo")  # in BAD, from the lexicon: the provenance says
    assert "another sense" in area(at)["check"]["hint"]
    send_area(at, "check", side="good", text="cicchetto")  # in no list: the lexicons are asked
    check = area(at)["check"]
    assert check["kind"] == "ok" and check["hint"] == "The lexicons have it for this sense (σ) — usually GOOD."
    send_area(at, "check", side="bad", text="whisky")
    assert area(at)["check"]["hint"].startswith("The lexicons have it only for senses unrelated to “shot”")


def test_every_miss_item_shows_its_machine_translations_and_their_words_are_suggestions(
    wnp: Project,
    monkeypatch,
    tmp_path: Path,
) -> None:
    person(wnp, "ivo")
    translations = tmp_path / "translations.jsonl"
    lines = [
        {"id": "a1", "lang": "IT", "system": "sysA", "translation": "Versò un grappino di whisky."},
        {"id": "a1", "lang": "IT", "system": "sysB", "translation": "Ha versato un grappino di whisky."},
        {"id": "g1", "lang": "IT", "system": "sysA", "translation": "Ha sentito uno sparo."},  # a match: no MT line
    ]
    translations.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    before = curate(wnp, monkeypatch, "ivo")
    assert area(before)["card"]["mt"] == []  # no evaluation yet
    dataset, loaded = prepare_current(wnp, translations)
    result = evaluate(dataset, loaded, create_analyser("default"))
    with wnp.db.write() as conn:
        job_id = wnp.repo.insert_job(conn, JobKind.EVALUATE, "lena", {"page": True}, utc_now())
        wnp.repo.update_job(conn, job_id, state=JobState.DONE)
    save_result(wnp, job_id, result)
    at = curate(wnp, monkeypatch, "ivo")  # not arriving from Evaluate
    assert area(at)["card"]["mt"] == [
        {"label": "sysA (MISS):",
         "text": "Versò un grappino di whisky. Its words are among the suggestions below (f)."},
        {"label": "sysB (MISS):",
         "text": "Ha versato un grappino di whisky. Its words are among the suggestions below (f)."},
    ]  # fmt: skip
    row = next(r for r in area(at)["suggestions"]["rows"] if r["text"] == "grappino")
    assert row["label"] == "for GOOD · from machine translation" and "sysA, sysB" in row["reason"]
    send_area(at, "accept", side="good", text="grappino")
    assert lists(wnp)[0] == ["grappino"]
    assert area(curate(wnp, monkeypatch, "ivo", "g1"))["card"]["mt"] == []


def test_u_right_after_a_dismissal_brings_it_back_and_then_undoes_the_last_change(wnp: Project, monkeypatch) -> None:
    person(wnp, "ivo")
    at = curate(wnp, monkeypatch, "ivo")
    send_area(at, "add", side="good", text="goccio")
    drawn = area(at)["version"]
    send_area(at, "dismiss", side="good", text="bevanda")
    assert "Undo (u) brings it back" in feedback(at)["text"]
    assert area(at)["version"] == drawn and "bevanda" not in suggested(at)  # no version moved
    assert "bevanda" in area(at)["actions"]["undo"]["tip"]
    send_area(at, "undo")
    assert feedback(at)["kind"] == "success", feedback(at)
    assert feedback(at)["text"] == "Undone: dismissing the suggestion bevanda; it is suggested to you again."
    assert "bevanda" in suggested(at) and area(at)["version"] == drawn and lists(wnp) == (["goccio"], ["sparo"])
    send_area(at, "undo")  # the undo chain is as it was: the add is next
    assert feedback(at)["text"] == "Undone: adding goccio.", feedback(at)
    assert lists(wnp) == ([], ["sparo"])
    send_area(at, "dismiss", side="good", text="bevanda")
    send_area(at, "accept", side="good", text="cicchetto")  # another action in between: u no longer restores
    send_area(at, "undo")
    assert feedback(at)["text"] == "Undone: accepting the suggestion cicchetto into GOOD.", feedback(at)
    assert "bevanda" not in suggested(at)
