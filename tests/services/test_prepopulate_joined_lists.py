"""G0/B0 joined from each synset's list part are exactly what ``initial_lists`` derives and encodes, and the join
is used only where it can be: σ among Ω(λ), no lemma identity shared by two senses, every lemma a valid candidate."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.domain.model import Item, Target
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.services.prepopulate_lexicon import EncodedSets, SenseInventory

LANGS = ("DE", "IT")
DECOMPOSED_E = "e\u0301"  # "é" as two code points: the same candidate identity as "\u00e9"


def _synset(synset_id: str, lemma: str, number: int, de: list[str], it: list[str]) -> dict[str, Any]:
    senses = [{"lemma": lemma, "lang": "EN", "source": "WN", "wordnet_sense_number": number}]
    senses += [{"lemma": text, "lang": "DE", "source": "WIKT"} for text in de]
    senses += [{"lemma": text, "lang": "IT", "source": "OMWN_IT"} for text in it]
    return {"id": synset_id, "pos": "NOUN", "glosses": {"EN": f"{lemma} {number}"}, "senses": senses}


def _lexicon() -> SnapshotLexicon:
    synsets = [
        # "plain": no lemma shared between senses (DE has an empty sense; IT one with a multiword and an apostrophe)
        _synset("bn:1n", "plain", 1, ["Bank", "Ufer"], ["riva", "sponda d'acqua"]),
        _synset("bn:2n", "plain", 2, ["Geldinstitut"], ["banca", "istituto"]),
        _synset("bn:3n", "plain", 3, [], ["banco"]),
        # "shared": "Schuss" (and "Tiro"/"tiro") stand for two senses: overlaps
        _synset("bn:4n", "shared", 1, ["Schuss", "Knall"], ["tiro"]),
        _synset("bn:5n", "shared", 2, ["schuss"], ["Tiro", "colpo"]),
        # "bad": a lemma that is no valid candidate ("[" opens a tag)
        _synset("bn:6n", "bad", 1, ["gut"], ["buono"]),
        _synset("bn:7n", "bad", 2, ["[kaputt"], ["rotto ]"]),
        # "twins": one synset holds two spellings of one identity (composed and decomposed é)
        _synset("bn:8n", "twins", 1, ["Caf\u00e9", f"Caf{DECOMPOSED_E}"], ["caff\u00e8"]),
        _synset("bn:9n", "twins", 2, ["Kneipe"], ["bar"]),
        # a synset no lemma entry of the items' lemmas lists (σ outside Ω(λ))
        _synset("bn:10n", "stranger", 1, ["fremd"], ["estraneo"]),
    ]
    lemmas = [
        {"lemma": lemma, "lang": "EN", "pos": "NOUN", "synsets": ids}
        for lemma, ids in (
            ("plain", ["bn:1n", "bn:2n", "bn:3n"]),
            ("shared", ["bn:4n", "bn:5n"]),
            ("bad", ["bn:6n", "bn:7n"]),
            ("twins", ["bn:8n", "bn:9n"]),
        )
    ]
    data = {
        "format": "annotator-lexicon-snapshot", "format_version": 1, "label": "joined lists test",
        "provider": "test", "version": "1", "lemmas": lemmas, "synsets": synsets,
    }  # fmt: skip
    return SnapshotLexicon.from_data(data, origin="joined-lists")


def _item(lemma: str, synset: str) -> Item:
    return Item(f"{lemma}-{synset}", f"A {lemma}.", Target(lemma, 2, 2 + len(lemma), lemma, "NOUN"), synset)


#: (λ, σ, whether G0/B0 are joined in DE and in IT)
CASES = [
    ("plain", "bn:1n", (True, True)),
    ("plain", "bn:2n", (True, True)),
    ("plain", "bn:3n", (True, True)),
    ("shared", "bn:4n", (False, False)),
    ("shared", "bn:5n", (False, False)),
    ("bad", "bn:6n", (False, False)),
    ("bad", "bn:7n", (False, False)),
    ("twins", "bn:8n", (False, True)),  # only the German lemmas are twins
    ("twins", "bn:9n", (False, True)),
    ("plain", "bn:10n", (False, False)),
]


@pytest.mark.parametrize(("lemma", "synset", "joined"), CASES)
def test_joined_lists_equal_the_derived_ones(lemma: str, synset: str, joined: tuple[bool, bool]) -> None:
    inventory = SenseInventory(_lexicon(), LANGS)
    item = _item(lemma, synset)
    senses = inventory.senses(lemma, "NOUN")
    allowed = lambda source: True  # noqa: E731
    for lang, expected in zip(LANGS, joined, strict=True):
        derived = EncodedSets.of(inventory.initial_sets(item, senses, lang, allowed))
        assert (inventory.joined_sets(item, senses, lang, allowed) is not None) is expected
        assert inventory.encoded_sets(item, senses, lang, allowed) == derived


def test_a_joined_list_is_the_stored_text_of_its_candidates() -> None:
    inventory = SenseInventory(_lexicon(), LANGS)
    item = _item("plain", "bn:2n")
    senses = inventory.senses("plain", "NOUN")
    sets = inventory.joined_sets(item, senses, "IT", lambda source: True)
    assert sets is not None
    assert sets.good == '[{"l":["bn:2n"],"text":"banca"},{"l":["bn:2n"],"text":"istituto"}]'
    assert sets.bad == (
        '[{"l":["bn:1n"],"text":"riva"},{"l":["bn:1n"],"text":"sponda d\'acqua"},{"l":["bn:3n"],"text":"banco"}]'
    )
    assert (sets.good_count, sets.bad_count, sets.overlaps, sets.skipped) == (2, 3, (), ())
    only_de = inventory.joined_sets(_item("plain", "bn:3n"), senses, "DE", lambda source: True)
    assert only_de is not None and (only_de.good, only_de.good_count) == ("[]", 0)
