"""An evaluation run pauses the garbage collector and always gives it back as it found it (moved here from
``test_evaluate_speedups.py``, issue 22)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence

import pytest

from annotator.analysis.base import Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.evaluation.inputs import Translation, dataset_from_records
from annotator.evaluation.run import evaluate

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


@pytest.mark.usefixtures("collector_enabled")
def _tracked(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none of them). The freeze count
    alone is no witness: frozen objects of earlier tests may be freed meanwhile."""
    return any(o is obj for o in gc.get_objects())


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
