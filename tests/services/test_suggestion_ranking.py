"""Suggestions ranked by measured precision: the cross-PoS form, moves from BAD, the team's own acceptance rate per
kind, and machine-translation words from every evaluation (the command line's too) without function words or markup
— on the tiny wordnet of ``test_suggestions`` (both engines) and on plain data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suggestion_data import BEVERAGE, DRINK, SIP, person, version

from annotator.analysis.function_words import function_words, is_function_word
from annotator.cli import main
from annotator.domain.commands import AcceptSuggestion, Address, RemoveCandidate
from annotator.domain.jobs import JobKind, JobState
from annotator.domain.lexicon_records import LexSense, SynsetRecord
from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Side
from annotator.domain.suggestions import (
    GOOD,
    MOVE_TO_GOOD,
    MT,
    RELATED,
    SHOWN_FIRST,
    MissTranslation,
    Suggestion,
    candidate_key,
    kind_of,
    kind_rates,
    mt_suggestions,
    rank_suggestions,
    related_suggestions,
)
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate
from annotator.services.suggestions.card import card_view
from annotator.services.suggestions.mt import MT_MARKER, miss_translations
from annotator.services.suggestions.rates import suggestion_kinds

both = pytest.mark.both_engines


def related(text: str, relation: str, synset: str, routes: int = 1) -> Suggestion:
    return Suggestion(text, GOOD, RELATED, relation, synset, "", routes)


def bad_list(*texts: str) -> tuple[CandidateEntry, ...]:
    return tuple(CandidateEntry(text, None, Origin.LEXICON, ("wn:00000001n",)) for text in texts)


# --- the ranking (plain data) -----------------------------------------------------------------------------------


def test_a_word_in_bad_that_a_relation_ties_to_sigma_comes_first_as_a_move() -> None:
    state = ItemLanguage("x", "IT", bad=bad_list("appartenere"), prepopulated=True)
    offered = [
        related("essere", "hypernym", "wn:02604760v"),
        related("iscriversi", "hyponym", "wn:02000001v"),
        related("appartenere", "hyponym", "wn:02000002v"),
    ]
    ranked = rank_suggestions(state, "VERB", [], offered, [], [])
    assert [(s.text, s.side) for s in ranked] == [
        ("appartenere", MOVE_TO_GOOD), ("essere", GOOD), ("iscriversi", GOOD),
    ]  # fmt: skip
    assert kind_of(ranked[0]) == "hyponym, in BAD"


def test_a_word_of_another_sense_tied_to_a_synset_close_to_sigma_is_offered_only_as_a_move() -> None:
    """``close``: words of λ's other senses that lexicalize a synset two relations from σ (a co-hyponym here)."""
    sibling = SynsetRecord("wn:03000001n", "NOUN", {"EN": "a fortification of earth"}, (LexSense("Bunker", "DE", "x"),))
    hypernym = SynsetRecord("wn:03000002n", "NOUN", {"EN": "a defensive structure"}, (LexSense("Festung", "DE", "x"),))
    offered = related_suggestions("DE", None, [("hypernym", hypernym)], lambda _s: True, close=[("Bunker", sibling)])
    assert [(s.text, s.relation) for s in offered] == [("Festung", "hypernym"), ("Bunker", "close")]
    in_bad = ItemLanguage("x", "DE", bad=bad_list("Bunker", "Koje"), prepopulated=True)
    ranked = rank_suggestions(in_bad, "NOUN", [], offered, [], [])
    assert [(s.text, s.side, kind_of(s)) for s in ranked] == [
        ("Bunker", MOVE_TO_GOOD, "close, in BAD"), ("Festung", GOOD, "hypernym"),
    ]  # fmt: skip
    assert "a fortification of earth" in ranked[0].reason
    elsewhere = ItemLanguage("x", "DE", prepopulated=True)  # the word taken out of BAD: no longer tied to λ here
    assert [s.text for s in rank_suggestions(elsewhere, "NOUN", [], offered, [], [])] == ["Festung"]


def test_a_cross_pos_word_whose_bare_text_stands_in_bad_is_the_move_of_that_word() -> None:
    state = ItemLanguage("x", "ZH", bad=bad_list("罪"), prepopulated=True)
    ranked = rank_suggestions(state, "ADJ", [], [related("[罪]_NOUN", "derivation", "wn:00733044n")], [], [])
    assert [(s.text, s.side, kind_of(s)) for s in ranked] == [("罪", MOVE_TO_GOOD, "derivation, in BAD")]


def test_the_first_three_hold_no_bare_word_of_another_part_of_speech() -> None:
    """A related part kept before cross-PoS forms (bare words of a verb synset for a noun target) waits after the
    first three; the forms made now are tagged."""
    state = ItemLanguage("x", "IT", prepopulated=True)
    offered = [
        related("correlare", "similar", "wn:00654625v"),  # bare, a verb synset: kept by an older version
        related("[correlato]_ADJ", "derivation", "wn:01234567a"),
        related("relazione", "hypernym", "wn:00031921n"),
        related("nesso", "hyponym", "wn:00032000n"),
        related("legame", "hyponym", "wn:00032001n"),
    ]
    ranked = rank_suggestions(state, "NOUN", [], offered, [], [])
    assert "correlare" not in [s.text for s in ranked[:3]]
    assert [s.text for s in ranked[:3]] == ["relazione", "nesso", "legame"]
    assert [s.text for s in ranked[3:]] == ["correlare", "[correlato]_ADJ"]


def test_a_word_several_related_synsets_or_sources_give_outranks_one_route() -> None:
    state = ItemLanguage("x", "DE", prepopulated=True)
    once, twice = related("Gebäude", "hypernym", "wn:1n"), related("Bunker", "hypernym", "wn:2n", routes=2)
    assert [s.text for s in rank_suggestions(state, "NOUN", [], [once, twice], [], [])] == ["Bunker", "Gebäude"]
    mt = Suggestion("Gebäude", GOOD, MT, "MISS translation: sysA", "", "")
    ranked = rank_suggestions(state, "NOUN", [], [once, twice], [mt], [])
    assert [s.text for s in ranked] == ["Gebäude", "Bunker"]  # the lexicon and a translation agree


def test_the_team_s_acceptance_rate_replaces_the_measured_one_once_it_has_enough_decisions() -> None:
    few = kind_rates({"hyponym": (0, 5)})
    assert few["hyponym"].rate == few["hyponym"].prior and not few["hyponym"].from_team
    never = kind_rates({"hyponym": (0, 40)})["hyponym"]
    assert never.from_team and never.rate < never.prior / 2  # smoothed toward the team's own zero
    always = kind_rates({"hypernym": (30, 0)})["hypernym"]
    assert always.from_team and always.rate > 0.5
    state = ItemLanguage("x", "IT", prepopulated=True)
    offered = [related("nesso", "hyponym", "wn:1n"), related("entità", "hypernym", "wn:2n")]
    assert [s.text for s in rank_suggestions(state, "NOUN", [], offered, [], [])] == ["entità", "nesso"]
    rates = {kind: rate.rate for kind, rate in kind_rates({"hypernym": (0, 60), "hyponym": (30, 2)}).items()}
    assert [s.text for s in rank_suggestions(state, "NOUN", [], offered, [], [], (), rates)] == ["nesso", "entità"]


# --- machine-translation words --------------------------------------------------------------------------------


def test_function_words_come_from_the_package_s_kept_lists() -> None:
    assert {"il", "uno", "di"} <= function_words("IT") and "grappino" not in function_words("IT")
    assert {"der", "und"} <= function_words("DE") and {"и", "в"} <= function_words("RU")
    assert is_function_word("ZH", "的") and is_function_word("ZH", "这是") and is_function_word("ZH", "一个")
    assert not is_function_word("ZH", "烈酒") and not is_function_word("XX", "the")  # no list: nothing left out


def test_function_words_markup_punctuation_and_digits_are_not_suggested() -> None:
    words = (
        ("这是", "这是", None), ("一个", "一个", None), ("的", "的", None), ("烈酒", "烈酒", None), ("42", "42", None),
        ("b", "b", None), ("span", "span", None), ("amp", "amp", None), ("——", "——", None), ("酒2", "酒2", None),
    )  # fmt: skip
    missed = [MissTranslation("sysA", '这是一个<span class="x">烈酒</span>的 &amp; 42', words)]
    found = mt_suggestions(missed, "NOUN", function_word=lambda word: is_function_word("ZH", word))
    assert [s.text for s in found] == ["烈酒"]
    tagged = (("versò", "versare", "VERB"), ("un", "uno", "DET"), ("grappino", "grappino", "NOUN"),
              ("forte", "forte", "ADJ"), ("<i>", "<i>", "X"))  # fmt: skip
    missed = [MissTranslation("sysB", "Versò un <i>grappino</i> forte.", tagged)]
    found = mt_suggestions(missed, "NOUN", function_word=lambda word: is_function_word("IT", word))
    assert [s.text for s in found] == ["grappino", "[versare]_VERB", "[forte]_ADJ"]  # other PoS: tagged, after


@both
def test_markup_and_function_words_of_a_miss_translation_are_not_suggested(wn_project: Project, tmp_path: Path) -> None:
    translations = tmp_path / "mt.jsonl"
    line = {"id": "a1", "lang": "IT", "system": "sysM", "translation": "Il <b>grappino</b> &amp; uno di 42 anni."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["jobs", "start", "evaluate", "--data", str(wn_project.data_dir), "--current", "--translations",
                 str(translations), "--out", str(tmp_path / "out"), "--wait"]) == 0  # fmt: skip
    mt = [s.text for s in card_view(wn_project, "a1", "IT").suggestions if s.source == "mt"]
    assert "grappino" in mt
    assert not {"il", "uno", "di", "b", "amp", "42", "&", "<b>"} & {candidate_key(text) for text in mt}


@both
def test_an_evaluation_run_from_the_command_line_feeds_mt_suggestions(wn_project: Project, tmp_path: Path) -> None:
    translations = tmp_path / "mt.jsonl"
    line = {"id": "a1", "lang": "IT", "system": "sysCLI", "translation": "Versò un grappino."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert not [s for s in card_view(wn_project, "a1", "IT").suggestions if s.source == "mt"]
    data = str(wn_project.data_dir)
    assert main(["jobs", "start", "evaluate", "--data", data, "--current", "--translations", str(translations),
                 "--wait"]) == 0  # fmt: skip
    with wn_project.db.read() as conn:
        job = wn_project.repo.list_jobs(conn, limit=1, kinds=[JobKind.EVALUATE])[0]
        assert job.state is JobState.DONE and not job.params.get("page")
        assert wn_project.repo.get_meta(conn, MT_MARKER) == job.id  # read by the job itself
    found = {s.text: s for s in card_view(wn_project, "a1", "IT").suggestions}
    assert found["grappino"].source == "mt" and found["grappino"].relation == "MISS translation: sysCLI"
    assert miss_translations(wn_project, "a1", "IT") == [("sysCLI", "Versò un grappino.")]
    # a second evaluation (another system) adds its words; the first one's are still offered
    line = {"id": "a1", "lang": "IT", "system": "sysTwo", "translation": "Versò un bicchierino."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["jobs", "start", "evaluate", "--data", data, "--current", "--translations", str(translations),
                 "--out", str(tmp_path / "second"), "--wait"]) == 0  # fmt: skip
    texts = [s.text for s in card_view(wn_project, "a1", "IT").suggestions if s.source == "mt"]
    assert "grappino" in texts and "bicchierino" in texts


# --- the team's decisions ---------------------------------------------------------------------------------------


@both
def test_the_ranking_uses_the_team_s_acceptance_per_kind(wn_project: Project, write_jsonl) -> None:
    """Ten accepted cross-PoS derivations (then taken out again) lift that kind above the hypernym on another item;
    the Project page's table shows the kind's decisions and the rate used."""
    more = [{"id": f"b{n}", "sentence": "A shot of rum.", "target": "shot", "lemma": "shot", "pos": "NOUN",
             "synset": DRINK, "source": "t"} for n in range(10)]  # fmt: skip
    import_items(wn_project, write_jsonl("more.jsonl", more))
    prepopulate(wn_project)
    before = [s.text for s in card_view(wn_project, "a1", "IT").suggestions]
    assert before.index("bevanda") < before.index("[sorseggiare]_VERB")
    service = CurationService(wn_project, person(wn_project, "ivo"))
    for n in range(10):
        address = Address(f"b{n}", "IT")
        service.handle(address, AcceptSuggestion(Side.GOOD, "[sorseggiare]_VERB"), version(wn_project, f"b{n}"))
        key = candidate_key("[sorseggiare]_VERB")
        service.handle(address, RemoveCandidate(key), version(wn_project, f"b{n}"))  # kept out of the team part
    table = {rate.kind: rate for rate in suggestion_kinds(wn_project, fresh=True)}
    assert table["derivation, other PoS"].accepted == 10 and table["derivation, other PoS"].from_team
    assert table["derivation, other PoS"].rate > table["hypernym"].rate
    card = card_view(wn_project, "a1", "IT")
    after = [s.text for s in card.suggestions]
    assert after.index("[sorseggiare]_VERB") < after.index("bevanda")
    assert card.shown_first == min(SHOWN_FIRST, len(card.suggestions))
    assert {s.synset for s in card.suggestions} >= {SIP, BEVERAGE}


@both
def test_the_project_page_shows_the_rate_each_kind_of_suggestion_is_ranked_by(wn_project: Project, monkeypatch) -> None:
    from app_helpers import logged_in

    from annotator.domain.commands import Address, DismissSuggestion
    from annotator.domain.model import Side
    from annotator.services.curation import CurationService

    ivo = person(wn_project, "ivo")
    for n in range(12):  # a dozen dismissals of the hypernym, each by its own translator
        translator = CurationService(wn_project, person(wn_project, f"t{n}") if n else ivo)
        translator.handle(Address("a1", "IT"), DismissSuggestion(Side.GOOD, "bevanda"))
    monkeypatch.setenv("ANNOTATOR_DATA", str(wn_project.data_dir))
    suggestion_kinds(wn_project, fresh=True)
    at = logged_in("lena", "lena-password-long")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    table = next(df.value for df in at.dataframe if "kind of suggestion" in df.value.columns)
    rows = {row["kind of suggestion"]: row for row in table.to_dict("records")}
    hypernym = rows["hypernym"]
    assert (hypernym["accepted"], hypernym["dismissed"]) == (0, 12) and hypernym["ranked by"] == "the team's rate"
    assert hypernym["rate used (%)"] < hypernym["measured (%)"]
    assert rows["hyponym"]["ranked by"] == "measured" and rows["hyponym"]["dismissed"] == 0
