"""Metrics papers report beside DiBiMT's: MuCoW coverage / precision / recall / F1, macro (per-sense) accuracy,
bootstrap confidence intervals, a paired bootstrap test, and the rows of the leaderboard and significance tables
(written as CSV, Markdown and LaTeX by ``annotator.evaluation.leaderboard``).

Pure functions over outcomes (``GOOD`` / ``BAD`` / ``MISS``) so a published number can be recomputed from
``analysed.jsonl`` alone. Resampling uses its own seeded numpy generator (a fixed seed gives the same interval)
and draws each resample's counts of the outcome kinds at once (a multinomial): the same distribution as drawing the
n items one by one, in O(1) per resample instead of O(n).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.domain.metrics import ALL, BAD, GOOD, MISS, ScoredItem, compute_metrics

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20220522  # fixed: the same input gives the same interval and p-value


def _ratio(num: int | float, den: int | float) -> float | None:
    return num / den if den else None


@dataclass(frozen=True)
class CoverageScores:
    """MuCoW's scores (Raganato et al. 2020, and their evaluate.py): fractions in 0..1, None when undefined.

    coverage = (GOOD + BAD) / all; precision = GOOD / (GOOD + BAD) (= DiBiMT accuracy); recall = GOOD / (GOOD + MISS)
    (the definition behind MuCoW's published tables, their "RecallA"); f1 = harmonic mean of precision and recall.
    """

    good: int
    bad: int
    miss: int

    @property
    def coverage(self) -> float | None:
        return _ratio(self.good + self.bad, self.good + self.bad + self.miss)

    @property
    def precision(self) -> float | None:
        return _ratio(self.good, self.good + self.bad)

    @property
    def recall(self) -> float | None:
        return _ratio(self.good, self.good + self.miss)

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None or p + r == 0:
            return None
        return 2 * p * r / (p + r)


def coverage_scores(outcomes: Iterable[str]) -> CoverageScores:
    counts = {GOOD: 0, BAD: 0, MISS: 0}
    for outcome in outcomes:
        counts[outcome] += 1
    return CoverageScores(counts[GOOD], counts[BAD], counts[MISS])


def accuracy(outcomes: Sequence[str]) -> float | None:
    """GOOD / (GOOD + BAD), None without any GOOD or BAD."""
    good = sum(1 for o in outcomes if o == GOOD)
    bad = sum(1 for o in outcomes if o == BAD)
    return _ratio(good, good + bad)


def macro_accuracy(results: Iterable[tuple[str, str]]) -> float | None:
    """Mean over senses of each sense's accuracy; ``results`` are (sense key, outcome) pairs.

    Senses with no GOOD or BAD (only MISS) are left out, as DiBiMT leaves MISS out of accuracy.
    """
    per_sense: dict[str, list[int]] = {}
    for sense, outcome in results:
        counts = per_sense.setdefault(sense, [0, 0])
        if outcome == GOOD:
            counts[0] += 1
        elif outcome == BAD:
            counts[1] += 1
    rates = [good / (good + bad) for good, bad in per_sense.values() if good + bad]
    return sum(rates) / len(rates) if rates else None


@dataclass(frozen=True)
class Interval:
    """A point estimate and its percentile bootstrap interval (fractions in 0..1)."""

    point: float | None
    low: float | None
    high: float | None
    resamples: int
    level: float


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default) of already sorted values."""
    position = q * (len(sorted_values) - 1)
    lower = int(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    return sorted_values[lower] + (sorted_values[upper] - sorted_values[lower]) * (position - lower)


def _resampled_counts(good: int, bad: int, miss: int, resamples: int, seed: int) -> Any:
    """(GOOD, BAD, MISS) counts of ``resamples`` bootstrap resamples of n = good + bad + miss outcomes, one row each.

    Drawing n outcomes with replacement from three kinds is a multinomial draw of their counts, so each resample
    costs O(1) rather than O(n): a breakdown over 50,000 translations takes milliseconds, not seconds.
    """
    import numpy  # here, not at the top: scoring without a leaderboard never loads it (start-up of evaluate)

    n = good + bad + miss
    rng = numpy.random.default_rng(seed)
    return rng.multinomial(n, [good / n, bad / n, miss / n], size=resamples)


def _interval(point: float | None, values: Any, level: float) -> Interval:
    """The percentile interval of the resampled values (NaN where a resample had nothing to score: left out)."""
    kept = sorted(float(value) for value in values if value == value)
    if point is None or not kept:
        return Interval(None, None, None, 0, level)
    tail = (1 - level) / 2
    return Interval(point, _percentile(kept, tail), _percentile(kept, 1 - tail), len(kept), level)


def _counts(outcomes: Iterable[str]) -> tuple[int, int, int]:
    counted = Counter(outcomes)
    good, bad = counted[GOOD], counted[BAD]
    return good, bad, sum(counted.values()) - good - bad


def bootstrap_accuracy(
    outcomes: Sequence[str], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95
) -> Interval:
    """Percentile bootstrap interval of Accuracy: resample the items (MISS included) with replacement."""
    point = accuracy(outcomes)
    if point is None:
        return Interval(None, None, None, 0, level)
    return bootstrap_rates(outcomes, resamples, seed, level)[0]


@dataclass(frozen=True)
class PairedTest:
    """Accuracy of A minus accuracy of B on the same items, and the two-sided paired bootstrap p-value."""

    delta: float | None
    p_value: float | None
    resamples: int


def paired_bootstrap(
    a: Sequence[str], b: Sequence[str], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> PairedTest:
    """Paired bootstrap (Koehn 2004; shifted to the null as in Berg-Kirkpatrick et al. 2012).

    ``a[i]`` and ``b[i]`` are the two systems' outcomes on item i. Items are resampled together; p is the share of
    resamples whose delta lies at least as far from the observed delta as the observed delta lies from 0. Identical
    systems give delta 0 and p = 1.
    """
    if len(a) != len(b):
        raise ValueError("the two systems must be scored on the same items")
    observed_a, observed_b = accuracy(a), accuracy(b)
    if observed_a is None or observed_b is None:
        return PairedTest(None, None, 0)
    delta = observed_a - observed_b
    code = {GOOD: 0, BAD: 1}  # anything else is MISS (2); a pair is coded 3·a + b
    pairs = Counter(3 * code.get(x, 2) + code.get(y, 2) for x, y in zip(a, b, strict=True))
    n = len(a)
    import numpy  # here, not at the top: see ``_resampled_counts``

    # resampling n pairs with replacement is a multinomial draw of the nine kinds' counts: O(1) per resample
    drawn = numpy.random.default_rng(seed).multinomial(n, [pairs[kind] / n for kind in range(9)], size=resamples)
    good_a = drawn[:, 0:3].sum(axis=1)
    scored_a = good_a + drawn[:, 3:6].sum(axis=1)
    good_b = drawn[:, 0::3].sum(axis=1)
    scored_b = good_b + drawn[:, 1::3].sum(axis=1)
    at_least = used = 0
    for ga, sa, gb, sb in zip(good_a.tolist(), scored_a.tolist(), good_b.tolist(), scored_b.tolist(), strict=True):
        if not sa or not sb:
            continue
        used += 1
        if abs((ga / sa - gb / sb) - delta) >= abs(delta) - 1e-12:
            at_least += 1
    return PairedTest(delta, at_least / used if used else None, used)


# --- breakdown by domain -------------------------------------------------------------------------------------------

NO_DOMAIN = "(no domain)"


@dataclass(frozen=True)
class DomainRates:
    """One system's outcomes in one domain: Accuracy = GOOD / (GOOD + BAD), %MISS = MISS / n and the BAD rate =
    BAD / n, each with its percentile bootstrap interval (fractions in 0..1)."""

    system: str
    domain: str
    n: int
    accuracy: Interval
    miss_rate: Interval
    bad_rate: Interval

    def to_dict(self) -> dict[str, object]:
        def pct(interval: Interval) -> dict[str, float | None]:
            return {
                key: None if value is None else round(100 * value, 4)
                for key, value in (("percent", interval.point), ("low", interval.low), ("high", interval.high))
            }

        return {
            "system": self.system,
            "domain": self.domain,
            "n": self.n,
            "accuracy": pct(self.accuracy),
            "miss_rate": pct(self.miss_rate),
            "bad_rate": pct(self.bad_rate),
        }


def bootstrap_rates(
    outcomes: Sequence[str], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95
) -> tuple[Interval, Interval, Interval]:
    """Accuracy, %MISS and BAD-rate intervals from one set of resamples (``_resampled_counts``).

    ``bootstrap_accuracy`` draws the same resamples, so the accuracy interval is the one the leaderboard shows for
    these outcomes.
    """
    return _rates(_counts(outcomes), resamples, seed, level)


def _rates(
    counts: tuple[int, int, int], resamples: int, seed: int, level: float
) -> tuple[Interval, Interval, Interval]:
    good, bad, miss = counts
    n = good + bad + miss
    empty = Interval(None, None, None, 0, level)
    if not n:
        return empty, empty, empty
    import numpy  # here, not at the top: see ``_resampled_counts``

    drawn = _resampled_counts(good, bad, miss, resamples, seed)
    scored = drawn[:, 0] + drawn[:, 1]
    with numpy.errstate(invalid="ignore", divide="ignore"):
        acc_values = drawn[:, 0] / scored  # NaN where a resample drew only MISS: left out, as before
    return (
        _interval(_ratio(good, good + bad), acc_values, level),
        _interval(miss / n, drawn[:, 2] / n, level),
        _interval(bad / n, drawn[:, 1] / n, level),
    )


def domain_breakdown(
    outcomes: Iterable[tuple[str, str | None, str]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[DomainRates]:
    """Per system and domain (sorted), the rates with bootstrap intervals; ``outcomes`` are (system, domain, outcome).

    Empty when no item carries a domain; items without one are grouped under ``(no domain)`` when others have one.
    """
    groups: dict[tuple[str, str], Counter[str]] = {}
    any_domain = False
    for system, domain, outcome in outcomes:  # one pass; each group keeps only its three counts
        any_domain = any_domain or bool(domain)
        key = (system, domain or NO_DOMAIN)
        counted = groups.get(key)
        if counted is None:
            counted = groups[key] = Counter()
        counted[outcome] += 1
    if not any_domain:
        return []
    rows = []
    for (system, domain), counted in sorted(groups.items()):
        good, bad = counted[GOOD], counted[BAD]
        counts = (good, bad, sum(counted.values()) - good - bad)
        acc, miss, bad_rate = _rates(counts, resamples, seed, 0.95)
        rows.append(DomainRates(system, domain, sum(counts), acc, miss, bad_rate))
    return rows


# --- leaderboard ------------------------------------------------------------------------------------------------------

def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.2f}"


def _pct100(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def leaderboard_rows(
    items: Sequence[ScoredItem],
    senses: Sequence[str] | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    by_pos: bool = True,
) -> list[dict[str, str]]:
    """One row per system × language (× POS), then per system and overall: every metric as a percent string.

    ``senses[i]`` is the sense (synset) of ``items[i]`` for macro accuracy; empty cells where a value is undefined.
    """
    keys = list(senses) if senses is not None else [""] * len(items)
    if len(keys) != len(items):
        raise ValueError("one sense per item")
    report = compute_metrics(items, by_pos=by_pos)
    rows = []
    for row in report.rows:
        chosen = [
            (item, key)
            for item, key in zip(items, keys, strict=True)
            if row.system in (ALL, item.system) and row.lang in (ALL, item.lang) and row.pos in (ALL, item.pos)
        ]
        outcomes = [item.outcome for item, _ in chosen]
        interval = bootstrap_accuracy(outcomes, resamples, seed)
        scores = coverage_scores(outcomes)
        macro = macro_accuracy((key, item.outcome) for item, key in chosen) if senses is not None else None
        rows.append(
            {
                "system": row.system,
                "lang": row.lang,
                "pos": row.pos,
                "n": str(row.items),
                "Accuracy": _pct100(row.accuracy.percent),
                "CI95 low": _pct(interval.low),
                "CI95 high": _pct(interval.high),
                "macro Acc": _pct(macro),
                "%MISS": _pct100(row.miss_rate.percent),
                "MFS": _pct100(row.mfs.percent),
                "MFS+": _pct100(row.mfs_plus.percent),
                "SFII": _pct100(row.sfii.percent),
                "SPDI": _pct100(row.spdi.percent),
                "coverage": _pct(scores.coverage),
                "precision": _pct(scores.precision),
                "recall": _pct(scores.recall),
                "F1": _pct(scores.f1),
            }
        )
    return rows



# --- pairwise significance ------------------------------------------------------------------------------------------

def significance_rows(
    outcomes: Iterable[tuple[str, str, str, str]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[dict[str, str]]:
    """Paired bootstrap between every two systems, per language and over all languages.

    ``outcomes`` holds ``(system, item id, lang, outcome)``. A pair is compared on the items both systems translated
    (matched on id and language), because the paired test is only meaningful on the same items; ``n`` says how many.
    """
    by_system: dict[str, dict[tuple[str, str], str]] = {}
    for system, item_id, lang, outcome in outcomes:
        by_system.setdefault(system, {})[(item_id, lang)] = outcome
    systems = sorted(by_system)
    rows = []
    for i, first in enumerate(systems):
        for second in systems[i + 1 :]:
            shared = sorted(by_system[first].keys() & by_system[second].keys())
            langs = sorted({lang for _, lang in shared})
            for lang in [*langs, ALL] if len(langs) > 1 else langs:
                keys = [key for key in shared if lang in (ALL, key[1])]
                a = [by_system[first][key] for key in keys]
                b = [by_system[second][key] for key in keys]
                test = paired_bootstrap(a, b, resamples, seed)
                rows.append(
                    {
                        "system A": first,
                        "system B": second,
                        "lang": lang,
                        "n": str(len(keys)),
                        "Acc A": _pct(accuracy(a)),
                        "Acc B": _pct(accuracy(b)),
                        "ΔAcc": _pct(test.delta),
                        "p": "" if test.p_value is None else f"{test.p_value:.4f}",
                        "resamples": str(test.resamples),  # for "p < 1/B" in Markdown; not a CSV column
                    }
                )
    return rows
