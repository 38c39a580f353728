"""``store/items.py``: items round-trip, come in import order a page at a time, and a re-import replaces only the
imported fields (the lead's exclusion kept; Ω(λ) and the gloss kept when λ and σ did not change)."""

from __future__ import annotations

import pytest
from project_helpers import dump
from store_rows import SENSES, add_items, begin_staging, item

from annotator.errors import UserError
from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_an_item_round_trips_with_every_field(project: Project) -> None:
    full = item(
        "bank-1",
        source="test",
        gloss="a financial institution",
        senses=SENSES,
        filter_failures=("rule",),
        excluded=True,
        domain="finance",
    )
    add_items(project, [full, item("bank-2")])
    with project.db.read() as conn:
        assert project.repo.get_item(conn, "bank-1") == full
        assert project.repo.get_item(conn, "missing") is None
        assert project.repo.items_by_id(conn, ["bank-1", "missing"]) == {"bank-1": full}
        assert project.repo.item_hashes(conn) == {"bank-1": "hash-bank-1", "bank-2": "hash-bank-2"}
        assert project.repo.item_glosses(conn) == {"bank-1": "a financial institution", "bank-2": ""}
        assert project.repo.count_items(conn) == 2


def test_items_come_in_import_order_and_page_by_position(project: Project) -> None:
    ids = ["c", "a", "b", "e", "d"]
    add_items(project, [item(i) for i in ids])
    with project.db.read() as conn:
        assert [i.id for i in project.repo.list_items(conn)] == ids
        assert project.repo.next_position(conn) == 6
        first = list(project.repo.iter_items(conn, limit=2))
        rest = list(project.repo.iter_items(conn, after_position=2))
        middle = list(project.repo.iter_items(conn, after_position=2, limit=2))
    assert [i.id for i in first] == ["c", "a"]
    assert [i.id for i in rest] == ["b", "e", "d"]
    assert [i.id for i in middle] == ["b", "e"]


def test_look_ups_of_many_ids_span_several_in_lists(project: Project) -> None:
    ids = [f"item-{n:04d}" for n in range(1_100)]  # more than two IN (...) chunks of 500
    add_items(project, [item(i) for i in ids], langs=("IT",))
    wanted = [*ids[::3], "missing"]
    with project.db.read() as conn:
        hashes = project.repo.item_hashes_of(conn, wanted)
        found = project.repo.items_by_id(conn, wanted)
    assert hashes == {i: f"hash-{i}" for i in ids[::3]}
    assert sorted(found) == sorted(ids[::3])


def test_a_duplicate_id_is_refused_and_nothing_changes(project: Project) -> None:
    add_items(project, [item("bank-1")])
    before = dump(project)
    with pytest.raises(UserError), project.db.write() as conn:
        project.repo.insert_item(conn, item("bank-1", lemma="other"), "hash-x", 99)
    assert dump(project) == before


def test_a_replaced_item_keeps_the_exclusion_and_with_keep_lexicon_its_senses_and_gloss(project: Project) -> None:
    add_items(project, [item("a", gloss="old gloss", senses=SENSES, excluded=True, filter_failures=("rule",))])
    add_items(project, [item("b", gloss="old gloss", senses=SENSES)])
    with project.db.write() as conn:
        project.repo.replace_item(conn, item("a", sentence="bank of a, reworded."), "new-a", keep_lexicon=True)
        project.repo.replace_item(conn, item("b", lemma="shore", gloss="new gloss"), "new-b", keep_lexicon=False)
    with project.db.read() as conn:
        a, b = project.repo.get_item(conn, "a"), project.repo.get_item(conn, "b")
        hashes = project.repo.item_hashes(conn)
    assert a is not None and b is not None
    assert a.sentence == "bank of a, reworded."
    assert (a.excluded, a.filter_failures, a.senses, a.gloss) == (True, (), SENSES, "old gloss")
    assert (b.target.lemma, b.senses, b.gloss) == ("shore", (), "new gloss")
    assert hashes == {"a": "new-a", "b": "new-b"}


def test_lexicon_glosses_filters_and_exclusions_are_written_per_item(project: Project) -> None:
    add_items(project, [item(i) for i in ("a", "b", "c", "d")])
    with project.db.write() as conn:
        project.repo.update_item_lexicon(conn, "a", "gloss a", SENSES)
        project.repo.update_items_lexicon(conn, [("b", "gloss b", SENSES[:1]), ("c", "gloss c", ())])
        project.repo.set_glosses(conn, [("d", "gloss d")])
        project.repo.set_filter_results(conn, {"b": ["too-short", "no-target"]})
        changed = project.repo.set_excluded(conn, ["c", "missing"], True)
        assert project.repo.set_excluded(conn, [], True) == 0
    with project.db.read() as conn:
        items = {i.id: i for i in project.repo.list_items(conn)}
        flagged = [i.id for i in project.repo.flagged_items(conn)]
    assert changed == 1
    assert (items["a"].gloss, items["a"].senses) == ("gloss a", SENSES)
    assert (items["b"].gloss, items["b"].senses) == ("gloss b", SENSES[:1])
    assert (items["c"].gloss, items["d"].gloss) == ("gloss c", "gloss d")
    assert items["b"].filter_failures == ("too-short", "no-target")
    assert flagged == ["b", "c"]  # failed a filter or excluded, in import order


def test_items_of_a_running_import_are_hidden(project: Project) -> None:
    add_items(project, [item("kept")])
    begin_staging(project, [item("staged")])
    with project.db.read() as conn:
        assert [i.id for i in project.repo.list_items(conn)] == ["kept"]
        assert project.repo.get_item(conn, "staged") is None
        assert project.repo.count_items(conn) == 1
        assert set(project.repo.item_hashes(conn)) == {"kept"}
        assert project.repo.items_by_id(conn, ["staged"]) == {}
