"""The Curate work area's Undo (issues 8 and 21) driven through AppTest, checked against the database.

Also the rights said once and right (issue 21): a translator undoes their own Done or Discard on the item they just
left; a DISCUSS note typed but not sent survives a reload; the hint while typing a lexicalization of another sense.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import area, feedback, send_area
from curation_pages import ITEM, LANG, TRANSLATOR, history_actions, login, read_state, shown_candidates, start
from project_helpers import dump

from annotator.domain.model import DiscardReason, Side, Status
from annotator.project import Project
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines


def undo_tip(at) -> str:  # type: ignore[no-untyped-def]
    return str(area(at)["actions"]["undo"]["tip"])


def test_undo_undoes_and_redoes_an_add(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    assert "Nothing to undo: you have not changed shot-whiskey" in undo_tip(at)
    send_area(at, "add", side="good", text="sorso")
    assert "adding sorso" in undo_tip(at)  # says beforehand what it undoes

    send_area(at, "undo")
    assert feedback(at)["text"] == "Undone: adding sorso."
    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino"] and state.status is Status.PENDING
    assert history_actions(demo)[-2:] == [("translator", "add"), ("translator", "undo")]
    assert "sorso" not in shown_candidates(at)

    send_area(at, "undo")  # undoing the undo redoes the add, and says so
    assert feedback(at)["text"] == "Redone: adding sorso."
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "sorso"]
    assert "sorso" in shown_candidates(at)


def test_undo_of_done_reopens_the_item_and_puts_it_back_in_the_queue(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "done")
    assert read_state(demo).status is Status.DONE
    assert "(not in the “To do" in area(at)["nav"]["position"]  # it left the To-do queue; the page stays on it
    send_area(at, "undo")
    state = read_state(demo)
    assert (state.status, state.status_by) == (Status.PENDING, None)
    assert area(at)["nav"]["position"].startswith("Item 1 of 18")  # back in the queue at once
    assert area(at)["editable"]  # editable again


def test_undo_is_refused_after_someone_elses_change(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "add", side="good", text="sorso")
    project = Project.open(demo)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    CurationService(project, lead).add_candidate(ITEM, LANG, Side.BAD, "scatto", read_state(demo).version)

    before = dump(project)
    send_area(at, "undo")  # the element showed an older version: refused, and the current state shown
    assert feedback(at)["kind"] == "error" and "lead changed shot-whiskey [IT] after you" in feedback(at)["text"]
    assert "scatto" in shown_candidates(at)
    assert "lead changed" in undo_tip(at)
    send_area(at, "undo")
    assert "overwrite their change" in feedback(at)["text"]
    assert dump(project) == before


@pytest.mark.parametrize("action", ["done", "discard"])
def test_a_translator_undoes_their_done_or_discard_on_the_item_just_left(demo: Path, action: str) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "advance", on=True)
    if action == "done":
        send_area(at, "done")
    else:
        send_area(at, "discard", reason=DiscardReason.IDIOM.value, text="")
    assert area(at)["item"] != ITEM  # moved on to the next item
    assert read_state(demo).status is (Status.DONE if action == "done" else Status.DISCARDED)
    said = feedback(at)
    assert "Undo (u) takes it back." in said["text"] and said["where"] == "card"  # offered, on the new card
    assert ITEM in undo_tip(at)  # Undo now names the item just left

    send_area(at, "undo")
    state = read_state(demo)
    assert (state.status, state.status_by, state.discard_reason) == (Status.PENDING, None, None)
    assert feedback(at)["kind"] == "success" and feedback(at)["text"].startswith("Undone: ")
    assert area(at)["item"] == ITEM and area(at)["editable"]  # back on it, editable
    assert history_actions(demo)[-2:] == [("translator", action), ("translator", "undo")]


def test_drafts_stay_in_the_browser_not_on_the_server(demo: Path) -> None:
    """Issue 32: typed text is kept in the browser's local storage (``area.js``), not sent every 400 ms; the old
    draft event is no longer part of the protocol, so a page that sends one changes and keeps nothing."""
    at = login(start(), TRANSLATOR)
    send_area(at, "draft", field="discuss", text="Is this sentence an idiom?")
    again = login(start(query={"item": ITEM, "lang": LANG}), TRANSLATOR)  # a reload: a new session
    assert "Is this sentence an idiom?" not in str(area(again)) and "drafts" not in area(again)
    assert read_state(demo).status is Status.PENDING  # a draft saves nothing


def test_typing_a_lexicalization_of_another_sense_says_which(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "remove", key="colpo")
    send_area(at, "check", side="good", text="colpo")  # the lexicon gave it for senses 1 and 2 of "shot"
    check = area(at)["check"]
    assert check["kind"] == "ok"
    assert check["hint"] == (
        "The lexicon gives it for another sense — sense 1: The act of firing a projectile.; sense 2: (Sports) the "
        "act of swinging or striking at a ball with a club or racket or bat or cue or hand. — usually BAD."
    )
    send_area(at, "check", side="bad", text="goccio")  # σ's own lexicalization, already in GOOD
    check = area(at)["check"]
    assert check["kind"] == "error" and check["message"] == "goccio is already in GOOD."
    assert check["hint"] == "The lexicon gives it for this sense (σ): A small drink of liquor. — usually GOOD."
    send_area(at, "check", side="good", text="sorsetto")  # not from the lexicon: no hint
    assert area(at)["check"]["hint"] == ""
