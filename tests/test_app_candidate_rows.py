"""The GOOD / BAD lists as one element each (``annotator.app.candidate_rows``, issue 8), driven through AppTest.

A click is sent as the browser sends it (the component's trigger, see ``app_helpers.send_row_event``), so these go
through Streamlit's own dispatch to the page's callback and the service, and are checked against the database:
move and remove, undo of each, a stale page refused, a read-only list and forged events ignored, text sent as data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import candidate_lists, click_row, list_data, send_row_event
from conftest import dump
from test_app_curation import (  # noqa: F401  (demo is a fixture)
    ITEM,
    LANG,
    TRANSLATOR,
    P,
    click,
    demo,
    errors,
    history_actions,
    login,
    read_state,
    start,
)

from annotator.app import candidate_rows
from annotator.domain.model import Origin, Side, Status
from annotator.project import Project
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines
GOOD, BAD = P + "rows|good", P + "rows|bad"


def texts(at, key: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [row["text"] for row in candidate_lists(at)[key]]


def test_each_list_is_one_element_with_every_row(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    lists = candidate_lists(at)
    assert list(lists) == [GOOD, BAD]  # GOOD first: the keyboard's 1…9 count GOOD, then BAD
    assert texts(at, GOOD) == ["goccio", "bicchierino"]
    assert texts(at, BAD) == ["sparo", "colpo", "tiro", "tiratore", "iniezione", "puntura", "istantanea", "foto"]
    colpo = next(row for row in lists[BAD] if row["text"] == "colpo")
    assert colpo["line"] == "lexicon · sense 1, sense 2"
    assert colpo["title"].startswith("colpo\nlexicon · sense 1, sense 2\nsense 1 bn:00070966n: ")  # glosses on hover
    data = list_data(at, BAD)
    assert (data["side"], data["other"], data["version"], data["disabled"]) == ("BAD", "GOOD", 1, False)
    assert (data["heading"], list_data(at, GOOD)["heading"]) == ("✗ BAD (8)", "✓ GOOD (2)")
    assert not at.html  # no per-row elements left


def test_move_and_remove_go_through_the_service_and_undo_takes_them_back(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    click_row(at, BAD, "remove", "foto")
    assert "foto" not in [e.text for e in read_state(demo).bad]
    assert "foto" not in texts(at, BAD)
    assert list_data(at, BAD)["removed"] == ["foto"]  # "Removed from the lexicon's suggestions: foto"
    click(at, P + "undo")
    assert [e.text for e in read_state(demo).bad][-1] == "foto"
    assert texts(at, BAD)[-1] == "foto"

    click_row(at, BAD, "move", "colpo")
    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino", "colpo"] and state.status is Status.IN_PROGRESS
    moved = state.good[2]
    assert moved.origin is Origin.LEXICON and moved.synsets == ("bn:00070966n", "bn:00056773n")
    assert texts(at, GOOD)[-1] == "colpo" and "moved from BAD" in candidate_lists(at)[GOOD][-1]["line"]
    click_row(at, GOOD, "move", "goccio")
    assert "goccio" in texts(at, BAD)
    click(at, P + "undo")
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "colpo"]
    assert [a for _u, a in history_actions(demo)][-5:] == ["remove", "undo", "move", "move", "undo"]


def test_a_stale_page_is_refused_and_then_shows_the_current_state(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    project = Project.open(demo)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    CurationService(project, lead).add_candidate(ITEM, LANG, Side.BAD, "scatto", read_state(demo).version)
    before = dump(project)
    click_row(at, BAD, "remove", "foto")  # the page still shows the version before the lead's change
    assert any("conflict" in e.lower() for e in errors(at))
    assert dump(project) == before
    assert "scatto" in texts(at, BAD) and list_data(at, BAD)["version"] == read_state(demo).version
    click_row(at, BAD, "remove", "foto")  # against the current state it is saved
    assert "foto" not in [e.text for e in read_state(demo).bad]


def test_a_read_only_list_and_forged_events_change_nothing(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    project = Project.open(demo)
    version = read_state(demo).version
    before = dump(project)
    key = list_data(at, BAD)["rows"][0][0]
    for forged in (
        {"action": "delete_all", "key": key, "version": version},
        {"action": "remove", "key": key, "version": str(version)},
        {"action": "remove", "key": key, "version": True},
        {"action": "remove", "key": 3, "version": version},
        "remove",
        None,
    ):
        send_row_event(at, BAD, forged)
        assert dump(project) == before, forged
        assert not errors(at)

    click(at, P + "done")
    assert list_data(at, BAD)["disabled"] and list_data(at, GOOD)["disabled"]
    with pytest.raises(AssertionError, match="read-only"):
        click_row(at, BAD, "remove", "foto")
    after_done = dump(project)
    send_row_event(at, BAD, {"action": "remove", "key": key, "version": read_state(demo).version})  # forged click
    assert dump(project) == after_done


def test_candidates_are_sent_as_data_and_the_script_is_constant(demo: Path) -> None:  # noqa: F811
    hostile = '<img src=x onerror=alert(1)> & "q"'
    project = Project.open(demo)
    with project.db.read() as conn:
        translator = project.repo.get_user(conn, "translator")
    assert translator is not None
    CurationService(project, translator).add_candidate(ITEM, LANG, Side.GOOD, hostile, read_state(demo).version)
    at = login(start(), TRANSLATOR)
    shown = texts(at, GOOD)[-1]
    assert shown == hostile  # as typed: the script puts it into the page with textContent
    element = next(e for e in at.get("bidi_component") if e.key == GOOD)
    assert element.proto.js_content.strip() == candidate_rows.JS.strip()  # the same constant script for any data
    assert element.proto.css_content.strip() == candidate_rows.CSS.strip() and not element.proto.html_content
    assert "innerHTML" not in candidate_rows.JS and "insertAdjacentHTML" not in candidate_rows.JS
    assert "textContent = text" in candidate_rows.JS


def test_row_data_shows_invisible_characters_as_marks() -> None:
    rows = [("k", "a\u202eb", "lexicon · σ", "a\u202eb\nlexicon · σ\n")]
    data = candidate_rows.row_data("✓ GOOD (1)", rows, ["c\u200bd"], "GOOD", "BAD", 3, False)
    assert data["rows"] == [["k", "a<U+202E>b", "lexicon · σ", "a<U+202E>b\nlexicon · σ\n"]]
    assert data["removed"] == ["c<U+200B>d"] and data["heading"] == "✓ GOOD (1)"
