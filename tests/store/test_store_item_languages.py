"""``store/item_languages.py``: an item-language's state round-trips; a save whose version is stale is refused
(a batch all or none), each save appends its history row; candidate lists keep their stored JSON form."""

from __future__ import annotations

import pytest
from project_helpers import dump
from store_rows import add_items, begin_staging, item

from annotator.domain.model import CandidateEntry, DiscardReason, ItemLanguage, Origin, Status
from annotator.errors import ConflictError
from annotator.project import Project
from annotator.store.item_languages import (
    CandidateSetsRow,
    ItemLanguageRecords,
    ListSave,
    candidates_from_json,
    candidates_to_json,
)

pytestmark = pytest.mark.both_engines

GOOD = (CandidateEntry("banca", "NOUN", Origin.LEXICON, ("bn:00008364n",)), CandidateEntry("istituto"))
BAD = (CandidateEntry("riva", "NOUN", Origin.TRANSLATOR),)


def test_candidate_lists_round_trip_through_their_stored_text() -> None:
    text = candidates_to_json(GOOD)
    assert text.startswith('[{"origin":"lexicon","pos":"NOUN","synsets":["bn:00008364n"],"text":"banca"}')
    assert candidates_from_json(text) == GOOD
    assert candidates_from_json("[]") == ()
    assert candidates_from_json('[{"text": "x"}]') == (CandidateEntry("x", None, Origin.TRANSLATOR, ()),)


def test_missing_item_languages_are_created_pending_and_existing_ones_left_alone(project: Project) -> None:
    add_items(project, [item("a"), item("b")], langs=("IT",))
    with project.db.write() as conn:
        state = project.repo.get_item_language(conn, "a", "IT")
        assert state is not None
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.DONE, good=GOOD), 0, "ivo", "done")
        created = project.repo.ensure_item_languages(conn, ["a", "b"], ["IT", "DE"])
    assert created == 2
    with project.db.read() as conn:
        a = project.repo.item_languages_of(conn, "a")
        assert sorted(a) == ["DE", "IT"]
        assert (a["IT"].status, a["IT"].good, a["DE"].status, a["DE"].version) == (Status.DONE, GOOD, Status.PENDING, 0)
        assert project.repo.get_item_language(conn, "a", "ZH") is None


def test_a_save_round_trips_every_field_and_records_its_history(project: Project) -> None:
    add_items(project, [item("a")], langs=("IT",))
    new = ItemLanguage(
        "a",
        "IT",
        Status.DISCARDED,
        0,
        GOOD,
        BAD,
        GOOD[:1],
        (),
        ("b",),
        True,
        "see b",
        DiscardReason.OTHER,
        "not a noun here",
        "ivo",
    )
    with project.db.write() as conn:
        saved = project.repo.save_item_language(conn, new, 0, "ivo", "discard", {"why": "città"})
    assert (saved.version, saved.updated_by) == (1, "ivo") and saved.updated_at
    with project.db.read() as conn:
        assert project.repo.get_item_language(conn, "a", "IT") == saved
        history = project.repo.history(conn, "a", "IT")
    assert [(h.user, h.action, h.detail, h.version, h.at) for h in history] == [
        ("ivo", "discard", {"why": "città"}, 1, saved.updated_at)
    ]


def test_a_save_from_a_stale_version_is_refused_and_nothing_changes(project: Project) -> None:
    add_items(project, [item("a")], langs=("IT",))
    with project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.DONE, good=GOOD), 0, "ivo", "done")
    before = dump(project)
    with pytest.raises(ConflictError, match=r"a \[IT\] was changed by someone else"), project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.DISCUSS), 0, "ida", "discuss")
    assert dump(project) == before


def test_a_batch_is_saved_all_or_none(project: Project) -> None:
    add_items(project, [item("a"), item("b")], langs=("IT",))
    with project.db.read() as conn:
        a, b = (project.repo.get_item_language(conn, i, "IT") for i in ("a", "b"))
    assert a is not None and b is not None
    stale_b = ItemLanguage("b", "IT", Status.DONE, version=7)
    before = dump(project)
    with pytest.raises(ConflictError, match="nothing was saved"), project.db.write() as conn:
        project.repo.save_item_languages(conn, [ItemLanguage("a", "IT", Status.DONE), stale_b], "ivo", "done", [{}, {}])
    assert dump(project) == before
    with project.db.write() as conn:
        project.repo.save_item_languages(
            conn, [ItemLanguage("a", "IT", Status.DONE, good=GOOD), b], "ivo", "bulk", [{"n": 1}, {"n": 2}]
        )
    with project.db.read() as conn:
        assert project.repo.versions_of(conn, ["a", "b", "missing"]) == {("a", "IT"): 1, ("b", "IT"): 1}
        assert [h.detail for h in project.repo.history(conn, "b", "IT")] == [{"n": 2}]
        assert project.repo.get_item_language(conn, "a", "IT").good == GOOD  # type: ignore[union-attr]


def test_prepared_saves_encode_a_shared_candidate_list_once() -> None:
    shared = GOOD
    states = [ItemLanguage(i, "IT", Status.DONE, 3, shared, (), shared) for i in ("a", "b", "c")]
    encoded: dict[int, tuple[object, str]] = {}
    prepared = ItemLanguageRecords.prepare_saves(states, "system", "prepopulate", [{}, {}, {}], encoded)
    assert [u["b_expected"] for u in prepared.updates] == [3, 3, 3]
    assert [u["version"] for u in prepared.updates] == [4, 4, 4]
    assert {u["initial_good"] for u in prepared.updates} == {candidates_to_json(shared)}
    assert {u["good"] for u in prepared.updates} == {None}  # GOOD still G0: stored as NULL, G0's text held once
    assert [h["item_id"] for h in prepared.history] == ["a", "b", "c"]
    assert len(encoded) == 2  # the shared tuple and the empty one, each encoded once


def test_prepared_saves_take_lists_already_encoded_in_place_of_the_states_own() -> None:
    """Pre-population keeps G0/B0 encoded: given per state by column, they are written as given, the rest encoded."""
    states = [ItemLanguage("a", "IT", Status.PENDING, 0, GOOD), ItemLanguage("b", "IT", Status.PENDING, 0, GOOD)]
    given = [{"initial_good": '["given"]', "good": '["given good"]'}, {}]
    prepared = ItemLanguageRecords.prepare_saves(states, "system", "prepopulate", [{}, {}], encoded_lists=given)
    first, second = prepared.updates
    assert (first["initial_good"], first["good"], first["bad"]) == ('["given"]', '["given good"]', None)
    assert (second["initial_good"], second["good"]) == ("[]", candidates_to_json(GOOD))


def test_a_lists_only_save_keeps_status_and_notes_as_read_and_is_refused_when_stale(project: Project) -> None:
    """Pre-population writes only the lists of states as it read them: their status and notes stay as they are, a
    batch mixing such saves with whole ones writes both, and a stale one refuses the batch."""
    add_items(project, [item("a"), item("b")], langs=("IT",))
    with project.db.write() as conn:
        project.repo.save_item_language(
            conn, ItemLanguage("a", "IT", Status.DISCUSS, discuss_note="which bank?", status_by="ida"), 0, "ida", "d"
        )
    with project.db.read() as conn:
        a, b = (project.repo.get_item_language(conn, i, "IT") for i in ("a", "b"))
    assert a is not None and b is not None
    g0, b0 = candidates_to_json(GOOD), candidates_to_json(BAD)

    def lists_of(state: ItemLanguage) -> ListSave:
        return ListSave(state.item_id, "IT", state.version, "[]", "[]", g0, b0, "[]", '{"n":1}')

    stale = ItemLanguageRecords.prepare_list_saves([lists_of(a)], "system", "prepopulate", prepopulated=True)
    assert "status" not in stale.updates[0] and "discuss_note" not in stale.updates[0]
    with project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.DONE, status_by="ivo"), 1, "ivo", "done")
    before = dump(project)
    with pytest.raises(ConflictError, match="nothing was saved"), project.db.write() as conn:
        project.repo.apply_saves(conn, stale)
    assert dump(project) == before
    with project.db.read() as conn:
        a = project.repo.get_item_language(conn, "a", "IT")
    assert a is not None
    fresh = ItemLanguageRecords.prepare_list_saves([lists_of(a)], "system", "prepopulate", prepopulated=True)
    whole = ItemLanguageRecords.prepare_saves([ItemLanguage("b", "IT", Status.DONE, 0, GOOD)], "ivo", "done", [{}])
    with project.db.write() as conn:
        project.repo.apply_saves(conn, type(fresh)(fresh.updates + whole.updates, fresh.history + whole.history))
    with project.db.read() as conn:
        a, b = (project.repo.get_item_language(conn, i, "IT") for i in ("a", "b"))
        history = project.repo.history(conn, "a", "IT")
    assert a is not None and b is not None
    assert (a.status, a.status_by, a.version, a.initial_good, a.initial_bad) == (Status.DONE, "ivo", 3, GOOD, BAD)
    assert (a.good, a.bad, a.prepopulated) == ((), (), True)  # written as given, not as G0/B0
    assert (history[-1].detail, history[-1].version) == ({"n": 1}, 3)
    assert (b.status, b.good, b.version) == (Status.DONE, GOOD, 1)


def test_a_lists_only_save_writes_lists_equal_to_g0_b0_as_null() -> None:
    save = ListSave("a", "IT", 2, '["g"]', '["x"]', '["g"]', '["b"]', "[]", "{}")
    (update,) = ItemLanguageRecords.prepare_list_saves([save], "system", "prepopulate", prepopulated=True).updates
    assert (update["good"], update["bad"], update["version"], update["b_expected"]) == (None, '["x"]', 3, 2)


def test_bulk_reads_cover_many_items_in_order_and_hide_a_running_import(project: Project) -> None:
    ids = [f"i{n:04d}" for n in range(600)]  # more than one IN (...) chunk
    add_items(project, [item(i) for i in ids], langs=("IT", "DE"))
    begin_staging(project, [item("staged")])
    with project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("i0001", "DE", Status.DONE, good=GOOD), 0, "ida", "done")
    with project.db.read() as conn:
        by_item = project.repo.item_languages_of_items(conn, [*ids, "staged"])
        italian = list(project.repo.iter_item_languages(conn, "IT"))
        everything = list(project.repo.iter_candidate_sets(conn))
        assert project.repo.item_languages_of(conn, "staged") == {}
    assert sorted(by_item) == ids and all(len(v) == 2 for v in by_item.values())
    assert [il.item_id for il in italian] == ids
    first_four = [(r.item_id, r.lang) for r in everything[:4]]
    assert first_four == [("i0000", "DE"), ("i0000", "IT"), ("i0001", "DE"), ("i0001", "IT")]
    row = everything[2]
    assert (row.status, row.status_by, candidates_from_json(row.good)) == (Status.DONE, None, GOOD)
    assert all(type(r) is CandidateSetsRow for r in everything)  # one typed row each, not the driver's row
    assert len(everything) == 1_200
