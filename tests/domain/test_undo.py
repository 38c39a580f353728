"""Undo in the domain (issue 8): what a change records, what undo restores, and when it is refused — no database."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from annotator.domain import undo, workflow
from annotator.domain.candidates import Candidate
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    HistoryEntry,
    ItemLanguage,
    Origin,
    Role,
    Side,
    Status,
    User,
)
from annotator.errors import PermissionDenied

IVO = User("ivo", Role.TRANSLATOR, ("IT",))
INES = User("ines", Role.TRANSLATOR, ("IT",))
LENA = User("lena", Role.LEAD)
GOCCIO = CandidateEntry("goccio", None, Origin.LEXICON, ("bn:00057755n",))
COLPO = CandidateEntry("colpo", None, Origin.LEXICON, ("bn:00070966n", "bn:00056773n"))
START = ItemLanguage(
    "shot-whiskey", "IT", Status.PENDING, 3, good=(GOCCIO,), bad=(COLPO,), initial_good=(GOCCIO,), initial_bad=(COLPO,)
)


class Log:
    """A state and its history, changed the way the service changes them (``before`` recorded in the detail)."""

    def __init__(self, state: ItemLanguage = START) -> None:
        self.state = state
        self.history: list[HistoryEntry] = []

    def change(self, user: User, action: str, new: ItemLanguage, detail: dict | None = None) -> ItemLanguage:
        recorded = {**(detail or {}), undo.BEFORE_KEY: undo.before_of(self.state, new)}
        recorded = json.loads(json.dumps(recorded))  # as stored: JSON text in the history table
        version = self.state.version + 1
        self.state = replace(new, version=version, updated_by=user.name)
        at = "2026-11-23T10:00:00"
        self.history.append(HistoryEntry(new.item_id, new.lang, user.name, at, action, recorded, version))
        return self.state

    def undo(self, user: User) -> ItemLanguage:
        plan = undo.plan_undo(user, self.state, self.history)
        return self.change(user, undo.UNDO_ACTION, plan.restored, plan.detail)


def test_a_change_records_only_the_fields_it_alters_with_full_provenance() -> None:
    new = workflow.remove_candidate(IVO, START, "colpo")
    before = undo.before_of(START, new)
    assert before == {
        "bad": [{"text": "colpo", "pos": None, "origin": "lexicon", "synsets": ["bn:00070966n", "bn:00056773n"]}],
        "status": "pending",
    }
    assert undo.restore(new, before) == START
    added = workflow.add_candidate(IVO, START, Side.GOOD, Candidate("sorso"))
    assert undo.before_of(START, added) == {"good": [0], "status": "pending"}  # kept entries by index: compact


def test_undo_of_a_removal_brings_back_provenance_and_status() -> None:
    log = Log()
    log.change(IVO, "remove", workflow.remove_candidate(IVO, log.state, "colpo"), {"candidate": "colpo"})
    state = log.undo(IVO)
    assert state.bad == (COLPO,) and state.bad[0].synsets == COLPO.synsets and state.bad[0].origin is Origin.LEXICON
    assert state.status is Status.PENDING and state.version == 5
    assert log.history[-1].detail["undid"] == "remove" and log.history[-1].detail["undid_version"] == 4


def test_undo_of_add_move_and_done_and_undo_twice_redoes() -> None:
    log = Log()
    log.change(IVO, "add", workflow.add_candidate(IVO, log.state, Side.GOOD, Candidate("sorso")))
    log.change(IVO, "move", workflow.move_candidate(IVO, log.state, "colpo", Side.GOOD))
    done = log.change(IVO, "done", workflow.mark_done(IVO, log.state))
    reopened = log.undo(IVO)
    assert reopened.status is Status.IN_PROGRESS and reopened.status_by is None
    assert reopened.good == done.good
    redone = log.undo(IVO)  # undoing the undo
    assert (redone.status, redone.status_by, redone.good) == (Status.DONE, "ivo", done.good)


def test_status_and_notes_are_restored() -> None:
    log = Log(replace(START, status=Status.IN_PROGRESS))
    log.change(IVO, "discuss", workflow.flag_discuss(IVO, log.state, "regional?"))
    state = log.undo(IVO)  # the flagger withdraws the question
    assert (state.status, state.discuss_note, state.status_by) == (Status.IN_PROGRESS, "", None)
    log.change(LENA, "discard", workflow.discard(LENA, log.state, DiscardReason.OTHER, "odd sentence"))
    state = log.undo(LENA)
    assert (state.status, state.discard_reason, state.discard_note) == (Status.IN_PROGRESS, None, "")


def test_refused_when_nothing_to_undo_or_someone_changed_it_after() -> None:
    log = Log()
    with pytest.raises(undo.UndoRefused, match="Nothing to undo: you have not changed shot-whiskey"):
        undo.plan_undo(IVO, log.state, log.history)
    log.change(IVO, "add", workflow.add_candidate(IVO, log.state, Side.GOOD, Candidate("sorso")))
    log.change(INES, "remove", workflow.remove_candidate(INES, log.state, "colpo"), {"candidate": "colpo"})
    refused = r"ines changed shot-whiskey \[IT\] after you \(removing colpo"
    with pytest.raises(undo.UndoRefused, match=refused) as caught:
        undo.plan_undo(IVO, log.state, log.history)
    assert "undo would overwrite their change" in str(caught.value)
    # a write that left no history row (or a state newer than the log) is refused too
    with pytest.raises(undo.UndoRefused, match="after you"):
        undo.plan_undo(INES, replace(log.state, version=log.state.version + 1), log.history)


def test_refused_when_the_change_predates_undo() -> None:
    old = HistoryEntry("shot-whiskey", "IT", "ivo", "2026-01-01T00:00:00", "add", {"candidate": "sorso"}, 4)
    with pytest.raises(undo.UndoRefused, match=r"\(adding sorso\) cannot be undone"):
        undo.plan_undo(IVO, replace(START, version=4), [old])


def test_workflow_permissions_hold_for_the_reverse_step() -> None:
    # a translator may take back their own discard while it is the item's last change (issue 21) ...
    log = Log()
    log.change(IVO, "discard", workflow.discard(IVO, log.state, DiscardReason.IDIOM))
    assert undo.plan_undo(IVO, log.state, log.history).restored.status is Status.PENDING
    # ... but not someone else's: reopening a discarded item is for leads
    with pytest.raises(PermissionDenied, match=r"only a lead .* may reopen a discarded item"):
        undo.check_may_reverse(
            IVO, replace(START, status=Status.DISCARDED, status_by="ines"), replace(START, status=Status.PENDING)
        )
    # a lead's resolution cannot be undone by the translator who flagged the item (it is the lead's change)
    log = Log(replace(START, status=Status.IN_PROGRESS))
    log.change(IVO, "discuss", workflow.flag_discuss(IVO, log.state, "regional?"))
    log.change(LENA, "resolve", workflow.resolve_discussion(LENA, log.state, Status.DONE, "fine"))
    with pytest.raises(undo.UndoRefused, match="lena changed"):
        undo.plan_undo(IVO, log.state, log.history)
    assert log.undo(LENA).status is Status.DISCUSS  # the lead may: the item waits for a lead again
    # a translator who lost the language may not undo there
    with pytest.raises(PermissionDenied):
        undo.check_may_reverse(User("ivo", Role.TRANSLATOR, ("DE",)), log.state, START)
    # closing a DISCUSS item is a lead's resolution
    with pytest.raises(PermissionDenied, match="Only a lead may resolve"):
        undo.check_may_reverse(
            IVO, replace(START, status=Status.DISCUSS, status_by="ivo"), replace(START, status=Status.DONE)
        )


def test_describe_names_the_change() -> None:
    entry = HistoryEntry("x", "IT", "ivo", "", "add", {"side": "good", "candidates": ["a", "b"]}, 1)
    assert undo.describe(entry) == "adding a, b"
    assert undo.describe(replace(entry, action="done", detail={})) == "Done"
    assert undo.describe(replace(entry, action="undo", detail={"undid": "done"})) == "undo of Done"
    assert undo.describe(replace(entry, action="undo", detail={"undid": "remove"})) == "undo of removing"


def test_the_outcome_of_an_undo_and_of_a_redo_name_the_change() -> None:
    log = Log()
    log.change(
        IVO, "add", workflow.add_candidate(IVO, log.state, Side.GOOD, Candidate("sorso")), {"candidate": "sorso"}
    )
    plan = undo.plan_undo(IVO, log.state, log.history)
    assert undo.outcome(plan, log.history) == "Undone: adding sorso."
    log.undo(IVO)
    redo = undo.plan_undo(IVO, log.state, log.history)
    assert undo.outcome(redo, log.history) == "Redone: adding sorso."  # not "Undone: undo of adding."


def test_a_damaged_record_restores_nothing() -> None:
    with pytest.raises(undo.UndoRefused, match="unknown fields"):
        undo.restore(START, {"version": 1})
    with pytest.raises(undo.UndoRefused, match="does not fit"):
        undo.restore(START, {"good": [0, 5]})
    with pytest.raises(undo.UndoRefused, match="damaged"):
        undo.restore(START, {"status": "finished"})
