"""The stem step (SPEC §8, last step; docs/MATCHING.md "The stem step") invents no match across words.

A translation word found only through its Snowball stem counts when it cannot be another word: one of its forms or
lemmas is the candidate as typed (a candidate is a lemma), or the analyser's dictionary does not know it (its stem is
all there is). The cases are MuCoW lines whose correct word was deleted: the sentence still held another word of the
same stem («Schule» where the key's word was «Schüler»).
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
    ("lang", "word", "candidate", "text"),
    [
        # MuCoW lines whose correct word was deleted: «word» left in the translation, `candidate` of the key
        ("DE", "Schule", "Schüler", "Er geht noch zur Schule."),
        ("DE", "Übersetzung", "Übersetzer", "Die Übersetzung ist gut."),
        ("DE", "bezeichnet", "Bezeichnung", "Der Begriff bezeichnet die Übergangszeit."),
        ("DE", "allen", "All", "Gott zeigt sich in allen diesen Nebelflecken."),
        ("RU", "правит", "право", "Король правит страной."),
        ("RU", "загонит", "загон", "Он загонит коров домой."),
        ("RU", "прицепить", "прицеп", "Надо прицепить вагон."),
        # and the other way round
        ("DE", "Schüler", "Schule", "Die Schüler kamen zu spät."),
        ("DE", "Bezeichnung", "bezeichnet", "Die Bezeichnung ist falsch."),
        ("RU", "право", "правит", "Это его право."),
        ("RU", "прицеп", "прицепить", "Во дворе стоит прицеп."),
    ],
)
def test_a_known_word_of_another_lemma_is_no_stem_match(lang: str, word: str, candidate: str, text: str) -> None:
    assert stems_agree(lang, candidate, word)  # what the step used to accept
    result = classify(lang, text, good=[candidate])
    assert result.outcome == Outcome.MISS, (candidate, word, result.to_dict())
    analysis = ANALYSER.with_stems(ANALYSER.analyse([text], lang), lang)[0]
    assert analysis.settled[analysis.words.index(word)] is True  # the dictionary knows it: another word


@pytest.mark.parametrize(
    ("lang", "candidate", "text", "found"),
    [
        ("ES", "chupito", "Dos chupitos, por favor.", "chupitos"),  # unknown to the dictionary: its stem is all
        ("ES", "chupito doble", "Dos chupitos dobles, por favor.", "chupitos dobles"),
    ],
)
def test_the_same_word_still_matches_at_the_stem_step(lang: str, candidate: str, text: str, found: str) -> None:
    result = classify(lang, text, good=[candidate])
    assert result.outcome == Outcome.GOOD and result.step == Step.STEM
    assert result.omega is not None and result.omega.span is not None
    assert text[slice(*result.omega.span)] == found


@pytest.mark.parametrize(
    ("lang", "candidate", "text"),
    [
        # «decolli»: plural of decollo and a subjunctive of decollare; simplemma keeps decollo
        ("IT", "decollare", "Se l'aereo non decolli entro un'ora, restiamo qui."),
        # «gocci»: simplemma reads it as gocciare; the candidate is the lemma goccio as typed
        ("IT", "goccio", "Due gocci, grazie."),
        # MuCoW's lower-cased keys: «spielen», «eben», «allen» are their own words, not the nouns Spiel, Ebene, All
        ("DE", "spiel", "Ich möchte eins spielen."),
        ("DE", "ebene", "Das sollte man eben machen."),
        ("DE", "all", "Gott zeigt sich in allen diesen Nebelflecken."),
    ],
)
def test_a_word_the_dictionary_reads_as_another_lemma_is_a_miss(lang: str, candidate: str, text: str) -> None:
    # the stem alone cannot say the word is the candidate when the dictionary says it is another lemma: a MISS
    # (sent to inspection), not a GOOD the analysis does not support
    result = classify(lang, text, good=[candidate])
    assert result.outcome == Outcome.MISS, result.to_dict()


def test_a_bad_candidate_of_another_lemma_is_no_stem_match_either() -> None:
    # «Schule» left where the key's GOOD word was deleted: no BAD from a same-stem word, the translation is a MISS
    result = classify("DE", "Er geht noch zur Schule.", good=["Gymnasium"], bad=["Schüler"])
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
    assert analysis.settled[1] is True and analysis.settled[3] is False  # «Schüler» known, «chupitos» not
    assert Analysis.from_dict(analysis.text, analysis.to_dict()) == analysis
