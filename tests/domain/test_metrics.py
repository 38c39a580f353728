"""Metrics (SPEC §8) on a hand-built analysed set; every expected number is worked out in the comments."""

from __future__ import annotations

import json

import pytest

from annotator.domain.metrics import (
    ALL,
    GroupedErrorRate,
    Rate,
    ScoredItem,
    compute_metrics,
    compute_row,
    omega_rank,
)


def item(n: int, pos: str, mu: int, delta: int, outcome: str, omega: int | None = None, **kw: str) -> ScoredItem:
    del n  # the number only ties the row to the table in the comments
    return ScoredItem(kw.get("system", "s1"), kw.get("lang", "IT"), pos, outcome, mu, delta, omega)


# System s1, Italian. μ = μ(σ), δ = δ(λ), μ̂ = μ(σ̂) of the BAD ω (None: ω has no provenance in Ω(λ)).
#
#  #   pos   μ  δ  result  μ̂     MFS (μ̂=1)  MFS+ (μ̂<μ)
#  1   NOUN  1  3  GOOD
#  2   NOUN  1  3  BAD     2     no         no
#  3   NOUN  2  3  BAD     1     yes        yes
#  4   NOUN  2  5  GOOD
#  5   NOUN  3  5  BAD     1     yes        yes
#  6   NOUN  3  5  MISS
#  7   VERB  2  4  BAD     None  (left out, counted as "without provenance")
#  8   VERB  3  4  BAD     2     no         yes
#  9   VERB  4  4  GOOD
# 10   VERB  4  4  MISS
# 11   NOUN  5  6  MISS                      (its μ and δ groups have no GOOD/BAD: excluded from SFII/SPDI)
S1_IT = [
    item(1, "NOUN", 1, 3, "GOOD"),
    item(2, "NOUN", 1, 3, "BAD", 2),
    item(3, "NOUN", 2, 3, "BAD", 1),
    item(4, "NOUN", 2, 5, "GOOD"),
    item(5, "NOUN", 3, 5, "BAD", 1),
    item(6, "NOUN", 3, 5, "MISS"),
    item(7, "VERB", 2, 4, "BAD", None),
    item(8, "VERB", 3, 4, "BAD", 2),
    item(9, "VERB", 4, 4, "GOOD"),
    item(10, "VERB", 4, 4, "MISS"),
    item(11, "NOUN", 5, 6, "MISS"),
]
# System s1, Spanish: one GOOD item (12: NOUN, μ=1, δ=3).
S1_ES = [item(12, "NOUN", 1, 3, "GOOD", lang="ES")]
# System s2, Italian: two MISS (13, 14: NOUN, μ=1, δ=3) — every ratio but %MISS has an empty denominator.
S2_IT = [item(13, "NOUN", 1, 3, "MISS", system="s2"), item(14, "NOUN", 1, 3, "MISS", system="s2")]

REPORT = compute_metrics(S1_IT + S1_ES + S2_IT)


def row(system: str, lang: str, pos: str = ALL):
    found = REPORT.get(system, lang, pos)
    assert found is not None, (system, lang, pos)
    return found


def test_s1_italian_all_pos():
    m = row("s1", "IT")
    # GOOD = {1,4,9} = 3, BAD = {2,3,5,7,8} = 5, MISS = {6,10,11} = 3, all = 11
    assert (m.good, m.bad, m.miss, m.items) == (3, 5, 3, 11)
    # Accuracy = 3 / (3+5) = 37.5 %
    assert m.accuracy == Rate(3, 8) and m.accuracy.percent == pytest.approx(37.5)
    # % MISS = 3 / 11 = 27.2727 %
    assert m.miss_rate == Rate(3, 11) and m.miss_rate.percent == pytest.approx(27.272727)
    # BAD with provenance = {2,3,5,8} = 4 (item 7 left out and counted)
    assert m.bad_without_provenance == 1
    # MFS = {3,5} / 4 = 50 %
    assert m.mfs == Rate(2, 4) and m.mfs.percent == pytest.approx(50.0)
    # MFS+ = {3 (1<2), 5 (1<3), 8 (2<3)} / 4 = 75 %
    assert m.mfs_plus == Rate(3, 4) and m.mfs_plus.percent == pytest.approx(75.0)
    # SFII, groups by μ: μ1 {1G,2B} 1/2 = 50; μ2 {3B,4G,7B} 2/3 = 66.667; μ3 {5B,6M,8B} 2/2 = 100;
    # μ4 {9G,10M} 0/1 = 0; μ5 {11M} no GOOD/BAD → excluded. Mean = (50 + 66.667 + 100 + 0) / 4 = 54.1667
    assert m.sfii.percent == pytest.approx((50 + 200 / 3 + 100 + 0) / 4)
    assert [g.key for g in m.sfii.groups] == [1, 2, 3, 4, 5]
    assert [g.key for g in m.sfii.used] == [1, 2, 3, 4]
    # SPDI, groups by δ: δ3 {1G,2B,3B} 2/3 = 66.667; δ4 {7B,8B,9G,10M} 2/3 = 66.667; δ5 {4G,5B,6M} 1/2 = 50;
    # δ6 {11M} excluded. Mean = (66.667 + 66.667 + 50) / 3 = 61.111
    assert m.spdi.percent == pytest.approx((200 / 3 + 200 / 3 + 50) / 3)
    assert len(m.spdi.used) == 3


def test_s1_italian_nouns():
    m = row("s1", "IT", "NOUN")
    # NOUN items 1–6 and 11: GOOD {1,4}, BAD {2,3,5}, MISS {6,11}
    assert (m.good, m.bad, m.miss) == (2, 3, 2)
    assert m.accuracy.percent == pytest.approx(40.0)  # 2/5
    assert m.miss_rate.percent == pytest.approx(200 / 7)  # 2/7 = 28.571
    assert m.mfs == Rate(2, 3)  # {3,5} of {2,3,5}: 66.667
    assert m.mfs_plus == Rate(2, 3)  # {3,5}: 66.667
    # SFII: μ1 {1G,2B} 50; μ2 {3B,4G} 50; μ3 {5B,6M} 100; μ5 excluded → (50+50+100)/3 = 66.667
    assert m.sfii.percent == pytest.approx(200 / 3)
    # SPDI: δ3 {1G,2B,3B} 66.667; δ5 {4G,5B,6M} 50; δ6 excluded → (66.667+50)/2 = 58.333
    assert m.spdi.percent == pytest.approx((200 / 3 + 50) / 2)


def test_s1_italian_verbs():
    m = row("s1", "IT", "VERB")
    # VERB items 7–10: GOOD {9}, BAD {7,8}, MISS {10}
    assert (m.good, m.bad, m.miss) == (1, 2, 1)
    assert m.accuracy.percent == pytest.approx(100 / 3)  # 1/3
    assert m.miss_rate.percent == pytest.approx(25.0)  # 1/4
    # only item 8 has provenance: MFS 0/1 = 0 % (a real zero, not n/a), MFS+ 1/1 = 100 %
    assert m.mfs == Rate(0, 1) and m.mfs.percent == 0.0
    assert m.mfs_plus.percent == pytest.approx(100.0)
    assert m.bad_without_provenance == 1
    # SFII: μ2 {7B} 100; μ3 {8B} 100; μ4 {9G,10M} 0 → 66.667. SPDI: δ4 {7B,8B,9G} 2/3 → 66.667
    assert m.sfii.percent == pytest.approx(200 / 3)
    assert m.spdi.percent == pytest.approx(200 / 3)


def test_s1_pooled_over_languages():
    m = row("s1", ALL)
    # IT plus item 12 (ES, GOOD, μ1, δ3): GOOD 4, BAD 5, MISS 3 → accuracy 4/9 = 44.444
    assert (m.good, m.bad, m.miss) == (4, 5, 3)
    assert m.accuracy.percent == pytest.approx(400 / 9)
    # SFII pools the groups: μ1 {1G,2B,12G} 1/3 = 33.333; μ2 66.667; μ3 100; μ4 0 → (33.333+66.667+100+0)/4 = 50
    assert m.sfii.percent == pytest.approx(50.0)
    # SPDI: δ3 {1G,2B,3B,12G} 2/4 = 50; δ4 66.667; δ5 50 → 55.556
    assert m.spdi.percent == pytest.approx((50 + 200 / 3 + 50) / 3)


def test_empty_denominators_are_none_not_zero():
    m = row("s2", "IT")
    # two MISS: accuracy 0/0, MFS 0/0, no SFII/SPDI group with GOOD or BAD
    assert m.accuracy == Rate(0, 0) and m.accuracy.percent is None
    assert m.mfs.percent is None and m.mfs_plus.percent is None
    assert m.sfii.percent is None and m.spdi.percent is None
    assert m.miss_rate.percent == pytest.approx(100.0)
    data = m.to_dict()
    assert data["accuracy"] == {"percent": None, "count": 0, "total": 0}
    assert data["sfii"]["percent"] is None and data["sfii"]["groups_used"] == 0


def test_overall_row_pools_everything():
    m = row(ALL, ALL)
    # s1 IT (3G 5B 3M) + s1 ES (1G) + s2 IT (2M)
    assert (m.good, m.bad, m.miss, m.items) == (4, 5, 5, 14)
    assert m.miss_rate == Rate(5, 14)


def test_rows_order_and_breakdown():
    keys = [(r.system, r.lang, r.pos) for r in REPORT.rows]
    # per system × language, then per system over all languages, then everything; ALL first, then NOUN, VERB
    assert keys == [
        ("s1", "ES", ALL),
        ("s1", "ES", "NOUN"),
        ("s1", "IT", ALL),
        ("s1", "IT", "NOUN"),
        ("s1", "IT", "VERB"),
        ("s2", "IT", ALL),
        ("s2", "IT", "NOUN"),
        ("s1", ALL, ALL),
        ("s1", ALL, "NOUN"),
        ("s1", ALL, "VERB"),
        ("s2", ALL, ALL),
        ("s2", ALL, "NOUN"),
        (ALL, ALL, ALL),
        (ALL, ALL, "NOUN"),
        (ALL, ALL, "VERB"),
    ]
    assert REPORT.systems == ["s1", "s2"] and REPORT.languages == ["ES", "IT"]
    assert REPORT.get("s3", "IT") is None
    json.dumps(REPORT.to_dict())  # plain data all the way down


def test_omega_rank_is_the_most_frequent_provenance_synset():
    ranks = {"bn:a": 1, "bn:b": 2, "bn:c": 3}
    assert omega_rank(["bn:c", "bn:b"], ranks) == 2
    assert omega_rank(["bn:zzz", "bn:c"], ranks) == 3  # synsets outside Ω(λ) are ignored
    assert omega_rank(["bn:zzz"], ranks) is None
    assert omega_rank([], ranks) is None


def test_unknown_outcome_is_refused_and_empty_group_rate_is_none():
    with pytest.raises(ValueError):
        compute_row([ScoredItem("s", "IT", "NOUN", "MAYBE", 1, 3)])
    assert GroupedErrorRate().percent is None
    assert compute_metrics([]).rows == ()
