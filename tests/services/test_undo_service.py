"""Undo through the curation service (issue 8), on SQLite and PostgreSQL: a new versioned change restoring the state
before the user's last change, through the one write path (permissions, version check, refusals)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from project_helpers import build_demo, dump

from annotator.domain.model import DiscardReason, ItemLanguage, Origin, Side, Status, User
from annotator.domain.undo import UndoRefused
from annotator.errors import ConflictError
from annotator.project import Project
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines

ITEM, LANG = "shot-whiskey", "IT"


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    """A fresh copy of the demo project: pre-populated candidates with their synsets; users translator and lead."""
    return Project.open(copy_project("demo", build_demo, tmp_path / "data"))


def service(project: Project, name: str) -> CurationService:
    with project.db.read() as conn:
        user = project.repo.get_user(conn, name)
    assert isinstance(user, User)
    return CurationService(project, user)


def curated(state: ItemLanguage) -> ItemLanguage:
    """The state without its bookkeeping (version, last writer): what undo restores."""
    return replace(state, version=0, updated_by=None, updated_at=None)


def test_undo_of_an_add_is_a_new_versioned_change(demo: Project) -> None:
    ivo = service(demo, "translator")
    start = ivo.view(ITEM, LANG).state
    added = ivo.add_candidate(ITEM, LANG, Side.GOOD, "sorso", start.version)
    undone = ivo.undo(ITEM, LANG, added.version)
    assert curated(undone) == curated(start) and undone.status is Status.PENDING
    assert undone.version == start.version + 2 and undone.updated_by == "translator"
    history = ivo.view(ITEM, LANG).history
    assert [(h.user, h.action, h.version) for h in history[-2:]] == [
        ("translator", "add", start.version + 1),
        ("translator", "undo", start.version + 2),
    ]
    assert history[-1].detail["undid"] == "add" and history[-1].detail["undid_version"] == start.version + 1
    # the add recorded what it changed as it was: GOOD as the first two entries it kept, and the status
    assert history[-2].detail["before"] == {"good": [0, 1], "status": "pending"}


def test_undo_of_a_removal_restores_provenance_synsets_and_place(demo: Project) -> None:
    ivo = service(demo, "translator")
    start = ivo.view(ITEM, LANG).state
    removed = ivo.remove_candidate(ITEM, LANG, "colpo", start.version)
    assert "colpo" not in [e.text for e in removed.bad]
    colpo_json = {"text": "colpo", "pos": None, "origin": "lexicon", "synsets": ["bn:00070966n", "bn:00056773n"]}
    recorded = ivo.view(ITEM, LANG).history[-1].detail["before"]
    assert recorded == {"bad": [0, colpo_json, 1, 2, 3, 4, 5, 6], "status": "pending"}  # the removed one in full
    undone = ivo.undo(ITEM, LANG, removed.version)
    assert undone.bad == start.bad  # same place, origin and synsets
    colpo = undone.bad[1]
    assert (colpo.text, colpo.origin, colpo.synsets) == ("colpo", Origin.LEXICON, ("bn:00070966n", "bn:00056773n"))
    assert curated(undone) == curated(start)
    with demo.db.read() as conn:  # and so in the database, read afresh
        assert curated(demo.repo.get_item_language(conn, ITEM, LANG)) == curated(start)


def test_undo_of_a_move_puts_it_back(demo: Project) -> None:
    ivo = service(demo, "translator")
    start = ivo.add_candidate(ITEM, LANG, Side.GOOD, "sorso", ivo.view(ITEM, LANG).state.version)
    moved = ivo.move_candidate(ITEM, LANG, "colpo", Side.GOOD, start.version)
    assert [e.text for e in moved.good][-1] == "colpo"
    undone = ivo.undo(ITEM, LANG, moved.version)
    assert curated(undone) == curated(start)  # only the move is undone: sorso stays, the item stays in progress
    assert undone.status is Status.IN_PROGRESS


def test_undo_of_done_brings_the_item_back_and_undo_twice_redoes(demo: Project) -> None:
    ivo = service(demo, "translator")
    open_state = ivo.add_candidate(ITEM, LANG, Side.GOOD, "sorso", ivo.view(ITEM, LANG).state.version)
    done = ivo.mark_done(ITEM, LANG, open_state.version)
    back = ivo.undo(ITEM, LANG, done.version)
    assert (back.status, back.status_by) == (Status.IN_PROGRESS, None)
    assert curated(back) == curated(open_state)
    again = ivo.remove_candidate(ITEM, LANG, "sorso", back.version)  # editable again
    assert "sorso" not in [e.text for e in again.good]
    back = ivo.undo(ITEM, LANG, again.version)  # sorso back
    redone = ivo.undo(ITEM, LANG, back.version)  # undo of the undo: removed again
    assert curated(redone) == curated(again)
    assert [h.action for h in ivo.view(ITEM, LANG).history][-6:] == ["add", "done", "undo", "remove", "undo", "undo"]


def test_undo_is_refused_after_another_users_change_and_changes_nothing(demo: Project) -> None:
    ivo, lena = service(demo, "translator"), service(demo, "lead")
    state = ivo.add_candidate(ITEM, LANG, Side.GOOD, "sorso", ivo.view(ITEM, LANG).state.version)
    state = lena.add_candidate(ITEM, LANG, Side.BAD, "scatto", state.version)
    before = dump(demo)
    with pytest.raises(UndoRefused) as caught:
        ivo.undo(ITEM, LANG, state.version)
    message = str(caught.value)
    assert "lead changed shot-whiskey [IT] after you (adding scatto" in message
    assert "undo would overwrite their change" in message
    assert dump(demo) == before
    # the lead may undo their own change; that undo is the lead's change too, so the translator's stays refused
    state = lena.undo(ITEM, LANG, state.version)
    with pytest.raises(UndoRefused, match="lead changed"):
        ivo.undo(ITEM, LANG, state.version)


def test_nothing_to_undo_stale_page_and_old_changes_are_refused(demo: Project) -> None:
    ivo = service(demo, "translator")
    start = ivo.view(ITEM, LANG).state
    before = dump(demo)
    with pytest.raises(UndoRefused, match="Nothing to undo: you have not changed shot-whiskey"):
        ivo.undo(ITEM, LANG, start.version)
    assert dump(demo) == before
    state = ivo.add_candidate(ITEM, LANG, Side.GOOD, "sorso", start.version)
    with pytest.raises(ConflictError):  # the page showed an older version: the usual stale-save refusal
        ivo.undo(ITEM, LANG, start.version)
    # a change saved before undo existed has no "before": refused, not guessed
    with demo.db.write() as conn:
        legacy = replace(state, good=state.good[:-1])
        demo.repo.save_item_language(conn, legacy, state.version, "translator", "remove", {"candidate": "sorso"})
    before = dump(demo)
    with pytest.raises(UndoRefused, match=r"\(removing sorso\) cannot be undone"):
        ivo.undo(ITEM, LANG, state.version + 1)
    assert dump(demo) == before


def test_workflow_permissions_hold_for_undo(demo: Project) -> None:
    ivo, lena = service(demo, "translator"), service(demo, "lead")
    state = ivo.discard(ITEM, LANG, DiscardReason.IDIOM, "", ivo.view(ITEM, LANG).state.version)
    state = ivo.undo(ITEM, LANG, state.version)  # issue 21: a translator takes back their own discard
    assert (state.status, state.discard_reason, state.status_by) == (Status.PENDING, None, None)
    state = ivo.discard(ITEM, LANG, DiscardReason.IDIOM, "", state.version)
    with demo.db.write() as conn:  # someone else's discard (here: recorded as the lead's) is not the translator's
        demo.repo.save_item_language(conn, replace(state, status_by="lead"), state.version, "lead", "edit", {})
    before = dump(demo)
    with pytest.raises(UndoRefused, match="lead changed"):
        ivo.undo(ITEM, LANG, state.version + 1)
    assert dump(demo) == before
    state = lena.view(ITEM, LANG).state
    # a lead's resolution: the translator who flagged the item cannot undo it, the lead can
    state = lena.reopen(ITEM, LANG, state.version)
    state = ivo.flag_discuss(ITEM, LANG, "regional?", state.version)
    state = lena.add_candidate(ITEM, LANG, Side.GOOD, "cicchetto", state.version)
    state = lena.resolve(ITEM, LANG, Status.DONE, "fine", state.version)
    with pytest.raises(UndoRefused, match="lead changed"):
        ivo.undo(ITEM, LANG, state.version)
    state = lena.undo(ITEM, LANG, state.version)
    assert (state.status, state.status_by, state.discuss_note) == (Status.DISCUSS, "translator", "regional?")


def test_undo_of_a_pasted_list_takes_back_every_line(demo: Project) -> None:
    ivo = service(demo, "translator")
    start = ivo.view(ITEM, LANG).state
    pasted = ivo.add_candidates(ITEM, LANG, Side.BAD, ["scatto", "ripresa"], start.version)
    assert [e.text for e in pasted.bad][-2:] == ["scatto", "ripresa"]
    undone = ivo.undo(ITEM, LANG, pasted.version)
    assert curated(undone) == curated(start)
    history = ivo.view(ITEM, LANG).history
    assert (history[-1].action, history[-1].detail["undid"]) == ("undo", "add")
