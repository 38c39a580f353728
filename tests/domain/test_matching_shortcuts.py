"""The matcher's shortcuts (issue 9: throughput) give exactly the answer of the search they skip (moved here from
``test_evaluate_speedups.py``, issue 22)."""

import dataclasses

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


# --- matching shortcuts ---------------------------------------------------------------------------------------------


def test_a_level_search_finds_the_leftmost_run_as_the_position_index_does():
    from annotator.domain.matching.levels import _Level

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
    from annotator.domain.matching.levels import _Indexed
    from annotator.domain.matching.match import _match_stems

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


def test_surface_fold_of_a_text_with_longer_folds_matches_the_character_by_character_fold():
    """Texts holding ß, İ, ﬁ (whose case folding is longer) fold the rest of the text in runs, not one by one."""
    import random

    from annotator.domain.matching.fold import _fold_char, surface_fold

    def by_character(text: str) -> str:
        return "".join(" " if ch.isspace() else _fold_char(ch) for ch in text)

    rng = random.Random(7)
    alphabet = "aBßẞİŉǰΐΰёЁ’ʼ \t\nXyzÄÖÜ门ﬁﬀΣς"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert surface_fold(text) == by_character(text), text
    assert surface_fold("Die STRASSE und die Straße\tam Fluss") == "die strasse und die straße am fluss"
