"""The Curate page's Undo button (issue 8) driven through AppTest, checked against the database."""

from __future__ import annotations

from pathlib import Path

import pytest
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
    markdown_text,
    read_state,
    shown_candidates,
    start,
    unescape,
)

from annotator.domain.model import Side, Status
from annotator.project import Project
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines


def successes(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [unescape(s.value) for s in at.success]


def test_undo_button_undoes_and_redoes_an_add(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    assert "Nothing to undo: you have not changed shot-whiskey" in unescape(at.button(key=P + "undo").help)
    at.text_input(key=P + "add|good").input("sorso")
    click(at, P + "addbtn|good")
    assert "adding sorso" in at.button(key=P + "undo").help  # says beforehand what it undoes

    click(at, P + "undo")
    assert any("Undone: adding sorso" in s for s in successes(at))
    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino"] and state.status is Status.PENDING
    assert history_actions(demo)[-2:] == [("translator", "add"), ("translator", "undo")]
    assert "sorso" not in shown_candidates(at)

    click(at, P + "undo")  # undoing the undo redoes the add
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "sorso"]
    assert "sorso" in shown_candidates(at)


def test_undo_of_done_reopens_the_item_and_puts_it_back_in_the_queue(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    click(at, P + "done")
    assert read_state(demo).status is Status.DONE
    assert "(not in the *To do" in markdown_text(at)  # it left the To-do queue; the page stays on it
    click(at, P + "undo")
    state = read_state(demo)
    assert (state.status, state.status_by) == (Status.PENDING, None)
    assert "Item **1** of **18**" in markdown_text(at)  # back in the queue at once
    assert not at.button(key=P + "addbtn|good").disabled  # editable again


def test_undo_is_refused_after_someone_elses_change(demo: Path) -> None:  # noqa: F811
    at = login(start(), TRANSLATOR)
    at.text_input(key=P + "add|good").input("sorso")
    click(at, P + "addbtn|good")
    project = Project.open(demo)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    CurationService(project, lead).add_candidate(ITEM, LANG, Side.BAD, "scatto", read_state(demo).version)

    before = dump(project)
    click(at, P + "undo")  # the page showed an older version: the usual conflict, and the current state shown
    assert any("conflict" in e.lower() for e in errors(at))
    assert "scatto" in shown_candidates(at)
    assert "lead changed" in at.button(key=P + "undo").help
    click(at, P + "undo")
    assert any("lead changed shot-whiskey [IT] after you" in e and "overwrite their change" in e for e in errors(at))
    assert dump(project) == before
