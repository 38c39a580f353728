"""Benchmark metrics over analysed translations (SPEC §8; DiBiMT §4.3–4.4): Accuracy, % MISS, MFS, MFS+, SFII, SPDI.

Plain functions over plain records so the command line, the app and the tests compute exactly the same numbers.
Every percentage travels with the counts it came from, and an empty denominator gives ``None`` ("n/a"), never 0.

Rows are computed per system × language, for the pooled languages of each system (``lang == ALL``) and for
everything pooled (``system == ALL``); each row is also broken down by the target's POS (``pos == ALL`` is the
whole row). Pooled rows pool the analysed items: SFII/SPDI groups are formed over the pool, not averaged per language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ALL = "ALL"
GOOD = "GOOD"
BAD = "BAD"
MISS = "MISS"
_POS_ORDER = {ALL: 0, "NOUN": 1, "VERB": 2, "ADJ": 3, "ADV": 4}


class ScoredItem(NamedTuple):
    """One analysed translation as the metrics see it (a typed row, one per translation).

    ``sense_rank`` is μ(σ), ``polysemy_degree`` δ(λ); ``omega_rank`` is μ(σ̂) for a BAD result, where σ̂ is the most
    frequent synset (lowest rank) in ω's provenance — None when ω has no provenance inside Ω(λ).
    ``sense_rank`` / ``polysemy_degree`` are None when the dataset has no value (σ not in Ω(λ), Ω(λ) unknown): the
    item still counts in Accuracy, % MISS and MFS, but is left out of SFII (needs μ(σ)), SPDI (needs δ(λ)) and MFS+
    (needs μ(σ)), and counted there as left out.
    """

    system: str
    lang: str
    pos: str
    outcome: str
    sense_rank: int | None
    polysemy_degree: int | None
    omega_rank: int | None = None
    #: the outcome is a lead's verdict from human inspection, not the matcher's (counted apart in ``Metrics``)
    inspected: bool = False


def omega_rank(provenance: Iterable[str], sense_ranks: Mapping[str, int]) -> int | None:
    """μ(σ̂): the lowest rank in Ω(λ) among ω's provenance synsets; None when none of them is in Ω(λ)."""
    ranks = [sense_ranks[synset] for synset in provenance if synset in sense_ranks]
    return min(ranks) if ranks else None


@dataclass(frozen=True)
class Rate:
    """``count`` out of ``total`` as a percentage; None when ``total`` is 0."""

    count: int
    total: int

    @property
    def percent(self) -> float | None:
        return 100.0 * self.count / self.total if self.total else None

    def to_dict(self) -> dict[str, Any]:
        return {"percent": self.percent, "count": self.count, "total": self.total}


@dataclass(frozen=True)
class GroupErrorRate:
    """The error rate BAD / (GOOD + BAD) of the items sharing one μ(σ) (SFII) or one δ(λ) (SPDI)."""

    key: int
    good: int
    bad: int
    miss: int

    @property
    def rate(self) -> Rate:
        return Rate(self.bad, self.good + self.bad)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "good": self.good, "bad": self.bad, "miss": self.miss, "percent": self.rate.percent}


@dataclass(frozen=True)
class GroupedErrorRate:
    """SFII / SPDI: the unweighted mean of the groups' error rates; groups without GOOD or BAD are left out.

    ``left_out`` counts the items without the grouping value (μ(σ) or δ(λ) is None): they are in no group.
    """

    groups: tuple[GroupErrorRate, ...] = ()
    left_out: int = 0

    @property
    def used(self) -> tuple[GroupErrorRate, ...]:
        return tuple(group for group in self.groups if group.good + group.bad > 0)

    @property
    def percent(self) -> float | None:
        rates = [group.rate.percent for group in self.used]
        return sum(rates) / len(rates) if rates else None  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        return {
            "percent": self.percent,
            "groups_used": len(self.used),
            "left_out": self.left_out,
            "groups": [group.to_dict() for group in self.groups],
        }


@dataclass(frozen=True)
class Metrics:
    """One row of the metrics table: counts and the six metrics of SPEC §8."""

    system: str
    lang: str
    pos: str
    good: int
    bad: int
    miss: int
    mfs_count: int
    mfs_plus_count: int
    bad_with_provenance: int
    #: BAD results with provenance whose item has no μ(σ): in MFS, left out of MFS+ (which compares with μ(σ))
    mfs_plus_left_out: int = 0
    sfii: GroupedErrorRate = field(default_factory=GroupedErrorRate)
    spdi: GroupedErrorRate = field(default_factory=GroupedErrorRate)
    #: results whose outcome is a lead's inspection verdict
    inspected: int = 0

    @property
    def items(self) -> int:
        return self.good + self.bad + self.miss

    @property
    def accuracy(self) -> Rate:
        return Rate(self.good, self.good + self.bad)

    @property
    def miss_rate(self) -> Rate:
        return Rate(self.miss, self.items)

    @property
    def mfs(self) -> Rate:
        return Rate(self.mfs_count, self.bad_with_provenance)

    @property
    def mfs_plus(self) -> Rate:
        return Rate(self.mfs_plus_count, self.bad_with_provenance - self.mfs_plus_left_out)

    @property
    def bad_without_provenance(self) -> int:
        return self.bad - self.bad_with_provenance

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "lang": self.lang,
            "pos": self.pos,
            "items": self.items,
            "good": self.good,
            "bad": self.bad,
            "miss": self.miss,
            "accuracy": self.accuracy.to_dict(),
            "miss_rate": self.miss_rate.to_dict(),
            "mfs": self.mfs.to_dict(),
            "mfs_plus": self.mfs_plus.to_dict(),
            "mfs_plus_left_out": self.mfs_plus_left_out,
            "bad_without_provenance": self.bad_without_provenance,
            "sfii": self.sfii.to_dict(),
            "spdi": self.spdi.to_dict(),
            "inspected": self.inspected,
        }


_SLOT = {GOOD: 0, BAD: 1, MISS: 2}


def _grouped(counts: dict[int, list[int]], left_out: int) -> GroupedErrorRate:
    """The error rate per group, groups in ascending order, from each group's [good, bad, miss] counts."""
    return GroupedErrorRate(tuple(GroupErrorRate(key, *counts[key]) for key in sorted(counts)), left_out)


def _count(counts: dict[int, list[int]], key: int, slot: int) -> None:
    good_bad_miss = counts.get(key)
    if good_bad_miss is None:
        good_bad_miss = counts[key] = [0, 0, 0]
    good_bad_miss[slot] += 1


def compute_row(items: Iterable[ScoredItem], system: str = ALL, lang: str = ALL, pos: str = ALL) -> Metrics:
    """The metrics of one set of analysed translations (the caller chooses the set; the labels are for display).

    One pass over the items counts everything; an unknown outcome is a ValueError."""
    outcomes = [0, 0, 0]  # good, bad, miss
    traced = ranked = mfs = mfs_plus = inspected = 0
    by_sense: dict[int, list[int]] = {}
    by_degree: dict[int, list[int]] = {}
    sense_left_out = degree_left_out = 0
    for item in items:
        slot = _SLOT.get(item.outcome)
        if slot is None:
            raise ValueError(f"unknown outcome {item.outcome!r}")
        outcomes[slot] += 1
        if item.inspected:
            inspected += 1
        sense, degree = item.sense_rank, item.polysemy_degree
        if slot == 1 and item.omega_rank is not None:  # BAD with provenance
            traced += 1
            if item.omega_rank == 1:
                mfs += 1
            if sense is not None:
                ranked += 1
                if item.omega_rank < sense:
                    mfs_plus += 1
        if sense is None:
            sense_left_out += 1
        else:
            _count(by_sense, sense, slot)
        if degree is None:
            degree_left_out += 1
        else:
            _count(by_degree, degree, slot)
    return Metrics(
        system=system,
        lang=lang,
        pos=pos,
        good=outcomes[0],
        bad=outcomes[1],
        miss=outcomes[2],
        mfs_count=mfs,
        mfs_plus_count=mfs_plus,
        bad_with_provenance=traced,
        mfs_plus_left_out=traced - ranked,
        sfii=_grouped(by_sense, sense_left_out),
        spdi=_grouped(by_degree, degree_left_out),
        inspected=inspected,
    )


@dataclass(frozen=True)
class MetricsReport:
    """All rows, in display order, with lookup by (system, lang, pos)."""

    rows: tuple[Metrics, ...] = ()

    def get(self, system: str = ALL, lang: str = ALL, pos: str = ALL) -> Metrics | None:
        for row in self.rows:
            if (row.system, row.lang, row.pos) == (system, lang, pos):
                return row
        return None

    @property
    def systems(self) -> list[str]:
        return sorted({row.system for row in self.rows if row.system != ALL})

    @property
    def languages(self) -> list[str]:
        return sorted({row.lang for row in self.rows if row.lang != ALL})

    def to_dict(self) -> dict[str, Any]:
        return {"rows": [row.to_dict() for row in self.rows]}


def compute_metrics(items: Iterable[ScoredItem], by_pos: bool = True) -> MetricsReport:
    """Rows per system × language, per system over all languages, and overall; each split by target POS."""
    scoped: dict[tuple[str, str], list[ScoredItem]] = {}
    for item in items:
        for scope in ((item.system, item.lang), (item.system, ALL), (ALL, ALL)):
            scoped.setdefault(scope, []).append(item)
    systems = sorted({system for system, _ in scoped if system != ALL})
    langs = sorted({lang for _, lang in scoped if lang != ALL})
    order = [(s, lang) for s in systems for lang in langs] + [(s, ALL) for s in systems] + [(ALL, ALL)]
    rows: list[Metrics] = []
    for system, lang in order:
        pool = scoped.get((system, lang))
        if not pool:
            continue
        rows.append(compute_row(pool, system, lang, ALL))
        if by_pos:
            by_tag: dict[str, list[ScoredItem]] = {}
            for item in pool:
                by_tag.setdefault(item.pos, []).append(item)
            for pos in sorted(by_tag, key=lambda p: (_POS_ORDER.get(p, 9), p)):
                rows.append(compute_row(by_tag[pos], system, lang, pos))
    return MetricsReport(tuple(rows))
