"""Cross-language consistency (DiBiMT §4.6) worked out by hand: two systems, three languages."""

from __future__ import annotations

from annotator.domain.consistency import (
    SenseChoice,
    choice_from_analysed,
    cross_language_consistency,
)

DRINK, GUNSHOT, PHOTO = "bn:00057755n", "bn:00070966n", "bn:00061931n"


def _choices() -> list[SenseChoice]:
    a = "sys-a"
    b = "sys-b"
    return [
        # sys-a, item 1: DE and IT both pick the drink sense; ES picks the gunshot sense.
        SenseChoice(a, "i1", "DE", (DRINK,)),
        SenseChoice(a, "i1", "IT", (DRINK, PHOTO)),
        SenseChoice(a, "i1", "ES", (GUNSHOT,)),
        # sys-a, item 2: DE gunshot, IT drink, ES's ω was added by a translator (no provenance).
        SenseChoice(a, "i2", "DE", (GUNSHOT,)),
        SenseChoice(a, "i2", "IT", (DRINK,)),
        SenseChoice(a, "i2", "ES", ()),
        # sys-a, item 3: DE and ES only (missing in IT); DE is a MISS.
        SenseChoice(a, "i3", "DE", None),
        SenseChoice(a, "i3", "ES", (PHOTO,)),
        # sys-b, item 1: every language picks the drink sense.
        SenseChoice(b, "i1", "DE", (DRINK,)),
        SenseChoice(b, "i1", "ES", (DRINK,)),
        SenseChoice(b, "i1", "IT", (DRINK,)),
    ]


def _by_pair(system: str) -> dict[tuple[str, str], dict]:
    rows = cross_language_consistency(_choices())
    return {(row.lang1, row.lang2): row.to_dict() for row in rows if row.system == system}


def test_system_a_pairs_worked_by_hand() -> None:
    pairs = _by_pair("sys-a")
    assert set(pairs) == {("DE", "ES"), ("DE", "IT"), ("ES", "IT")}
    # DE–ES: i1 drink vs gunshot → compared, not consistent; i2 gunshot vs () → without provenance;
    # i3 MISS vs photo → unmatched. 0 / 1 = 0 %.
    assert pairs["DE", "ES"] == {
        "system": "sys-a", "lang1": "DE", "lang2": "ES", "percent": 0.0,
        "consistent": 0, "compared": 1, "without_provenance": 1, "unmatched": 1, "missing": 0,
    }  # fmt: skip
    # DE–IT: i1 {drink} ∩ {drink, photo} ≠ ∅ → consistent; i2 gunshot vs drink → not; i3 is only in DE → missing.
    # 1 / 2 = 50 %.
    assert pairs["DE", "IT"]["percent"] == 50.0
    assert (pairs["DE", "IT"]["consistent"], pairs["DE", "IT"]["compared"], pairs["DE", "IT"]["missing"]) == (1, 2, 1)
    # ES–IT: i1 gunshot vs drink → compared, not consistent; i2 () → without provenance; i3 only in ES → missing.
    assert pairs["ES", "IT"]["percent"] == 0.0
    assert (pairs["ES", "IT"]["compared"], pairs["ES", "IT"]["without_provenance"], pairs["ES", "IT"]["missing"]) == (
        1,
        1,
        1,
    )


def test_system_b_is_fully_consistent_and_pairs_are_unordered() -> None:
    pairs = _by_pair("sys-b")
    assert all(row["percent"] == 100.0 and row["compared"] == 1 for row in pairs.values())
    assert _by_pair("sys-a")["DE", "IT"]["percent"] == 50.0
    assert all(lang1 < lang2 for lang1, lang2 in pairs)  # one row per pair, no diagonal


def test_nothing_compared_is_na_never_zero() -> None:
    rows = cross_language_consistency(
        [SenseChoice("s", "i1", "DE", ()), SenseChoice("s", "i1", "IT", (DRINK,)), SenseChoice("s", "i2", "DE", None)]
    )
    assert len(rows) == 1
    assert rows[0].percent is None
    assert (rows[0].without_provenance, rows[0].missing) == (1, 1)


def test_choice_from_an_analysed_line() -> None:
    miss = {"system": "s", "id": "i1", "lang": "DE", "omega": None, "omega_synsets": []}
    added = {"system": "s", "id": "i1", "lang": "DE", "omega": "Schuss", "omega_synsets": []}
    lexicon = {"system": "s", "id": "i1", "lang": "DE", "omega": "Schuss", "omega_synsets": [DRINK]}
    assert choice_from_analysed(miss).synsets is None
    assert choice_from_analysed(added).synsets == ()
    assert choice_from_analysed(lexicon).synsets == (DRINK,)
