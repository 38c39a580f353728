"""The collector pauses kept (issue 32: 2× on the evaluation's set-up from the live curation and on the run, figures
in ``annotator/gc_pause.py``): each gives the collector back as it found it; the set-up freezes its inputs only when
asked (the evaluation job keeps them to its end), the run leaves a caller's frozen objects frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from conftest import build_demo

from annotator.analysis.base import Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.evaluation.inputs import Translation, dataset_from_records
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
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def _tracked(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none of them)."""
    return any(o is obj for o in gc.get_objects())


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("enabled", [True, False])
def test_the_set_up_gives_the_collector_back_as_it_found_it(demo: Project, enabled: bool) -> None:
    gc.enable() if enabled else gc.disable()
    dataset, translations = prepare_current(demo, builtin_path("demo/translations.jsonl"))
    assert dataset.items and len(translations)
    assert gc.isenabled() is enabled
    assert _tracked(dataset.items)  # not frozen unless asked


@pytest.mark.usefixtures("collector")
def test_the_job_s_set_up_freezes_its_inputs(demo: Project) -> None:
    gc.enable()
    dataset, _translations = prepare_current(demo, builtin_path("demo/translations.jsonl"), freeze=True)
    assert gc.isenabled()
    assert not _tracked(dataset.items)  # out of the collector's reach for the rest of the worker
    gc.unfreeze()
    assert _tracked(dataset.items)


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


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


class _Failing(DefaultAnalyser):
    def analyse(self, texts: Sequence[str], lang: str) -> list[Analysis]:
        raise RuntimeError("backend crashed")


@pytest.mark.usefixtures("collector_enabled")
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


@pytest.mark.usefixtures("collector_enabled")
def test_a_failed_run_gives_the_collector_back():
    gc.enable()
    dataset = dataset_from_records(DATASET, "test")
    with pytest.raises(RuntimeError, match="backend crashed"):
        evaluate(dataset, [Translation("shot", "IT", "sys", "Un goccio.")], _Failing())
    assert gc.isenabled()
