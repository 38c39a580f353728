"""Agreement figures (issue 11) on a hand-built case, with the arithmetic in the comments; α cross-checked
against the ``krippendorff`` package."""

from __future__ import annotations

import math
import random

import krippendorff
import pytest

from annotator.domain.agreement import (
    AlphaAccumulator,
    CopyRecord,
    agreement_report,
    format_figure,
)
from annotator.domain.candidates import key_string


def k(text: str, pos: str | None = None) -> str:
    return key_string(text, pos)


def rec(item: str, who: str, decision: str, good=(), bad=(), pre=(), lang: str = "IT") -> CopyRecord:
    return CopyRecord(item, lang, who, decision, frozenset(good), frozenset(bad), frozenset(pre))


def hand_built() -> list[CopyRecord]:
    # i1: G0 = {goccio, bicchierino}, B0 = {sparo}. A case-only difference: "Cicchetto" / "cicchetto" are one
    #     candidate (SPEC §3 identity), so the GOOD sets are equal.
    i1_pre = (k("goccio"), k("bicchierino"), k("sparo"))
    # i2: G0 = {colpo}. A cross-PoS candidate: [tirare]_VERB and tirare are two different candidates.
    # i3: both GOOD sets empty (the pure functions accept it; the workflow would ask for a discard).
    return [
        rec("i1", "ana", "done", [k("goccio"), k("Cicchetto")], [k("sparo"), k("bicchierino")], i1_pre),
        rec("i1", "ben", "done", [k("goccio"), k("cicchetto")], [k("sparo")], i1_pre),
        rec("i2", "ana", "done", [k("tirare", "VERB")], [k("colpo")], [k("colpo")]),
        rec("i2", "ben", "done", [k("tirare")], [k("colpo")], [k("colpo")]),
        rec("i3", "ana", "done", [], [k("ombra")], [k("ombra")]),
        rec("i3", "ben", "done", [], [], [k("ombra")]),
        rec("i4", "ana", "discarded"),
        rec("i4", "ben", "done", [k("x")], [], [k("x")]),
        rec("i5", "ana", "discuss"),
        rec("i5", "ben", "discuss"),
        # i6: ben has not finished: not compared at all
        rec("i6", "ana", "done", [k("y")], [], [k("y")]),
        rec("i6", "ben", "in_progress", [], [], [k("y")]),
    ]


def test_hand_built_case() -> None:
    report = agreement_report(hand_built(), ["IT", "DE"])
    it = report.languages["IT"]
    # compared: i1..i5 (i6 unfinished); decisions equal in i1, i2, i3, i5; i4 discarded vs done → 4 / 5
    assert report.compared == [("i1", "IT"), ("i2", "IT"), ("i3", "IT"), ("i4", "IT"), ("i5", "IT")]
    assert (it.decision_pairs, it.decision_agree) == (5, 4)
    assert it.decision_agreement == pytest.approx(0.8)
    # sets over the done/done pairs i1, i2, i3 → 3
    # exact GOOD: i1 {goccio, cicchetto} = {goccio, cicchetto} yes; i2 {[tirare]_VERB} ≠ {tirare}; i3 {} = {} yes → 2/3
    assert (it.set_pairs, it.exact_good) == (3, 2)
    assert it.exact_good_agreement == pytest.approx(2 / 3)
    # Jaccard GOOD: i1 1, i2 0/2 = 0, i3 two empty sets = 1 → 2/3
    assert it.mean_jaccard_good == pytest.approx(2 / 3)
    # Jaccard BAD: i1 {sparo, bicchierino} vs {sparo} = 1/2, i2 {colpo} = {colpo} 1, i3 {ombra} vs {} 0 → 1.5/3
    assert it.mean_jaccard_bad == pytest.approx(0.5)
    # pre-populated units: i1 goccio G/G ✓, bicchierino B/none ✗, sparo B/B ✓; i2 colpo B/B ✓; i3 ombra B/none ✗
    # → 3 of 5
    assert (it.prepopulated_units, it.prepopulated_agree) == (5, 3)
    assert it.prepopulated_agreement == pytest.approx(0.6)
    # added units: i1 cicchetto G/G ✓; i2 [tirare]_VERB G/none ✗, tirare none/G ✗ → 1 of 3
    assert (it.added_units, it.added_agree) == (3, 1)
    assert it.added_agreement == pytest.approx(1 / 3)
    # α over the 8 units: values G: goccio 2 + cicchetto 2 + [tirare]_VERB 1 + tirare 1 = 6;
    # B: bicchierino 1 + sparo 2 + colpo 2 + ombra 1 = 6; none: bicchierino, [tirare]_VERB, tirare, ombra = 4; n = 16
    # D_o-sum: 4 disagreeing units × (2² − 1 − 1)/(2 − 1) = 8; n² − Σ n_c² = 256 − 36 − 36 − 16 = 168
    # α = 1 − (n − 1)·8/168 = 1 − 120/168 = 2/7
    assert it.alpha_units == 8
    assert it.alpha == pytest.approx(2 / 7)
    # the same figures for the one pair and overall; DE has no data: every figure n/a (None), never 0
    assert report.pairs[("IT", "ana", "ben")].to_json() == it.to_json()
    assert report.overall.to_json() == it.to_json()
    de = report.languages["DE"].to_json()
    assert all(de[name] is None for name in de if not name.endswith(("pairs", "units")))
    assert format_figure(report.languages["DE"].alpha, percent=False) == "n/a"
    # disagreeing item-languages: i2, i3 (sets) and i4 (decision); i1 differs in BAD (bicchierino) too
    assert report.disagreeing == [("i1", "IT"), ("i2", "IT"), ("i3", "IT"), ("i4", "IT")]


def test_alpha_matches_the_krippendorff_package_on_the_hand_built_case() -> None:
    code = {"good": 0, "bad": 1, "none": 2}
    ana = ["good", "bad", "bad", "good", "bad", "good", "none", "bad"]
    ben = ["good", "none", "bad", "good", "bad", "none", "good", "none"]
    expected = krippendorff.alpha(
        reliability_data=[[code[v] for v in ana], [code[v] for v in ben]], level_of_measurement="nominal"
    )
    assert expected == pytest.approx(2 / 7)
    assert agreement_report(hand_built()).languages["IT"].alpha == pytest.approx(expected)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_alpha_matches_the_package_on_random_data_with_missing_values() -> None:
    rng = random.Random(11)
    for _ in range(40):
        coders, units = rng.randint(2, 4), rng.randint(3, 30)
        data = [[rng.choice([0, 1, 2, math.nan, math.nan]) for _ in range(units)] for _ in range(coders)]
        ours = AlphaAccumulator()
        for u in range(units):
            ours.add([str(row[u]) for row in data if not math.isnan(row[u])])
        try:
            theirs = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        except ValueError:  # the package refuses data with one value only; ours says n/a
            assert ours.alpha is None
            continue
        if math.isnan(theirs):
            assert ours.alpha is None
        else:
            assert ours.alpha == pytest.approx(theirs)


def test_three_translators_language_alpha_uses_every_value_of_a_unit() -> None:
    pre = [k("a")]
    copies = [
        rec("i1", "ana", "done", [k("a")], [], pre),
        rec("i1", "ben", "done", [k("a")], [], pre),
        rec("i1", "cai", "done", [], [k("a")], pre),
        rec("i2", "ana", "done", [k("b")], [], [k("b")]),
        rec("i2", "ben", "done", [], [k("b")], [k("b")]),
        rec("i2", "cai", "done", [k("b")], [], [k("b")]),
        # i3 has only two copies: one unit (B, G) with no value from cai
        rec("i3", "ana", "done", [], [k("c")], [k("c")]),
        rec("i3", "ben", "done", [k("c")], [], [k("c")]),
    ]
    report = agreement_report(copies)
    it = report.languages["IT"]
    # two units of three values each: (G, G, B) and (G, B, G), and (B, G, –)
    nan = math.nan
    theirs = krippendorff.alpha(reliability_data=[[0, 0, 1], [0, 1, 0], [1, 0, nan]], level_of_measurement="nominal")
    assert it.alpha_units == 3
    assert it.alpha == pytest.approx(theirs)
    # three pairs per item-language: ana-ben, ana-cai, ben-cai → 6 decision pairs, all done
    assert sorted(report.pairs) == [("IT", "ana", "ben"), ("IT", "ana", "cai"), ("IT", "ben", "cai")]
    assert it.set_pairs == 7
    # exact GOOD: i1 ana=ben only; i2 ana=cai only; i3 no → 2 of 7
    assert it.exact_good == 2


def test_one_category_only_has_no_alpha() -> None:
    # every unit GOOD for both: no variation, α undefined → n/a (not 1, not 0)
    copies = [rec("i1", "ana", "done", [k("a")], [], [k("a")]), rec("i1", "ben", "done", [k("a")], [], [k("a")])]
    it = agreement_report(copies).languages["IT"]
    assert it.alpha is None and it.alpha_units == 1
    assert it.prepopulated_agreement == 1.0
    assert it.added_agreement is None  # no added candidate: n/a
