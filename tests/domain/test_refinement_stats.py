"""Refinement statistics (SPEC §6, DiBiMT Table 2) on data small enough to work out by hand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from refinement_records import records_from_states

from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Status
from annotator.domain.refinement_stats import (
    RefinementRecord,
    format_value,
    jaccard,
    mean_of,
    refinement_table,
)


def entries(*texts: str) -> tuple[CandidateEntry, ...]:
    """``"[bere]_VERB"`` becomes a cross-PoS entry (text ``bere``, tag VERB), anything else a plain lemma."""
    out = []
    for text in texts:
        if text.startswith("["):
            inner, tag = text[1:].split("]_")
            out.append(CandidateEntry(inner, tag, Origin.LEXICON))
        else:
            out.append(CandidateEntry(text, None, Origin.LEXICON))
    return tuple(out)


def state(item: str, lang: str, g0: tuple[str, ...], gf: tuple[str, ...], status: Status = Status.DONE) -> ItemLanguage:
    return ItemLanguage(item, lang, status, 3, good=entries(*gf), initial_good=entries(*g0))


# The hand-worked dataset. σ of each item:
SYNSET = {"A": "S1", "B": "S1", "C": "S1", "D": "S2", "E": "S2", "F": "S3", "G": "S1", "H": "S4"}
STATES = [
    # IT ------------------------------------------------------------------------------------------------
    # A: G0 {goccio, bicchierino} → Gf {Goccio, cicchetto}. "Goccio" is goccio (case only: same candidate);
    #    bicchierino removed, cicchetto added.             |Gf| 2, added 1;  |G0| 2, removed 1.
    state("A", "IT", ("goccio", "bicchierino"), ("Goccio", "cicchetto")),
    # B: empty G0 → Gf {goccio, cicchetto}.                |Gf| 2, added 2;  |G0| 0, removed 0.
    state("B", "IT", (), ("goccio", "cicchetto")),
    # C: G0 {goccio, bere} → Gf {goccio, [bere]_VERB}. The cross-PoS [bere]_VERB is not the plain bere
    #    (identity = text + tag): bere removed, [bere]_VERB added.   |Gf| 2, added 1;  |G0| 2, removed 1.
    state("C", "IT", ("goccio", "bere"), ("goccio", "[bere]_VERB")),
    # D: G0 = Gf = {fonte, sorgente}.                      |Gf| 2, added 0;  |G0| 2, removed 0.
    state("D", "IT", ("fonte", "sorgente"), ("fonte", "sorgente")),
    # E: G0 {fonte, sorgente} → Gf {Fonte, sorgente} (case only: nothing changed). |Gf| 2, added 0; |G0| 2, removed 0.
    state("E", "IT", ("fonte", "sorgente"), ("Fonte", "sorgente")),
    # F: in progress and G: discarded — not done, so not counted (they would change every figure).
    state("F", "IT", ("x",), ("y", "z"), Status.IN_PROGRESS),
    state("G", "IT", ("goccio",), ("sparo",), Status.DISCARDED),
    # DE ------------------------------------------------------------------------------------------------
    # A: G0 {Schuss} → Gf {Schuss, Schlückchen}.           |Gf| 2, added 1;  |G0| 1, removed 0.  No pairs.
    state("A", "DE", ("Schuss",), ("Schuss", "Schlückchen")),
    # ES: only a pending item-language → every ES statistic is n/a.
    state("H", "ES", ("trago",), ("trago",), Status.PENDING),
]
# IT sums over A–E:  Σ|Gf| = 2+2+2+2+2 = 10, Σ|Gf \ G0| = 1+2+1+0+0 = 4  →  % added   = 100·4/10 = 40.0
#                    Σ|G0| = 2+0+2+2+2 = 8,  Σ|G0 \ Gf| = 1+0+1+0+0 = 2  →  % removed = 100·2/8  = 25.0
# IT same-synset pairs: S1 {A, B, C} gives A–B, A–C, B–C; S2 {D, E} gives D–E: 4 pairs.
#   A–B: {goccio, cicchetto} = {goccio, cicchetto}           identical, Jaccard 1
#   A–C: {goccio, cicchetto} vs {goccio, [bere]_VERB}        ∩ 1, ∪ 3,  Jaccard 1/3
#   B–C: the same sets as A–C                                Jaccard 1/3
#   D–E: {fonte, sorgente} = {Fonte, sorgente} (case only)   identical, Jaccard 1
#   → % shared = 100·2/4 = 50.0;  mean Jaccard = (1 + 1/3 + 1/3 + 1)/4 = 2/3
# DE: % added = 100·1/2 = 50.0; % removed = 100·0/1 = 0.0 (a real 0, not n/a); no pairs → % shared n/a.
# Mean (unweighted over the languages that have a value; ES n/a everywhere is left out, not counted as 0):
#   % added (40 + 50)/2 = 45.0;  % removed (25 + 0)/2 = 12.5;  % shared 50.0 (IT only);  Jaccard 2/3 (IT only).


def table():
    return refinement_table(records_from_states(STATES, SYNSET), ["DE", "ES", "IT"])


def test_hand_worked_example_per_language() -> None:
    it = table().row("IT")
    assert (it.item_languages, it.final_good, it.added, it.initial_good, it.removed) == (5, 10, 4, 8, 2)
    assert it.added_pct == pytest.approx(40.0)
    assert it.removed_pct == pytest.approx(25.0)
    assert (it.pairs, it.identical_pairs) == (4, 2)
    assert it.shared_pct == pytest.approx(50.0)
    assert it.mean_jaccard == pytest.approx(2 / 3)

    de = table().row("DE")
    assert de.added_pct == pytest.approx(50.0)
    assert de.removed_pct == 0.0
    assert de.shared_pct is None and de.mean_jaccard is None and de.pairs == 0

    es = table().row("ES")
    assert es.item_languages == 0
    assert (es.added_pct, es.removed_pct, es.shared_pct, es.mean_jaccard) == (None, None, None, None)


def test_hand_worked_example_mean_row() -> None:
    mean = table().mean
    assert mean["added_pct"] == pytest.approx(45.0)
    assert mean["removed_pct"] == pytest.approx(12.5)
    assert mean["shared_pct"] == pytest.approx(50.0)
    assert mean["mean_jaccard"] == pytest.approx(2 / 3)


def test_na_is_not_zero_when_shown() -> None:
    assert format_value(table().row("ES").added_pct) == "n/a"
    assert format_value(table().row("DE").removed_pct) == "0.0"
    assert format_value(2 / 3, 3) == "0.667"
    json = table().to_json()
    assert json["languages"]["ES"]["added_pct"] is None
    assert json["languages"]["DE"]["removed_pct"] == 0.0


def test_mean_row_reproduces_dibimt_table_2() -> None:
    # The paper's Table 2: %OG, %RG, %SL per language and their Mean row.
    og = [50.9, 49.6, 49.1, 67.4, 55.2]
    rg = [25.0, 19.5, 38.2, 57.3, 69.0]
    sl = [59.7, 47.7, 67.1, 54.4, 46.3]
    assert format_value(mean_of(og)) == "54.4"
    assert format_value(mean_of(rg)) == "41.8"
    assert format_value(mean_of(sl)) == "55.0"
    assert mean_of([None, None]) is None


def test_pairs_are_unordered_pairs_of_distinct_items() -> None:
    # Three items with the same σ give 3 pairs, not 6 or 9; an item listed twice counts once.
    records = [RefinementRecord(i, "IT", "S", frozenset({"a"}), frozenset({"a"})) for i in ("x", "y", "z", "x")]
    row = refinement_table(records, ["IT"]).row("IT")
    assert (row.item_languages, row.pairs, row.identical_pairs) == (3, 3, 3)
    assert row.shared_pct == 100.0


def test_languages_outside_the_table_are_ignored() -> None:
    records = [RefinementRecord("x", "FR", "S", frozenset({"a"}), frozenset({"b"}))]
    assert refinement_table(records, ["IT"]).row("IT").item_languages == 0


small_sets = st.frozensets(st.sampled_from(["a", "b", "c", "d"]), max_size=4)


@given(small_sets, small_sets)
def test_jaccard_properties(a: frozenset[str], b: frozenset[str]) -> None:
    value = jaccard(a, b)
    assert 0.0 <= value <= 1.0
    assert value == jaccard(b, a)
    assert (value == 1.0) == (a == b)


@given(st.lists(st.tuples(small_sets, small_sets), max_size=8))
def test_percentages_stay_in_range_and_match_their_sums(pairs: list[tuple[frozenset[str], frozenset[str]]]) -> None:
    records = [RefinementRecord(f"i{n}", "IT", f"S{n % 2}", g0, gf) for n, (g0, gf) in enumerate(pairs)]
    row = refinement_table(records, ["IT"]).row("IT")
    for value in (row.added_pct, row.removed_pct, row.shared_pct):
        assert value is None or 0.0 <= value <= 100.0
    assert (row.added_pct is None) == (sum(len(gf) for _, gf in pairs) == 0)
    assert (row.removed_pct is None) == (sum(len(g0) for g0, _ in pairs) == 0)
