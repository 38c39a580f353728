"""Curation service (SPEC §5, §9): permissions at the write path, workflow rules, history, optimistic locking."""

from __future__ import annotations

import threading

import pytest
from project_helpers import SAMPLE_ITEMS, dump

from annotator.domain.candidates import CandidateError
from annotator.domain.model import DiscardReason, Role, Side, Status, User
from annotator.domain.workflow import WorkflowError
from annotator.errors import ConflictError, PermissionDenied
from annotator.project import Project
from annotator.services.accounts import add_user, authenticate, set_disabled
from annotator.services.curation import CurationService
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL


@pytest.fixture
def items(project: Project, write_jsonl) -> Project:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    return project


def test_translator_edits_are_saved_with_history(items: Project, translator_it: User) -> None:
    service = CurationService(items, translator_it)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "bicchierino", state.version)
    state = service.add_candidate("shot-whiskey", "IT", "bad", "[sparare]_v", state.version)
    state = service.move_candidate("shot-whiskey", "IT", "bicchierino", Side.BAD, state.version)
    state = service.remove_candidate("shot-whiskey", "IT", "bicchierino", state.version)
    state = service.mark_done("shot-whiskey", "IT", state.version)
    view = service.view("shot-whiskey", "IT")
    assert [c.format() for c in view.state.good] == ["goccio"]
    assert [c.format() for c in view.state.bad] == ["[sparare]_VERB"]
    assert view.state.status is Status.DONE and view.state.status_by == "ivo" and view.state.version == 6
    assert [h.action for h in view.history] == ["add", "add", "add", "move", "remove", "done"]
    assert all(h.user == "ivo" and h.at for h in view.history)


def test_a_translator_cannot_change_another_language(items: Project, translator_it: User) -> None:
    before = dump(items)
    with pytest.raises(PermissionDenied) as caught:
        CurationService(items, translator_it).add_candidate("shot-whiskey", "DE", Side.GOOD, "Schuss", 0)
    assert "DE" in str(caught.value)
    assert dump(items) == before
    with items.db.read() as conn:
        assert items.repo.get_item_language(conn, "shot-whiskey", "DE").good == ()


def test_invalid_candidate_changes_nothing(items: Project, translator_it: User) -> None:
    before = dump(items)
    with pytest.raises(CandidateError) as caught:
        CurationService(items, translator_it).add_candidate("shot-whiskey", "IT", Side.GOOD, "[goccio]_NOUN", 0)
    assert caught.value.rule == "not_cross_pos"
    assert dump(items) == before


def test_candidate_cannot_be_in_good_and_bad(items: Project, translator_it: User) -> None:
    service = CurationService(items, translator_it)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "Goccio", 0)
    with pytest.raises(WorkflowError, match="move it"):
        service.add_candidate("shot-whiskey", "IT", Side.BAD, "goccio", state.version)


def test_discuss_needs_a_note_and_discard_needs_a_reason(items: Project, translator_it: User, lead: User) -> None:
    service = CurationService(items, translator_it)
    with pytest.raises(WorkflowError, match="note"):
        service.flag_discuss("shot-whiskey", "IT", "  ", 0)
    with pytest.raises(WorkflowError, match="reason"):
        service.discard("shot-whiskey", "IT", None, "", 0)
    with pytest.raises(WorkflowError, match="note"):
        service.discard("shot-whiskey", "IT", DiscardReason.OTHER, "", 0)
    state = service.flag_discuss("shot-whiskey", "IT", "Is 'cicchetto' regional?", 0)
    assert state.status is Status.DISCUSS
    with pytest.raises(PermissionDenied):
        service.resolve("shot-whiskey", "IT", Status.DONE, "fine", state.version)
    leader = CurationService(items, lead)
    state = leader.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", state.version)
    state = leader.resolve("shot-whiskey", "IT", Status.DONE, "cicchetto is fine but regional", state.version)
    view = leader.view("shot-whiskey", "IT")
    assert view.state.status is Status.DONE
    assert [c.text for c in view.comments] == ["Is 'cicchetto' regional?", "cicchetto is fine but regional"]


def test_reopen_rules(items: Project, translator_it: User, lead: User, project: Project) -> None:
    other = add_user(project, "ines", Role.TRANSLATOR, ("IT",), "another-password")
    mine = CurationService(items, translator_it)
    state = mine.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    state = mine.mark_done("shot-whiskey", "IT", state.version)
    with pytest.raises(PermissionDenied):
        CurationService(items, other).reopen("shot-whiskey", "IT", state.version)
    state = mine.reopen("shot-whiskey", "IT", state.version)
    state = mine.discard("shot-whiskey", "IT", DiscardReason.IDIOM, "", state.version)
    with pytest.raises(PermissionDenied):
        mine.reopen("shot-whiskey", "IT", state.version)
    assert CurationService(items, lead).reopen("shot-whiskey", "IT", state.version).status is Status.IN_PROGRESS


def test_stale_save_is_refused_and_carries_the_current_state(items: Project, translator_it: User, lead: User) -> None:
    first = CurationService(items, translator_it)
    second = CurationService(items, lead)
    seen = first.view("shot-whiskey", "IT").state.version
    second.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", seen)
    with pytest.raises(ConflictError) as caught:
        first.add_candidate("shot-whiskey", "IT", Side.GOOD, "bicchierino", seen)
    assert "lena" in str(caught.value)
    assert [c.text for c in caught.value.current.good] == ["goccio"]


def test_two_threads_writing_one_item_language_lose_no_update(items: Project, translator_it: User, lead: User) -> None:
    """Many rounds of two writers racing from the same version: exactly one wins each round."""
    services = [CurationService(items, translator_it), CurationService(items, lead)]
    outcomes: list[list[str]] = []
    for round_number in range(15):
        version = services[0].view("shot-whiskey", "IT").state.version
        barrier = threading.Barrier(2)
        results: list[str] = []

        def write(index: int, version: int, round_number: int, barrier: threading.Barrier, results: list[str]) -> None:
            barrier.wait()
            try:
                services[index].add_candidate("shot-whiskey", "IT", Side.GOOD, f"w{index}-r{round_number}", version)
                results.append("won")
            except ConflictError as error:
                assert "changed by" in str(error)
                results.append("conflict")

        threads = [threading.Thread(target=write, args=(i, version, round_number, barrier, results)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcomes.append(sorted(results))
    assert all(result == ["conflict", "won"] for result in outcomes)
    state = services[0].view("shot-whiskey", "IT")
    assert len(state.state.good) == 15 and state.state.version == 15
    assert len(state.history) == 15


def test_accounts_hash_and_disable(project: Project, translator_it: User) -> None:
    with project.db.read() as conn:
        stored = project.repo.get_password_hash(conn, "ivo")
    assert stored.startswith("scrypt$") and "translator-password" not in stored
    assert authenticate(project, "ivo", "translator-password") == translator_it
    assert authenticate(project, "ivo", "wrong-password") is None
    set_disabled(project, "ivo", True)
    assert authenticate(project, "ivo", "translator-password") is None


def test_a_discuss_item_closes_only_by_a_lead_resolution_with_a_comment(
    items: Project, translator_it: User, lead: User, project: Project
) -> None:
    service = CurationService(items, translator_it)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    state = service.flag_discuss("shot-whiskey", "IT", "regional?", state.version)
    leader = CurationService(items, lead)
    with pytest.raises(WorkflowError, match="resolves it with a comment"):
        leader.mark_done("shot-whiskey", "IT", state.version)
    with pytest.raises(WorkflowError, match="resolves it with a comment"):
        leader.discard("shot-whiskey", "IT", DiscardReason.IDIOM, "", state.version)
    other = add_user(project, "ines", Role.TRANSLATOR, ("IT",), "another-password")
    with pytest.raises(WorkflowError, match="waiting for a lead"):  # whole-set edits obey the same rule
        CurationService(items, other).replace_candidates("shot-whiskey", "IT", ["sorso"], [], state.version)
    assert (
        leader.resolve(
            "shot-whiskey", "IT", Status.DISCARDED, "idiomatic here", state.version, DiscardReason.IDIOM
        ).status
        is Status.DISCARDED
    )


def test_a_damaged_password_hash_refuses_login_without_crashing(project: Project, translator_it: User) -> None:
    with project.db.write() as conn:
        project.repo.update_user(conn, "ivo", password_hash="scrypt$16384$8$1$!!$??")
    assert authenticate(project, "ivo", "translator-password") is None
    assert authenticate(project, "nobody", "whatever-password") is None
