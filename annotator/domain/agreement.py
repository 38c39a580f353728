"""Inter-translator agreement (issue 11): how far two translators who curated the same item-language independently
end up with the same GOOD and BAD sets and the same discard / DISCUSS decision.

Plain functions over plain data (each translator's copy reduced to identity sets), so the Dataset page, the
export's ``stats.json`` and the benchmark compute the same figures and tests check them against hand arithmetic.
Figures, per language, per translator pair and overall:

- **decision agreement**: share of compared copy pairs (both finished: done, DISCUSS or discarded) whose
  decision is the same (``done`` / ``discuss`` / ``discarded``);
- over the pairs where both copies are ``done`` (a discarded copy has no meaningful sets):
  **exact agreement** of the final GOOD sets, **mean Jaccard** of GOOD and of BAD;
- **per-candidate agreement**: every pre-populated candidate (G0 ∪ B0) and every candidate that either translator
  added is a unit; each translator's value is where it ended up (``good``, ``bad`` or ``none`` = deleted);
  agreement is the share of units with equal values, reported separately for pre-populated and added units;
- **Krippendorff's α (nominal)** over the same per-candidate units, with the number of units.

Candidates are compared by SPEC §3 identity (case-folded text + cross-PoS tag). An empty denominator gives
``None`` ("n/a"), never 0. Two empty sets have Jaccard 1.0, as in ``refinement_stats``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from annotator.domain.refinement_stats import jaccard
from annotator.domain.workflow import COPY_FINISHED

#: Decisions a finished copy can carry (``workflow.COPY_FINISHED`` as stored).
DONE, DISCUSS, DISCARDED = "done", "discuss", "discarded"
FINISHED = tuple(status.value for status in COPY_FINISHED)
#: Per-candidate values.
GOOD, BAD, NONE = "good", "bad", "none"


@dataclass(frozen=True)
class CopyRecord:
    """One translator's finished (or not) copy of an item-language, as identity sets.

    ``prepopulated`` is G0 ∪ B0 of the item-language (the same for every copy of it); ``decision`` is the copy's
    status (``done``, ``discuss``, ``discarded``, or anything else for an unfinished copy).
    """

    item_id: str
    lang: str
    annotator: str
    decision: str
    good: frozenset[str]
    bad: frozenset[str]
    prepopulated: frozenset[str] = frozenset()

    @property
    def finished(self) -> bool:
        return self.decision in FINISHED

    def value(self, key: str) -> str:
        return GOOD if key in self.good else BAD if key in self.bad else NONE


def ratio(numerator: float, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass
class AlphaAccumulator:
    """Krippendorff's α (nominal) built unit by unit, in O(categories) memory.

    With ``m_u`` values in unit u and ``n_uc`` of them equal to c, the coincidences of u are ``n_uc·n_uk/(m_u-1)``
    (c≠k); α = 1 − (n−1)·Σ_u (m_u² − Σ_c n_uc²)/(m_u−1) / (n² − Σ_c n_c²), n_c = Σ_u n_uc, n = Σ_c n_c.
    Units with fewer than two values are not pairable and left out. No variation at all (one category) → None.
    """

    units: int = 0
    disagreement: float = 0.0
    totals: Counter[str] = field(default_factory=Counter)

    def add(self, values: Sequence[str]) -> None:
        m = len(values)
        if m < 2:
            return
        counts = Counter(values)
        self.units += 1
        self.disagreement += (m * m - sum(c * c for c in counts.values())) / (m - 1)
        self.totals.update(counts)

    def add_two_coder_units(self, units: int, disagreeing: int, totals: dict[str, int]) -> None:
        """Many two-value units at once (the common two-translator case, counted with set operations):
        each disagreeing unit adds (2² − 1 − 1)/(2 − 1) = 2."""
        self.units += units
        self.disagreement += 2.0 * disagreeing
        self.totals.update(totals)

    def merge(self, other: AlphaAccumulator) -> None:
        self.units += other.units
        self.disagreement += other.disagreement
        self.totals.update(other.totals)

    @property
    def alpha(self) -> float | None:
        n = sum(self.totals.values())
        expected = n * n - sum(c * c for c in self.totals.values())
        if n < 2 or expected == 0:
            return None
        return 1.0 - (n - 1) * self.disagreement / expected


@dataclass
class Agreement:
    """The raw sums of one scope (a language, a translator pair, everything); the figures are derived."""

    decision_pairs: int = 0
    decision_agree: int = 0
    set_pairs: int = 0
    exact_good: int = 0
    jaccard_good_sum: float = 0.0
    jaccard_bad_sum: float = 0.0
    prepopulated_units: int = 0
    prepopulated_agree: int = 0
    added_units: int = 0
    added_agree: int = 0
    alpha_data: AlphaAccumulator = field(default_factory=AlphaAccumulator)

    @property
    def decision_agreement(self) -> float | None:
        return ratio(self.decision_agree, self.decision_pairs)

    @property
    def exact_good_agreement(self) -> float | None:
        return ratio(self.exact_good, self.set_pairs)

    @property
    def mean_jaccard_good(self) -> float | None:
        return ratio(self.jaccard_good_sum, self.set_pairs)

    @property
    def mean_jaccard_bad(self) -> float | None:
        return ratio(self.jaccard_bad_sum, self.set_pairs)

    @property
    def prepopulated_agreement(self) -> float | None:
        return ratio(self.prepopulated_agree, self.prepopulated_units)

    @property
    def added_agreement(self) -> float | None:
        return ratio(self.added_agree, self.added_units)

    @property
    def alpha(self) -> float | None:
        return self.alpha_data.alpha

    @property
    def alpha_units(self) -> int:
        return self.alpha_data.units

    def merge(self, other: Agreement) -> None:
        for name in (
            "decision_pairs",
            "decision_agree",
            "set_pairs",
            "exact_good",
            "jaccard_good_sum",
            "jaccard_bad_sum",
            "prepopulated_units",
            "prepopulated_agree",
            "added_units",
            "added_agree",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, object]:
        return {
            "decision_pairs": self.decision_pairs,
            "decision_agreement": self.decision_agreement,
            "done_pairs": self.set_pairs,
            "exact_good_agreement": self.exact_good_agreement,
            "mean_jaccard_good": self.mean_jaccard_good,
            "mean_jaccard_bad": self.mean_jaccard_bad,
            "prepopulated_units": self.prepopulated_units,
            "prepopulated_agreement": self.prepopulated_agreement,
            "added_units": self.added_units,
            "added_agreement": self.added_agreement,
            "alpha": self.alpha,
            "alpha_units": self.alpha_units,
        }


def compare_pair(a: CopyRecord, b: CopyRecord, into: Agreement, also: AlphaAccumulator | None = None) -> bool:
    """Add one pair of finished copies of the same item-language to ``into`` (α units included); True when they
    agree completely (same decision and, for two done copies, the same GOOD and BAD sets).

    The per-candidate counts use set operations rather than a loop over candidates (the benchmark's 900,000 units):
    a unit agrees when both put it in GOOD, both in BAD, or (a pre-populated one) both deleted it.
    """
    into.decision_pairs += 1
    same = a.decision == b.decision
    into.decision_agree += same
    if a.decision != DONE or b.decision != DONE:
        return same
    into.set_pairs += 1
    same_good = a.good == b.good
    into.exact_good += same_good
    into.jaccard_good_sum += 1.0 if same_good else jaccard(a.good, b.good)
    same_bad = a.bad == b.bad
    into.jaccard_bad_sum += 1.0 if same_bad else jaccard(a.bad, b.bad)
    pre = a.prepopulated | b.prepopulated
    placed_a, placed_b = a.good | a.bad, b.good | b.bad
    both_good, both_bad = a.good & b.good, a.bad & b.bad
    both_deleted = len(pre - placed_a - placed_b)
    added = (placed_a | placed_b) - pre
    pre_agree = len(both_good & pre) + len(both_bad & pre) + both_deleted
    added_agree = len(both_good & added) + len(both_bad & added)
    into.prepopulated_units += len(pre)
    into.prepopulated_agree += pre_agree
    into.added_units += len(added)
    into.added_agree += added_agree
    units = len(pre) + len(added)
    goods, bads = len(a.good) + len(b.good), len(a.bad) + len(b.bad)
    totals = {GOOD: goods, BAD: bads, NONE: 2 * units - goods - bads}
    into.alpha_data.add_two_coder_units(units, units - pre_agree - added_agree, totals)
    if also is not None:  # the language's α when these are the item-language's only two done copies
        also.add_two_coder_units(units, units - pre_agree - added_agree, totals)
    return same and same_good and same_bad


def candidate_units(copies: Sequence[CopyRecord]) -> Iterable[tuple[str, ...]]:
    """The per-candidate units of one item-language's done copies: each unit is the copies' values for one key."""
    keys: set[str] = set()
    for copy in copies:
        keys |= copy.prepopulated | copy.good | copy.bad
    for key in keys:
        yield tuple(copy.value(key) for copy in copies)


@dataclass
class AgreementReport:
    """Agreement overall, per language and per translator pair (``(lang, a, b)`` with a < b)."""

    overall: Agreement = field(default_factory=Agreement)
    languages: dict[str, Agreement] = field(default_factory=dict)
    pairs: dict[tuple[str, str, str], Agreement] = field(default_factory=dict)
    #: Item-languages with at least two finished copies, and those among them where some pair disagrees.
    compared: list[tuple[str, str]] = field(default_factory=list)
    disagreeing: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "scope": "item-languages curated independently by two or more translators, all copies finished; "
            "sets over pairs of done copies",
            "item_languages": len(self.compared),
            "disagreeing_item_languages": len(self.disagreeing),
            "overall": self.overall.to_json(),
            "languages": {lang: self.languages[lang].to_json() for lang in sorted(self.languages)},
            "pairs": [
                {"lang": lang, "annotators": [a, b], **self.pairs[(lang, a, b)].to_json()}
                for lang, a, b in sorted(self.pairs)
            ],
        }


def agreement_report(copies: Iterable[CopyRecord], languages: Sequence[str] = ()) -> AgreementReport:
    """Agreement over every item-language whose copies are all finished (at least two of them).

    ``languages`` lists languages to report even without data (their figures are all n/a).
    """
    grouped: dict[tuple[str, str], list[CopyRecord]] = {}
    for copy in copies:
        grouped.setdefault((copy.item_id, copy.lang), []).append(copy)
    report = AgreementReport(languages={lang: Agreement() for lang in languages})
    for (item_id, lang), group in sorted(grouped.items()):
        if len(group) < 2 or not all(copy.finished for copy in group):
            continue
        group.sort(key=lambda c: c.annotator)
        report.compared.append((item_id, lang))
        language = report.languages.setdefault(lang, Agreement())
        agree = True
        done = [copy for copy in group if copy.decision == DONE]
        also = language.alpha_data if len(done) == 2 else None
        for a, b in itertools.combinations(group, 2):
            pair = report.pairs.setdefault((lang, a.annotator, b.annotator), Agreement())
            agree &= compare_pair(a, b, pair, also)
        if len(done) > 2:  # a unit then has every done copy's value, not one pair's
            for values in candidate_units(done):
                language.alpha_data.add(values)
        if not agree:
            report.disagreeing.append((item_id, lang))
    for (lang, _a, _b), pair in report.pairs.items():
        report.languages[lang].merge(pair)
    for language in report.languages.values():
        report.overall.merge(language)
        report.overall.alpha_data.merge(language.alpha_data)
    return report


def format_figure(value: float | None, percent: bool = True) -> str:
    """``83.3`` (a percentage), ``0.712`` (α, Jaccard) or ``n/a``."""
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}" if percent else f"{value:.3f}"
