"""The evaluation and the collector (issue 32). The set-up from the live curation neither pauses nor freezes it: what
it keeps (the rows, the translations) is laid out as exact tuples, which the collector stops tracking, so a large
set-up does not grow what its full passes walk. The run's pause (figures in ``annotator/gc_pause.py``) gives the
collector back as it found it and leaves a caller's frozen objects frozen."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from project_helpers import build_demo

from annotator.analysis.base import Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.evaluation.inputs import Translation, Translations, dataset_from_records
from annotator.evaluation.run import evaluate
from annotator.project import Project, builtin_path
from annotator.services.evaluate_project import prepare_current


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    return Project.open(copy_project("demo", build_demo, tmp_path / "data"))


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def _tracked(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none of them)."""
    return any(o is obj for o in gc.get_objects())


def _many_translations(tmp_path: Path, systems: int) -> tuple[Path, int]:
    """The demo's translations, each repeated under ``systems`` system names (a large file from a small project)."""
    lines = [json.loads(line) for line in builtin_path("demo/translations.jsonl").read_text("utf-8").splitlines()]
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for n in range(systems):
            for line in lines:
                handle.write(json.dumps({**line, "system": f"{line['system']}-{n}"}) + "\n")
    return path, systems * len(lines)


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("enabled", [True, False])
def test_the_set_up_leaves_the_collector_as_it_found_it(demo: Project, enabled: bool) -> None:
    gc.enable() if enabled else gc.disable()
    frozen = gc.get_freeze_count()
    dataset, translations = prepare_current(demo, builtin_path("demo/translations.jsonl"))
    assert dataset.items and len(translations)
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == frozen  # nothing frozen: no object is kept out of the collector's reach
    assert _tracked(dataset.items)


@pytest.mark.usefixtures("collector")
def test_what_the_set_up_keeps_per_translation_is_not_tracked(demo: Project, tmp_path: Path) -> None:
    """Thousands of translations add no object the collector walks: each is an exact tuple of strings and an int
    (a ``Translation`` record, a NamedTuple instance, stays tracked for good), given as a ``Translation`` on access."""
    path, count = _many_translations(tmp_path, 40)
    gc.enable()
    prepare_current(demo, path)  # modules and caches of a first run are not what is counted
    gc.collect()
    before = len(gc.get_objects())
    dataset, translations = prepare_current(demo, path)  # kept alive while counting
    gc.collect()  # one pass: an exact tuple of untracked values is untracked
    grown = len(gc.get_objects()) - before
    assert len(translations) == count > 5_000 and dataset.items
    assert grown < 1_000  # the dataset's few items; not one object per translation
    assert isinstance(translations, Translations)
    first = translations[0]
    assert type(first) is Translation and first == Translation(*translations.rows[0])
    assert first.system.endswith("-0") and first.line == 1
    assert [t.line for t in translations[:3]] == [1, 2, 3] and list(translations)[-1] == translations[count - 1]
    assert all(type(row) is tuple and not gc.is_tracked(row) for row in translations.rows)


def test_the_rows_of_the_live_curation_are_read_as_exact_tuples(demo: Project) -> None:
    """The 60,000 rows of a large project are read into plain tuples (a fetched ``Row`` each dropped as it is read)."""
    with demo.db.read() as conn:
        rows = demo.repo.evaluation_rows(conn, ["DE", "IT"])
    assert rows and all(type(row) is tuple for row in rows)
    gc.collect()
    assert not any(gc.is_tracked(row) for row in rows)


DATASET = [
    {
        "id": "shot",
        "sentence": "He took a shot.",
        "target": {"text": "shot", "start": 10, "end": 14, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:drink",
        "gloss": "",
        "source": "test",
        "polysemy_degree": 2,
        "sense_rank": 2,
        "senses": [{"synset": "bn:gunshot", "rank": 1}, {"synset": "bn:drink", "rank": 2}],
        "languages": {
            "IT": {
                "good": [{"text": "goccio", "pos": None, "origin": "lexicon", "synsets": ["bn:drink"]}],
                "bad": [{"text": "sparo", "pos": None, "origin": "lexicon", "synsets": ["bn:gunshot"]}],
            }
        },
    }
]


class _Failing(DefaultAnalyser):
    def analyse(self, texts: Sequence[str], lang: str) -> list[Analysis]:
        raise RuntimeError("backend crashed")


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("enabled", [True, False])
def test_a_run_gives_the_collector_back_as_it_found_it(enabled: bool):
    gc.enable() if enabled else gc.disable()
    frozen = gc.get_freeze_count()
    dataset = dataset_from_records(DATASET, "test")
    result = evaluate(
        dataset,
        [Translation("shot", "IT", "sys", "Un goccio."), Translation("shot", "IT", "sys", "")],
        DefaultAnalyser(),
    )
    assert [r.outcome for r in result.results] == ["GOOD", "MISS"]
    assert result.results[1].analysis == Analysis(text="")
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == frozen  # the run's objects stay collectable: nothing more is left frozen


def test_a_run_leaves_the_caller_s_frozen_objects_frozen():
    gc.enable()
    held = [[] for _ in range(10)]
    gc.freeze()
    try:
        assert not _tracked(held)  # frozen objects are outside the collector's generations
        evaluate(
            dataset_from_records(DATASET, "test"), [Translation("shot", "IT", "sys", "Uno sparo.")], DefaultAnalyser()
        )
        assert not _tracked(held)  # still frozen: the run did not unfreeze the caller's objects
        assert gc.isenabled()
    finally:
        gc.unfreeze()
    assert held


@pytest.mark.usefixtures("collector")
def test_a_failed_run_gives_the_collector_back():
    gc.enable()
    dataset = dataset_from_records(DATASET, "test")
    with pytest.raises(RuntimeError, match="backend crashed"):
        evaluate(dataset, [Translation("shot", "IT", "sys", "Un goccio.")], _Failing())
    assert gc.isenabled()
