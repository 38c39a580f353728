"""The stem step (SPEC §8, last step; docs/MATCHING.md "The stem step") invents no match across words.

A translation word found only through its Snowball stem counts when it cannot be another word: it shares a form or
lemma with the candidate, or the analyser does not settle its lemmas (an unknown word, or an inflected form of which
the dictionary keeps one reading). The cases are MuCoW lines whose correct word was
deleted: the sentence still held another word of the same stem («Schüler» beside a deleted «Schule»).
"""

from __future__ import annotations

import pytest

from annotator.analysis.base import Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.domain.matching import (
    DatasetCandidate,
    MatchResult,
    Outcome,
    Step,
    compile_candidate,
    compile_candidates,
    match_stem_step,
    match_translation,
)

ANALYSER = DefaultAnalyser()


def classify(lang: str, text: str, good: list[str], bad: list[str] | None = None) -> MatchResult:
    """Steps 2-4, then the stem step on a MISS, as the evaluation runs them."""
    entries = [DatasetCandidate(t, "good") for t in good] + [DatasetCandidate(t, "bad") for t in bad or []]
    patterns = compile_candidates(entries, lambda segments: ANALYSER.with_stems(ANALYSER.analyse(segments, lang), lang))
    result = match_translation(ANALYSER.analyse([text], lang)[0], patterns)
    if result.outcome == Outcome.MISS:
        result = match_stem_step(ANALYSER.with_stems(ANALYSER.analyse([text], lang), lang)[0], patterns)
    return result


def stems_agree(lang: str, candidate: str, word: str) -> bool:
    """The trap of each case: the two words share their Snowball stem."""
    analysed = ANALYSER.with_stems(ANALYSER.analyse([candidate, word], lang), lang)
    return analysed[0].stems == analysed[1].stems


@pytest.mark.parametrize(
    ("lang", "candidate", "word", "text"),
    [
        ("DE", "Schule", "Schüler", "Die Schüler kamen zu spät."),
        ("DE", "Übersetzung", "Übersetzer", "Der Übersetzer hat lange gearbeitet."),
        ("DE", "bezeichnet", "Bezeichnung", "Die Bezeichnung ist falsch."),
        ("DE", "allen", "All", "Das All ist unendlich groß."),
        ("RU", "правит", "право", "Это его право."),
        ("RU", "загонит", "загон", "Коровы стоят в загон."),
        ("RU", "прицепить", "прицеп", "Во дворе стоит прицеп."),
    ],
)
def test_a_settled_word_of_another_lemma_is_no_stem_match(lang: str, candidate: str, word: str, text: str) -> None:
    assert stems_agree(lang, candidate, word)  # what the step used to accept
    result = classify(lang, text, good=[candidate])
    assert result.outcome == Outcome.MISS, (candidate, word, result.to_dict())
    analysis = ANALYSER.with_stems(ANALYSER.analyse([text], lang), lang)[0]
    assert analysis.settled[analysis.words.index(word)] is True  # a lemma of its own: another word


@pytest.mark.parametrize(
    ("lang", "candidate", "text", "found"),
    [
        ("IT", "goccio", "Due gocci, grazie.", "gocci"),  # both read as gocciare by simplemma
        ("DE", "bezeichnet", "Er bezeichnete es so.", "bezeichnete"),  # both forms of bezeichnen
        ("ES", "chupito", "Dos chupitos, por favor.", "chupitos"),  # unknown to the dictionary: its stem is all
        ("IT", "decollare", "Se l'aereo non decolli entro un'ora.", "decolli"),  # simplemma keeps one reading: decollo
    ],
)
def test_the_same_word_still_matches_at_the_stem_step(lang: str, candidate: str, text: str, found: str) -> None:
    result = classify(lang, text, good=[candidate])
    assert result.outcome == Outcome.GOOD and result.step == Step.STEM
    assert result.omega is not None and result.omega.span is not None
    assert text[slice(*result.omega.span)] == found


def test_a_bad_candidate_of_another_lemma_is_no_stem_match_either() -> None:
    # «Schüler» beside a deleted «Schule»: no BAD from a same-stem word, the translation is a MISS
    result = classify("DE", "Die Schüler kamen zu spät.", good=["Gymnasium"], bad=["Schule"])
    assert result.outcome == Outcome.MISS


def hand_analysis(
    words: tuple[str, ...], lemmas: tuple[str, ...], stems: tuple[str, ...], settled: tuple[bool, ...]
) -> Analysis:
    spans = []
    offset = 0
    for word in words:
        spans.append((offset, offset + len(word)))
        offset += len(word) + 1
    count = len(words)
    return Analysis(
        " ".join(words), words, tuple(spans), words, lemmas, (None,) * count, tuple(range(count)), (), stems, settled
    )


def test_each_word_of_a_multiword_stem_pattern_is_checked_and_a_later_run_can_match() -> None:
    segments = {
        "tiro": hand_analysis(("tiro",), ("tiro",), ("tir",), (True,)),
        "corto": hand_analysis(("corto",), ("corto",), ("cort",), (True,)),
    }
    pattern = compile_candidate("tiro * corto", "good", segment_analyses=segments)
    # the first «tiri» is settled as another lemma (tirare); the second is read as tiro
    text = hand_analysis(
        ("tiri", "e", "tiri", "cortissimi"),
        ("tirare", "e", "tiro", "cortissimo"),
        ("tir", "e", "tir", "cort"),
        (True, True, True, False),
    )
    result = match_stem_step(text, [pattern])
    assert result.outcome == Outcome.GOOD and result.omega is not None and result.omega.span == (7, 22)
    # a settled second word of another lemma breaks the run
    blocked = hand_analysis(("tiri", "cortili"), ("tiro", "cortile"), ("tir", "cort"), (True, True))
    assert match_stem_step(blocked, [pattern]).outcome == Outcome.MISS
    # an analyser that settles nothing (no ``settled``) keeps every stem match, as before
    untold = hand_analysis(("tiri", "cortili"), ("tiro", "cortile"), ("tir", "cort"), ())
    assert match_stem_step(untold, [pattern]).outcome == Outcome.GOOD


def test_settled_flags_survive_the_analysed_file_round_trip() -> None:
    analysis = ANALYSER.with_stems(ANALYSER.analyse(["Die Schüler und chupitos."], "DE"), "DE")[0]
    assert analysis.settled[1] is True and analysis.settled[3] is False  # «Schüler» its own lemma, «chupitos» unknown
    assert Analysis.from_dict(analysis.text, analysis.to_dict()) == analysis
