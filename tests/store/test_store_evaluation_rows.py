"""``store/evaluation_rows.py``: one statement gives each scored item's row and its item-languages' rows; excluded
items, other languages and a running import's rows are left out."""

from __future__ import annotations

import json

import pytest
from store_rows import SENSES, add_items, begin_staging, item

from annotator.domain.model import CandidateEntry, ItemLanguage, Status
from annotator.project import Project
from annotator.store.evaluation_rows import EvaluationRow
from annotator.store.item_languages import candidates_from_json

pytestmark = pytest.mark.both_engines

GOOD = (CandidateEntry("banca"),)


def test_items_and_their_item_languages_come_as_evaluation_rows(project: Project) -> None:
    add_items(project, [item("a", gloss="g", senses=SENSES), item("x", excluded=True), item("b")], langs=("IT", "DE"))
    begin_staging(project, [item("staged")], langs=("IT",))
    with project.db.write() as conn:
        project.repo.save_item_language(conn, ItemLanguage("a", "IT", Status.DONE, good=GOOD), 0, "ivo", "done")
        raw = project.repo.evaluation_rows(conn, ["IT", "ZH"])
    # exact tuples (no fetched ``Row`` kept): the collector stops tracking them (issue 32, the evaluation's set-up)
    assert raw and all(type(row) is tuple for row in raw)
    rows = [EvaluationRow(*row) for row in raw]
    items = {r.id: r for r in rows if r.lang is None}
    languages = {(r.id, r.lang): r for r in rows if r.lang is not None}
    assert sorted(items) == ["a", "b"]
    assert sorted(languages) == [("a", "IT"), ("b", "IT")]
    a = items["a"]
    assert (a.sentence, a.lemma, a.gloss, a.target_start, a.target_end) == ("bank of item a.", "bank", "g", 0, 4)
    assert [s["synset"] for s in json.loads(a.senses or "[]")] == [s.synset for s in SENSES]
    assert (a.status, a.good) == (None, None)  # an item's row carries no item-language columns
    done = languages[("a", "IT")]
    assert (done.status, candidates_from_json(done.good or "[]"), done.sentence) == ("done", GOOD, None)
    assert candidates_from_json(languages[("b", "IT")].bad or "[]") == ()


def test_no_languages_gives_the_items_alone(project: Project) -> None:
    add_items(project, [item("a")], langs=("IT",))
    with project.db.read() as conn:
        rows = [EvaluationRow(*row) for row in project.repo.evaluation_rows(conn, [])]
    assert [(r.id, r.lang) for r in rows] == [("a", None)]
