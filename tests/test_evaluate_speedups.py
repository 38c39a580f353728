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
from annotator.evaluation.inputs import Translation, dataset_from_records
from annotator.evaluation.run import evaluate

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


# --- analysis shortcuts: jieba's loops and simplemma's decoder ------------------------------------------------------


def _chinese_sentences(count: int) -> list[str]:
    """Dictionary words, characters jieba has never seen (its HMM runs on them), punctuation and Latin runs."""
    import random
    from pathlib import Path

    import jieba

    rng = random.Random(9)
    lines = Path(jieba.__file__).with_name("dict.txt").read_text(encoding="utf-8").splitlines()
    words = [line.split(" ")[0] for line in rng.sample(lines, 3000)]
    sentences = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(2, 12)):
            draw = rng.random()
            if draw < 0.7:
                parts.append(rng.choice(words))
            elif draw < 0.9:
                parts.append("".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(1, 4))))
            else:
                parts.append(rng.choice(["，", "。", " ", "DeepL 3", "一枪", "源头", "?"]))
        sentences.append("".join(parts))
    return sentences


def test_fast_jieba_loops_give_jieba_s_graph_route_and_words():
    import jieba

    from annotator.analysis.dictionary_cache import jieba_tokenizer

    fast = jieba_tokenizer()
    reference = jieba.Tokenizer()  # jieba's own loops over the same dictionary
    reference.FREQ, reference.total, reference.initialized = fast.FREQ, fast.total, True
    for sentence in _chinese_sentences(400):
        dag = reference.get_DAG(sentence)
        assert fast.get_DAG(sentence) == dag, sentence
        fast_route: dict[int, tuple[float, int]] = {}
        reference_route: dict[int, tuple[float, int]] = {}
        fast.calc(sentence, dag, fast_route)
        reference.calc(sentence, dag, reference_route)
        assert fast_route == reference_route, sentence  # the same floats: the same arithmetic in the same order
        assert list(fast.cut(sentence)) == list(reference.cut(sentence)), sentence


def _stream(records: list[tuple[int, bytes, int, bytes]], count: int | None = None, flag: int = 0) -> bytes:
    """A front-coded stream as simplemma's encoder writes it: (shared, suffix, trim, value) records."""

    def varint(number: int) -> bytes:
        out = bytearray()
        while True:
            byte = number & 0x7F
            number >>= 7
            out.append(byte | (0x80 if number else 0))
            if not number:
                return bytes(out)

    body = b"".join(
        varint(shared)
        + varint(len(suffix))
        + suffix
        + bytes([trim])
        + (b"" if trim == 254 else varint(len(value)) + value)
        for shared, suffix, trim, value in records
    )
    return b"SMFC1" + bytes([flag]) + varint(len(records) if count is None else count) + body


def test_the_front_coded_decoder_builds_simplemma_s_dict():
    from simplemma.strategies.dictionaries import dictionary_factory, frontcode

    from annotator.analysis.dictionary_cache import decode_front_coded

    data = dictionary_factory._read_decompressed("it")
    assert decode_front_coded(data, frontcode) == frontcode._decode_stream(data)
    long_suffix = "x" * 300  # lengths of two varint bytes
    records = [
        (0, b"abc", 255, b"literal"),
        (2, b"d", 254, b""),  # abd: the value of the record before
        (3, b"e", 1, b"ing"),  # abde: its key less one byte, then "ing"
        (1, long_suffix.encode(), 0, b"y" * 200),
        (0, "übel".encode(), 2, b""),
    ]
    stream = _stream(records)
    assert decode_front_coded(stream, frontcode) == frontcode._decode_stream(stream)
    assert decode_front_coded(stream, frontcode) == {
        b"abc": b"literal",
        b"abd": b"literal",
        b"abde": b"abding",
        b"a" + long_suffix.encode(): b"a" + long_suffix.encode() + b"y" * 200,
        "übel".encode(): "üb".encode(),
    }
    # what this loop does not vouch for is left to simplemma: truncated, a wrong count, a repeated key, reversed keys
    for odd in (
        stream[:-4],
        _stream(records, count=9),
        _stream([*records, (0, "übel".encode(), 254, b"")]),
        _stream(records, flag=1),
    ):
        assert decode_front_coded(odd, frontcode) is None


# --- matching shortcuts ---------------------------------------------------------------------------------------------


def test_a_level_search_finds_the_leftmost_run_as_the_position_index_does():
    from annotator.domain.matching import _Level

    words = ("la", "casa", "la", "bella", "casa", "la", "bella", "vista")
    plain = _Level(words)
    indexed = _Level(words, [(w,) for w in words])  # the same values with (redundant) readings: the index path
    assert plain.alts is None and indexed.alts is not None
    for segment in [("la",), ("la", "bella"), ("bella", "casa"), ("bella", "vista"), ("casa", "la", "bella"), ("x",)]:
        for start in range(len(words) + 1):
            expected = next(
                (p for p in range(start, len(words)) if words[p : p + len(segment)] == segment), None
            )  # brute force
            assert plain.find_segment(segment, start) == expected == indexed.find_segment(segment, start)
    pattern = (("la", "bella"), ("vista",))
    assert plain.find(pattern) == (2, 8) == indexed.find(pattern)


def test_the_stem_step_index_finds_what_walking_every_candidate_finds():
    from annotator.domain.matching import _Indexed, _match_stems

    def segment(text: str, stem: tuple[str, ...]) -> Analysis:
        words = tuple(text.split())
        spans = tuple((0, len(w)) for w in words)
        return Analysis(text, words, spans, words, words, (None,) * len(words), tuple(range(len(words))), (), stem)

    candidates = {  # two share their first stem; one's later stem is missing; one never occurs
        "chupito": ("chupit",),
        "chupito doble": ("chupit", "dobl"),
        "chupito triple": ("chupit", "tripl"),
        "trago": ("trag",),
        "vaso": ("vas",),
    }
    analyses = {text: segment(text, stems) for text, stems in candidates.items()}
    cset = candidate_set(
        compile_candidate(text, "good" if i % 2 else "bad", index=i, segment_analyses=analyses)
        for i, text in enumerate(candidates)
    )
    words = ("dos", "chupitos", "dobles", "y", "un", "trago")
    late = segment(" ".join(words), ("dos", "chupit", "dobl", "y", "un", "trag"))
    indexed = _Indexed(late, stems_only=True)
    found = _match_stems(cset, indexed, set())
    walked = [  # what the step did before its index: every candidate with a stem pattern, in order
        position
        for position, pattern in enumerate(cset.patterns)
        if pattern.stem is not None and indexed.stems is not None and indexed.stems.find(pattern.stem) is not None
    ]
    assert [m.text for m in found] == [cset.patterns[p].text for p in walked] == ["chupito", "chupito doble", "trago"]
    assert [m.text for m in _match_stems(cset, indexed, {0, 3})] == ["chupito doble"]
