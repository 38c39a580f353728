"""The evaluator's shortcuts (issue 9: throughput) change nothing but speed.

Speed itself is measured by ``benchmarks/bench_evaluate.py``, never timed here: these tests pin that each shortcut
gives exactly the answer of the path it skips, and that the paused garbage collector is always given back.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterator, Sequence

import pytest

from annotator.analysis.base import Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.domain.matching import (
    Step,
    candidate_segments,
    candidate_set,
    compile_candidate,
    match_translation,
)
from annotator.services.evaluate import Translation, dataset_from_records, evaluate

CANDIDATES = {
    "IT": (["sparo", "colpo", "goccio", "prendersi * permesso"], ["della", "foto", "dell'acqua", "[scatto]_NOUN"]),
    "DE": (["Schuss", "Schnaps", "zum Jäger"], ["im Haus", "Aufnahme", "Foto * machen"]),
}
SENTENCES = {
    "IT": [
        "Il cacciatore ha fatto uno sparo.",
        "Ha bevuto un goccio della grappa.",
        "Versato dell'acqua nel bicchiere.",
        "Una bella foto della casa.",
        "Voleva prendersi un lungo permesso.",
        "Ha fatto uno scatto.",
        "Nessuna delle parole.",
    ],
    "DE": [
        "Der Jäger gab einen Schuss ab.",
        "Er trank einen Schnaps im Haus.",
        "Ein Foto wollte er machen.",
        "Sie ging zum Jäger.",
        "Nichts davon.",
    ],
}


def _compiled(analyser: DefaultAnalyser, lang: str):  # type: ignore[no-untyped-def]
    good, bad = CANDIDATES[lang]
    entries = [(text, "good") for text in good] + [(text, "bad") for text in bad]
    segments = sorted({segment for text, _ in entries for segment in candidate_segments(_parse(text))})
    analyses = dict(zip(segments, analyser.with_stems(analyser.analyse(segments, lang), lang), strict=True))
    return candidate_set(
        compile_candidate(text, side, index=i, segment_analyses=analyses) for i, (text, side) in enumerate(entries)
    )


def _parse(text: str):  # type: ignore[no-untyped-def]
    from annotator.domain.candidates import parse_candidate

    return parse_candidate(text)


@pytest.mark.parametrize("lang", sorted(CANDIDATES))
def test_skipping_a_repeated_level_step_gives_the_full_walk_s_answer(lang: str):
    analyser = DefaultAnalyser()
    cset = _compiled(analyser, lang)
    full = dataclasses.replace(cset, repeats=(False, False, False))  # no step is ever skipped
    for analysis in analyser.analyse(SENTENCES[lang], lang):
        assert match_translation(analysis, cset) == match_translation(analysis, full), analysis.text
        with_stems = analyser.with_stems([analysis], lang)[0]
        assert match_translation(with_stems, cset) == match_translation(with_stems, full), analysis.text


def test_a_repeated_level_is_still_walked_when_the_analysis_has_tags():
    """With tags the word and token steps check them differently, so the token step must run."""
    cset = candidate_set([compile_candidate("[scatto]_NOUN", "good"), compile_candidate("scatto", "bad", index=1)])
    assert cset.repeats == (False, True, True)
    tagged = Analysis(
        text="uno scatto",
        tokens=("uno", "scatto"),
        token_spans=((0, 3), (4, 10)),
        words=("uno", "scatto"),
        lemmas=("uno", "scatto"),
        upos=("DET", "NOUN"),
        word_token=(0, 1),
    )
    result = match_translation(tagged, cset)
    assert {m.text for m in result.matches} == {"[scatto]_NOUN", "scatto"}
    assert {m.step for m in result.matches} == {Step.LEMMA}


def test_a_token_only_alternative_is_found_when_words_are_the_tokens():
    """A backend that leaves ``dell'acqua`` as two plain words: only the candidate's token form matches them."""
    analyser = DefaultAnalyser()
    cset = _compiled(analyser, "IT")
    words = ("versato", "dell'", "acqua")
    plain = Analysis(
        text="versato dell'acqua",
        tokens=words,
        token_spans=((0, 7), (8, 13), (13, 18)),
        words=words,
        lemmas=words,
        upos=(None,) * 3,
        word_token=(0, 1, 2),
    )
    result = match_translation(plain, cset)
    assert result.omega is not None and (result.omega.text, result.step) == ("dell'acqua", Step.TOKEN)


def test_a_contraction_candidate_keeps_the_token_step():
    analyser = DefaultAnalyser()
    cset = _compiled(analyser, "IT")
    assert cset.repeats[2] is False  # ``della`` → di la as words, della as a token
    result = match_translation(analyser.analyse(["Una bella foto della casa."], "IT")[0], cset)
    assert "della" in {m.text for m in result.matches}


def test_surface_and_stem_shortcuts_agree_with_the_searches():
    """A wildcard candidate whose second piece comes first, and a stem only present late, are found as before."""
    cset = candidate_set([compile_candidate("permesso * lungo", "good")])
    absent_first = Analysis(text="un lungo permesso", tokens=("un",), token_spans=((0, 2),))
    assert match_translation(absent_first, cset).outcome == "MISS"
    found = match_translation(Analysis(text="permesso molto lungo"), cset)
    assert found.outcome == "GOOD" and found.step == Step.SURFACE
    segment = Analysis(
        text="chupito",
        tokens=("chupito",),
        token_spans=((0, 7),),
        words=("chupito",),
        lemmas=("chupito",),
        upos=(None,),
        word_token=(0,),
        stems=("chupit",),
    )
    stems = candidate_set([compile_candidate("chupito", "bad", segment_analyses={"chupito": segment})])
    words = ("un", "trago", "y", "dos", "chupitos")
    late = Analysis(
        text="un trago y dos chupitos",
        tokens=words,
        token_spans=((0, 2), (3, 8), (9, 10), (11, 14), (15, 23)),
        words=words,
        lemmas=words,
        upos=(None,) * 5,
        word_token=(0, 1, 2, 3, 4),
        stems=("un", "trag", "y", "dos", "chupit"),
    )
    result = match_translation(late, stems)
    assert result.step == Step.STEM and result.omega is not None and result.omega.span == (15, 23)


# --- the paused collector -------------------------------------------------------------------------------------------

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
