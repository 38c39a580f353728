"""Dataset counts (SPEC §6, DiBiMT Table 1): items, distinct lemmas, distinct synsets, for all and per POS."""

from __future__ import annotations

from annotator.domain.dataset_counts import dataset_counts
from annotator.domain.model import Item, Target


def item(item_id: str, lemma: str, pos: str, synset: str) -> Item:
    return Item(item_id, f"A sentence with {lemma}.", Target(lemma, 16, 16 + len(lemma), lemma, pos), synset)


def test_counts_all_nouns_verbs() -> None:
    items = [
        item("shot-1", "shot", "NOUN", "bn:1n"),
        item("shot-2", "Shot", "NOUN", "bn:1n"),  # same lemma (case-folded), same synset
        item("shot-3", "shot", "NOUN", "bn:2n"),
        item("head-1", "head", "NOUN", "bn:3n"),
        item("run-1", "run", "VERB", "bn:4v"),
        item("run-2", "run", "VERB", "bn:5v"),
        item("head-v", "head", "VERB", "bn:6v"),  # head is a noun lemma and a verb lemma
    ]
    counts = dataset_counts(items)
    assert list(counts.columns) == ["all", "NOUN", "VERB"]
    assert counts.to_json() == {
        "all": {"items": 7, "lemmas": 3, "synsets": 6},  # head counts once in "all", as in the paper
        "NOUN": {"items": 4, "lemmas": 2, "synsets": 3},
        "VERB": {"items": 3, "lemmas": 2, "synsets": 3},
    }
    assert counts.rows() == [["items", 7, 4, 3], ["lemmas", 3, 2, 2], ["synsets", 6, 3, 3]]


def test_other_parts_of_speech_get_their_own_columns_when_present() -> None:
    counts = dataset_counts([item("a", "quick", "ADJ", "bn:1a"), item("b", "fast", "ADV", "bn:2r")])
    assert list(counts.columns) == ["all", "NOUN", "VERB", "ADJ", "ADV"]
    assert counts.columns["NOUN"].items == 0
    assert counts.columns["ADJ"].to_json() == {"items": 1, "lemmas": 1, "synsets": 1}


def test_empty_dataset() -> None:
    assert dataset_counts([]).to_json() == {
        "all": {"items": 0, "lemmas": 0, "synsets": 0},
        "NOUN": {"items": 0, "lemmas": 0, "synsets": 0},
        "VERB": {"items": 0, "lemmas": 0, "synsets": 0},
    }
