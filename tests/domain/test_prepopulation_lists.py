"""G0/B0 from a lemma's sense table, and their stored encoding written without building candidate objects."""

from __future__ import annotations

from annotator.domain.model import CandidateEntry, Origin, SenseEntry
from annotator.domain.prepopulation import LexiconCandidate, SenseTable, initial_lists, initial_sets
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


def test_good_bad_overlaps_and_skipped_for_each_sense() -> None:
    table = SenseTable(SENSES, LEXICALIZATIONS)
    first = initial_lists("bn:1", table)
    assert first.good == (LexiconCandidate("Schuss", ("bn:1",)), LexiconCandidate("Zug", ("bn:1", "bn:2")))
    assert first.bad == (
        LexiconCandidate("Schlag", ("bn:2",)),
        LexiconCandidate("Treffer", ("bn:2", "bn:3")),
        LexiconCandidate("Stoß", ("bn:3",)),
    )
    assert first.overlaps == ("Zug: also a lexicalization of bn:2 (sense 2); kept in GOOD — decide",)
    assert first.skipped == ("Glas [x]", "Glas [x]")

    third = initial_lists("bn:3", table)
    assert [c.text for c in third.good] == ["Treffer", "Stoß"]
    assert third.good[0].synsets == ("bn:3", "bn:2")
    assert [(c.text, c.synsets) for c in third.bad] == [
        ("Schuss", ("bn:1",)),
        ("Zug", ("bn:1", "bn:2")),  # the first spelling met, standing for both senses
        ("Schlag", ("bn:2",)),
    ]

    outside = initial_lists("bn:9", table)
    assert [c.text for c in outside.good] == ["Neun"]
    assert [c.text for c in outside.bad] == ["Schuss", "Zug", "Schlag", "Treffer", "Stoß"]


def test_initial_sets_hold_the_same_lists_as_candidate_objects() -> None:
    sets = initial_sets("bn:2", SENSES, LEXICALIZATIONS)
    lists = initial_lists("bn:2", SenseTable(SENSES, LEXICALIZATIONS))
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
