"""The Curate work area (``annotator.app.curate_area``, issues 8 and 21) as one element, driven through AppTest.

Every event is sent as the browser sends it (the element's trigger, see ``app_helpers.send_area``), so these go
through Streamlit's own dispatch to the page's callback and the service, and are checked against the database:
move and remove, undo of each, a stale page refused, a read-only item and forged or malformed events ignored, text
sent as data to a constant script.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import area, area_rows, feedback, row_key, send_area, send_area_raw
from curation_pages import ITEM, LANG, TRANSLATOR, history_actions, login, read_state, start
from project_helpers import dump

from annotator.app import curate_area
from annotator.domain.model import Origin, Side, Status
from annotator.project import Project
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines


def texts(at, side: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [row["text"] for row in area_rows(at, side)]


def test_the_work_area_is_one_element_with_every_row(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    assert [e.key for e in at.get("bidi_component")] == [curate_area.KEY]  # card, lists, boxes, actions: one element
    assert texts(at, "good") == ["goccio", "bicchierino"]
    assert texts(at, "bad") == ["sparo", "colpo", "tiro", "tiratore", "iniezione", "puntura", "istantanea", "foto"]
    colpo = next(row for row in area_rows(at, "bad") if row["text"] == "colpo")
    assert colpo["line"] == "lexicon · sense 1, sense 2"
    assert colpo["title"].startswith("colpo\nlexicon · sense 1, sense 2\nsense 1 bn:00070966n: ")  # glosses on hover
    lists = area(at)["lists"]
    assert (lists["bad"]["side"], lists["bad"]["other"], lists["bad"]["heading"]) == ("BAD", "GOOD", "✗ BAD (8)")
    assert lists["good"]["heading"] == "✓ GOOD (2)"
    data = area(at)
    assert (data["version"], data["editable"], data["item"], data["lang"]) == (1, True, ITEM, LANG)
    styles_only = all(e.value.startswith("<style>") and e.value.count("<") == 2 for e in at.html)
    assert styles_only and [t.key for t in at.text_input] == ["cur_search"]  # the sidebar's search box alone
    assert not at.main.button and not at.main.text_area  # the item's actions and boxes are the element's


def test_move_and_remove_go_through_the_service_and_undo_takes_them_back(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "remove", key=row_key(at, "bad", "foto"))
    assert "foto" not in [e.text for e in read_state(demo).bad]
    assert "foto" not in texts(at, "bad")
    assert area(at)["lists"]["bad"]["removed"] == ["foto"]  # "Removed from the lexicon's suggestions: foto"
    send_area(at, "undo")
    assert feedback(at)["text"] == "Undone: removing foto."
    assert [e.text for e in read_state(demo).bad][-1] == "foto"
    assert texts(at, "bad")[-1] == "foto"

    send_area(at, "move", key=row_key(at, "bad", "colpo"))
    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino", "colpo"] and state.status is Status.IN_PROGRESS
    moved = state.good[2]
    assert moved.origin is Origin.LEXICON and moved.synsets == ("bn:00070966n", "bn:00056773n")
    assert texts(at, "good")[-1] == "colpo" and "moved from BAD" in area_rows(at, "good")[-1]["line"]
    send_area(at, "move", key=row_key(at, "good", "goccio"))
    assert "goccio" in texts(at, "bad")
    send_area(at, "undo")
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "colpo"]
    assert [a for _u, a in history_actions(demo)][-5:] == ["remove", "undo", "move", "move", "undo"]


def test_a_stale_page_is_refused_and_then_shows_the_current_state(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    project = Project.open(demo)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    CurationService(project, lead).add_candidate(ITEM, LANG, Side.BAD, "scatto", read_state(demo).version)
    before = dump(project)
    foto = row_key(at, "bad", "foto")
    send_area(at, "remove", key=foto)  # the element still shows the version before the lead's change
    said = feedback(at)
    assert said["kind"] == "error" and "conflict" in said["text"].lower() and "changed by lead" in said["text"]
    assert dump(project) == before
    assert "scatto" in texts(at, "bad") and area(at)["version"] == read_state(demo).version
    send_area(at, "remove", key=foto)  # against the current state it is saved
    assert "foto" not in [e.text for e in read_state(demo).bad]


def test_a_read_only_item_and_forged_events_change_nothing(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    project = Project.open(demo)
    data = area(at)
    version, key = data["version"], data["lists"]["bad"]["rows"][0]["key"]
    base = {"item": ITEM, "lang": LANG, "version": version, "seq": "forged:1"}
    before = dump(project)
    for forged in (
        {**base, "type": "delete_all", "key": key},
        {**base, "type": "remove", "key": key, "version": str(version)},
        {**base, "type": "remove", "key": key, "version": True},
        {**base, "type": "remove", "key": 3},
        {**base, "type": "add", "side": "middle", "text": "sorso"},
        {**base, "type": "add", "side": "good", "text": ["sorso"]},
        {**base, "type": "discard", "reason": "bored", "text": ""},
        {**base, "type": "check", "side": "auth_user", "text": "lead"},
        {**base, "type": "done", "protocol": 1},  # a page drawn by another version of the protocol
        {**base, "type": "advance", "on": "yes"},
        {**base, "type": "done", "seq": 7},
        {**base, "type": "done", "item": "head-stream"},  # an item the element does not show
        {"type": "done"},
        "remove",
        None,
    ):
        send_area_raw(at, forged)
        assert dump(project) == before, forged
        assert "auth_user" not in str(area(at)["check"])
    assert not area(at)["advance"]

    send_area(at, "done")
    assert not area(at)["editable"]
    after_done = dump(project)
    send_area(at, "remove", key=key)  # a remove sent anyway: the service refuses it, nothing changes
    assert feedback(at)["kind"] == "error" and "reopen it before editing" in feedback(at)["text"]
    assert dump(project) == after_done


def test_candidates_are_sent_as_data_and_the_script_is_constant(demo: Path) -> None:
    hostile = '<img src=x onerror=alert(1)> & "q"'
    project = Project.open(demo)
    with project.db.read() as conn:
        translator = project.repo.get_user(conn, "translator")
    assert translator is not None
    CurationService(project, translator).add_candidate(ITEM, LANG, Side.GOOD, hostile, read_state(demo).version)
    CurationService(project, translator).comment(ITEM, LANG, "<b>bold</b> \u202e")
    at = login(start(), TRANSLATOR)
    assert texts(at, "good")[-1] == hostile  # as typed: the script puts it into the page with textContent
    assert area(at)["comments"]["rows"][0]["text"] == "<b>bold</b> <U+202E>"  # as text, the override made visible
    element = next(e for e in at.get("bidi_component") if e.key == curate_area.KEY)
    assert element.proto.js_content.strip() == curate_area.JS.strip()  # the same constant script for any data
    assert element.proto.css_content.strip() == curate_area.CSS.strip()
    assert element.proto.html_content.strip() == curate_area.HTML.strip()
    for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert forbidden not in curate_area.JS, forbidden
    assert "textContent" in curate_area.JS


def test_invisible_characters_show_as_marks() -> None:
    """Candidates stored before the rule (or from a file) may hold them: the element shows them as marks."""
    assert curate_area.text("a\u202eb") == "a<U+202E>b" and curate_area.text("c\u200bd") == "c<U+200B>d"
