"""``store/prepopulation.py``: what is left to pre-populate, in import order, excluded items apart."""

from __future__ import annotations

import pytest
from store_rows import add_items, begin_staging, item

from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Status
from annotator.project import Project
from annotator.store.item_languages import candidates_to_json

pytestmark = pytest.mark.both_engines


def _prepopulate(project: Project, item_id: str, lang: str) -> None:
    with project.db.write() as conn:
        current = project.repo.get_item_language(conn, item_id, lang)
        assert current is not None
        done = ItemLanguage(item_id, lang, current.status, current.version, prepopulated=True)
        project.repo.save_item_language(conn, done, current.version, "system", "prepopulate")


def test_the_work_list_is_in_import_order_with_excluded_items_apart(project: Project) -> None:
    add_items(project, [item("c"), item("a", excluded=True), item("d"), item("b")], langs=("IT", "DE"))
    begin_staging(project, [item("staged")], langs=("IT", "DE"))
    _prepopulate(project, "d", "IT")
    _prepopulate(project, "d", "DE")
    _prepopulate(project, "b", "IT")
    with project.db.read() as conn:
        both = project.repo.prepopulation_todo(conn, ["IT", "DE"])
        german = project.repo.prepopulation_todo(conn, ["DE"])
        italian = project.repo.prepopulation_todo(conn, ["IT"])
    assert (both.item_ids, both.already_done, both.excluded) == (["c", "b"], 3, ["a"])
    assert (german.item_ids, german.already_done, german.excluded) == (["c", "b"], 1, ["a"])
    assert (italian.item_ids, italian.already_done) == (["c"], 2)


def test_to_prepopulate_gives_only_the_item_languages_still_to_do(project: Project) -> None:
    ids = [f"i{n:04d}" for n in range(520)]  # more than one IN (...) chunk
    add_items(project, [item(i) for i in ids], langs=("IT", "DE", "ZH"))
    _prepopulate(project, "i0000", "DE")
    with project.db.read() as conn:
        found = project.repo.to_prepopulate(conn, ids, ["IT", "DE"])
        none = project.repo.to_prepopulate(conn, ["missing"], ["IT"])
    assert sorted(found) == ids and none == {}
    assert [il.lang for il in found["i0000"]] == ["IT"]
    assert [il.lang for il in found["i0519"]] == ["DE", "IT"]
    assert all(il.status is Status.PENDING and il.untouched for v in found.values() for il in v)


def test_to_prepopulate_reads_the_current_lists_as_a_save_writes_them(project: Project) -> None:
    """A first run saves the lists alone: it reads GOOD/BAD (a NULL column is G0/B0) and the status, and knows an
    item-language nobody touched, whose lists start as G0/B0."""
    add_items(project, [item("a"), item("b"), item("c")], langs=("IT",))
    good = (CandidateEntry("banca", "NOUN", Origin.TRANSLATOR),)
    g0 = (CandidateEntry("riva", None, Origin.LEXICON, ("bn:1",)),)
    with project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", good=good), 0, "ida", "edit")
        project.repo.save_item_language(conn, ItemLanguage("b", "IT", Status.DISCUSS), 0, "ida", "discuss")
        project.repo.save_item_language(conn, ItemLanguage("c", "IT", bad=g0, initial_bad=g0), 0, "ida", "set")
    with project.db.read() as conn:
        found = project.repo.to_prepopulate(conn, ["a", "b", "c"], ["IT"])
    (a,), (b,), (c,) = found["a"], found["b"], found["c"]
    assert (a.version, a.status, a.good, a.bad) == (1, Status.PENDING, candidates_to_json(good), "[]")
    assert not a.untouched
    assert (b.status, b.good, b.untouched) == (Status.DISCUSS, "[]", False)
    assert (c.bad, c.untouched) == (candidates_to_json(g0), False)
