"""G0/B0 from the prepared Λ_L of a lemma's senses, and their stored encoding written without candidate objects."""

from __future__ import annotations

from annotator.domain.candidates import CandidateError, key_string, parse_candidate
from annotator.domain.model import CandidateEntry, Origin, SenseEntry
from annotator.domain.prepopulation import (
    LexiconCandidate,
    candidate_text,
    distinct_spellings,
    initial_lists,
    initial_sets,
    prepare_lemmas,
    prepare_spellings,
)
from annotator.store.item_languages import candidates_to_json
from annotator.store.prepopulation import lexicon_list_json

SENSES = [
    SenseEntry(synset="bn:1", rank=1, gloss="first", wordnet_sense_number=1),
    SenseEntry(synset="bn:2", rank=2, gloss="second", wordnet_sense_number=2),
    SenseEntry(synset="bn:3", rank=3, gloss="third", wordnet_sense_number=3),
]
LEXICALIZATIONS = {
    "bn:1": ["Schuss", "Glas [x]", "Zug"],  # "Glas [x]": brackets, not a candidate
    "bn:2": ["zug", "Schlag", "Treffer"],  # "zug": the same word as σ1's "Zug"
    "bn:3": ["Treffer", "Stoß", "Glas [x]"],
    "bn:9": ["Neun"],  # a target outside Ω(λ)
}


PREPARED = {synset: prepare_lemmas(lemmas) for synset, lemmas in LEXICALIZATIONS.items()}


def test_good_bad_overlaps_and_skipped_for_each_sense() -> None:
    first = initial_lists("bn:1", SENSES, PREPARED)
    assert first.good == (LexiconCandidate("Schuss", ("bn:1",)), LexiconCandidate("Zug", ("bn:1", "bn:2")))
    assert first.bad == (
        LexiconCandidate("Schlag", ("bn:2",)),
        LexiconCandidate("Treffer", ("bn:2", "bn:3")),
        LexiconCandidate("Stoß", ("bn:3",)),
    )
    assert first.overlaps == ("Zug: also a lexicalization of bn:2 (sense 2); kept in GOOD — decide",)
    assert first.skipped == ("Glas [x]", "Glas [x]")

    third = initial_lists("bn:3", SENSES, PREPARED)
    assert [c.text for c in third.good] == ["Treffer", "Stoß"]
    assert third.good[0].synsets == ("bn:3", "bn:2")
    assert [(c.text, c.synsets) for c in third.bad] == [
        ("Schuss", ("bn:1",)),
        ("Zug", ("bn:1", "bn:2")),  # the first spelling met, standing for both senses
        ("Schlag", ("bn:2",)),
    ]

    outside = initial_lists("bn:9", SENSES, PREPARED)
    assert [c.text for c in outside.good] == ["Neun"]
    assert [c.text for c in outside.bad] == ["Schuss", "Zug", "Schlag", "Treffer", "Stoß"]


def test_initial_sets_hold_the_same_lists_as_candidate_objects() -> None:
    sets = initial_sets("bn:2", SENSES, LEXICALIZATIONS)
    lists = initial_lists("bn:2", SENSES, PREPARED)
    assert sets.good == tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.good)
    assert sets.bad == tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.bad)
    assert (sets.overlaps, sets.skipped) == (lists.overlaps, lists.skipped)
    assert sets.overlaps and sets.skipped


def test_the_stored_list_is_written_as_candidates_to_json_writes_it() -> None:
    candidates = (
        LexiconCandidate('say "when"', ("bn:00000001n",)),
        LexiconCandidate("Stoß \\ 打", ("bn:1", "bn:2", "bn:3")),
        LexiconCandidate("a * b", ()),
    )
    fragments: dict[LexiconCandidate, str] = {}
    expected = candidates_to_json([CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in candidates])
    assert lexicon_list_json(candidates, fragments) == expected
    assert len(fragments) == 3
    assert lexicon_list_json(candidates[1:], fragments) == candidates_to_json(
        [CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in candidates[1:]]
    )
    assert lexicon_list_json((), fragments) == candidates_to_json([]) == "[]"


def test_a_lexicon_lemma_gives_the_candidate_the_parser_gives() -> None:
    """Plain spellings skip the parse: every lemma still gets exactly the parser's text, or None when refused."""
    lemmas = [
        "Schuss", "colpo di fucile", "Stoß", "слово", "打", "  padded  ", "two  spaces", "tab\there", "a * b", "*",
        "a *", "[sparare]_VERB", "Glas [x]", "x" * 100, "x" * 101, "", " ", "zero\u200bwidth", "soft\u00adhyphen",
        "e\u0301", "nbsp\u00a0here", "del\x7f", "it's", "O'Brien", "\\", "say \"when\"", "~!@#$%^&()_+{}|:<>?",
    ]  # fmt: skip
    for lemma in lemmas:
        try:
            expected: str | None = parse_candidate(lemma).text
        except CandidateError:
            expected = None
        assert candidate_text(lemma) == expected, lemma
    texts: dict[str, str | None] = {}
    assert prepare_lemmas(["Zug", "zug", "Glas [x]"], texts) == (
        ("Zug", "zug", "Zug"), ("zug", "zug", "zug"), ("Glas [x]", "glas [x]", None),
    )  # fmt: skip
    assert texts == {"Zug": "Zug", "zug": "zug", "Glas [x]": None}


def test_a_prepared_lemma_s_identity_is_its_key_string_ascii_or_not() -> None:
    lemmas = ["Zug", "STRASSE", "Straße", "ÉCOLE", "e\u0301cole", "İstanbul", "Ǆungla", "ﬁsh", "a_b  C"]
    assert [key for _lemma, key, _text in prepare_lemmas(lemmas)] == [key_string(lemma, None) for lemma in lemmas]


def test_prepared_spellings_equal_the_distinct_spellings_prepared_and_keep_each_parse() -> None:
    lemmas = [
        "Zug", "zug", "a_b  C", "A B c", "Glas [x]", "ÉCOLE", "e\u0301cole", "école", "Straße", "STRASSE", "ﬁsh",
        "x" * 100, "x" * 101, "tab\there", "a * b", " padded_ ", "O'Brien", "слово", "打", "[sparare]_VERB",
    ]  # fmt: skip
    known: dict[str, tuple[str, str, str | None]] = {}
    expected = prepare_lemmas(distinct_spellings(lemmas))
    assert prepare_spellings(lemmas, known) == expected
    # the spellings that need a parse are kept (printable ASCII without brackets or wildcard is its own candidate)
    needing_a_parse = {"Glas [x]", "ÉCOLE", "e\u0301cole", "école", "Straße", "ﬁsh", "x" * 101, "a * b", "слово", "打"}
    assert set(known) == needing_a_parse | {"[sparare] VERB"}
    assert known["a * b"] == ("a * b", "a * b", "a * b") and known["Glas [x]"][2] is None
    assert prepare_spellings(reversed(lemmas), known) == prepare_lemmas(distinct_spellings(reversed(lemmas)))
    assert prepare_spellings(["zug", "Zug"], known) == (("zug", "zug", "zug"),)  # the first spelling of an identity
