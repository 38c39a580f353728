"""Pre-population of an item whose σ is not among Ω(λ) (no WordNet sense of its lemma): it is pre-populated, and the
report says so for such items alone, on a plain run and on an import that pre-populates while staging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prepopulate_data import ROWS, SNAPSHOT

from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import Project
from annotator.services.importing import import_items
from annotator.services.lexicon_admin import use_snapshot
from annotator.services.prepopulate import prepopulate
from annotator.services.prepopulate_staged import import_and_prepopulate

pytestmark = pytest.mark.both_engines

#: bn:00000009n is one of the lemma's synsets in the snapshot, but has no WordNet sense of "shot": not in Ω(shot).
PHOTO = {**ROWS[0], "id": "photo", "sentence": "He took a shot of the bay.", "synset": "bn:00000009n"}
#: The verb item's σ has a WordNet sense of "shoot" only: outside Ω(shot, VERB) too. The noun items of Ω get none.
WARNINGS = [
    "verb: bn:00000005v is not among the WordNet senses of (shot, VERB) in the lexicon",
    "photo: bn:00000009n is not among the WordNet senses of (shot, NOUN) in the lexicon",
]


def _outside_warnings(warnings: list[str]) -> list[str]:
    return [warning for warning in warnings if "is not among the WordNet senses" in warning]


def test_a_run_warns_for_the_item_whose_sense_is_outside_its_lemma_s(project: Project, write_jsonl) -> None:
    import_items(project, write_jsonl("items.jsonl", [*ROWS, PHOTO]))
    report = prepopulate(project, lexicon=SnapshotLexicon.from_data(SNAPSHOT, origin="test-snapshot"))
    assert report.items == 5 and report.outcome == "clean"
    assert _outside_warnings(report.warnings) == WARNINGS
    with project.db.read() as conn:
        photo_it = project.repo.get_item_language(conn, "photo", "IT")
        drink_it = project.repo.get_item_language(conn, "drink", "IT")
    assert photo_it is not None and photo_it.prepopulated
    assert drink_it is not None and drink_it.prepopulated


def test_an_import_that_pre_populates_warns_alike(project: Project, write_jsonl, tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    use_snapshot(project, snapshot)
    _imported, report = import_and_prepopulate(project, write_jsonl("items.jsonl", [*ROWS, PHOTO]))
    assert report.items == 5 and report.outcome == "clean"
    assert _outside_warnings(report.warnings) == WARNINGS
