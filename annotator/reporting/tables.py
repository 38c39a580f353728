"""The report's tables as plain data, built from ``metrics.json`` rows (DiBiMT Tables 3–6 and appendix D).

A table is a title, column names and rows of already-formatted cells, so the Markdown, LaTeX and HTML writers only
lay it out. Percentages are shown with two decimals; a metric with an empty denominator is "n/a", never 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ALL = "ALL"
NA = "n/a"

#: (metrics.json key, column label), in the paper's order (appendix D), then the newer metrics when present.
PAPER_METRICS: tuple[tuple[str, str], ...] = (
    ("miss_rate", "%MISS"),
    ("accuracy", "Accuracy"),
    ("mfs", "MFS"),
    ("mfs_plus", "MFS+"),
    ("spdi", "SPDI"),
    ("sfii", "SFII"),
)
EXTRA_METRICS: tuple[tuple[str, str], ...] = (
    ("macro_accuracy", "Macro acc."),
    ("coverage", "Coverage"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("f1", "F1"),
)


@dataclass(frozen=True)
class Table:
    """A titled table of formatted cells; ``notes`` are printed under it."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


def metric_value(row: Mapping[str, Any], key: str) -> float | None:
    """A metric's percentage from a metrics.json row: ``{"percent": x, ...}`` or a bare number."""
    value = row.get(key)
    if isinstance(value, Mapping):
        value = value.get("percent")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def fmt(value: float | None) -> str:
    return NA if value is None else f"{value:.2f}"


def mean(values: Iterable[float | None]) -> float | None:
    """The unweighted mean of the values that exist (the paper's Mean row); None when there are none."""
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def metric_columns(rows: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The paper's six metrics, then each newer metric that at least one row carries."""
    extra = tuple(
        (key, label) for key, label in EXTRA_METRICS if any(metric_value(row, key) is not None for row in rows)
    )
    return PAPER_METRICS + extra


def systems(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return sorted({str(row["system"]) for row in rows if row.get("system") != ALL})


def languages(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return sorted({str(row["lang"]) for row in rows if row.get("lang") != ALL})


def _find(rows: Sequence[Mapping[str, Any]], system: str, lang: str, pos: str = ALL) -> Mapping[str, Any] | None:
    for row in rows:
        if (row.get("system"), row.get("lang"), row.get("pos", ALL)) == (system, lang, pos):
            return row
    return None


def system_language_table(rows: Sequence[Mapping[str, Any]], system: str) -> Table:
    """Appendix D: one row per language with the metrics, then the unweighted Mean row."""
    columns = metric_columns(rows)
    body: list[tuple[str, ...]] = []
    per_language: list[Mapping[str, Any]] = []
    for lang in languages(rows):
        row = _find(rows, system, lang)
        if row is None:
            continue
        per_language.append(row)
        body.append((lang, *(fmt(metric_value(row, key)) for key, _ in columns)))
    body.append(("Mean", *(fmt(mean(metric_value(row, key) for row in per_language)) for key, _ in columns)))
    return Table(
        title=f"{system}: metrics per language",
        columns=("Language", *(label for _, label in columns)),
        rows=tuple(body),
        notes=("Mean: the unweighted mean of the per-language values; n/a: empty denominator.",),
    )


def pos_table(rows: Sequence[Mapping[str, Any]], system: str = ALL) -> Table:
    """Table 6: the metrics over all languages for ALL, NOUN and VERB (and ADJ/ADV when present)."""
    present = [pos for pos in ("ALL", "NOUN", "VERB", "ADJ", "ADV") if _find(rows, system, ALL, pos) is not None]
    columns = metric_columns(rows)
    body = []
    for key, label in columns:
        cells = [fmt(metric_value(_find(rows, system, ALL, pos) or {}, key)) for pos in present]
        body.append((label, *cells))
    who = "all systems" if system == ALL else system
    return Table(title=f"{who}: nouns and verbs", columns=("Metric", *present), rows=tuple(body))


def leaderboard_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """Table 3 / 4: one row per system over all languages."""
    columns = metric_columns(rows)
    body = []
    for system in systems(rows):
        row = _find(rows, system, ALL) or {}
        body.append((system, *(fmt(metric_value(row, key)) for key, _ in columns)))
    return Table(
        title="Systems over all languages", columns=("System", *(label for _, label in columns)), rows=tuple(body)
    )


@dataclass(frozen=True)
class GroupAccuracy:
    """Accuracy of the items sharing one μ(σ) or δ(λ): GOOD / (GOOD + BAD), None without GOOD or BAD."""

    system: str
    key: int
    good: int
    bad: int

    @property
    def percent(self) -> float | None:
        return 100.0 * self.good / (self.good + self.bad) if self.good + self.bad else None


def accuracy_by_group(rows: Sequence[Mapping[str, Any]], grouping: str) -> list[GroupAccuracy]:
    """Accuracy by sense rank μ(σ) (``grouping="sfii"``) or polysemy degree δ(λ) (``"spdi"``), per system."""
    result = []
    for system in systems(rows):
        row = _find(rows, system, ALL) or {}
        for group in (row.get(grouping) or {}).get("groups", []):
            result.append(GroupAccuracy(system, int(group["key"]), int(group["good"]), int(group["bad"])))
    return result


def group_table(groups: Sequence[GroupAccuracy], label: str) -> Table:
    keys = sorted({group.key for group in groups})
    names = sorted({group.system for group in groups})
    lookup = {(group.system, group.key): group for group in groups}
    body = []
    for system in names:
        cells = []
        for key in keys:
            group = lookup.get((system, key))
            cells.append(fmt(group.percent) if group else NA)
        body.append((system, *cells))
    return Table(title=f"Accuracy by {label}", columns=("System", *(str(key) for key in keys)), rows=tuple(body))


def consistency_table(pairs: Sequence[Mapping[str, Any]], system: str) -> Table:
    """Figure 4 as a table: language × language share of items whose ω share a synset."""
    mine = [pair for pair in pairs if pair["system"] == system]
    langs = sorted({pair["lang1"] for pair in mine} | {pair["lang2"] for pair in mine})
    cell: dict[tuple[str, str], str] = {}
    for pair in mine:
        text = f"{fmt(pair['percent'])} ({pair['consistent']}/{pair['compared']})"
        cell[pair["lang1"], pair["lang2"]] = cell[pair["lang2"], pair["lang1"]] = text
    body = tuple((lang, *(cell.get((lang, other), "—") for other in langs)) for lang in langs)
    apart = sum(pair["without_provenance"] for pair in mine)
    return Table(
        title=f"{system}: cross-language consistency",
        columns=("", *langs),
        rows=body,
        notes=(
            "Share of items whose matched candidates in the two languages share a synset (DiBiMT §4.6).",
            f"Pairs with a translator-added candidate (no provenance), counted apart: {apart}.",
        ),
    )


def dataset_tables(stats: Mapping[str, Any]) -> list[Table]:
    """Table 1 (items, lemmas, synsets) and Table 2 (% added, % removed, % shared) from an export's stats.json."""
    tables = []
    counts = stats.get("counts") or {}
    if counts:
        groups = [name for name in ("all", "NOUN", "VERB", "ADJ", "ADV") if name in counts]
        body = tuple(
            (f"# {what}", *(str(counts[group].get(what, NA)) for group in groups))
            for what in ("items", "lemmas", "synsets")
        )
        tables.append(Table("Dataset (Table 1)", ("", *(g if g != "all" else "All" for g in groups)), body))
    refinement = stats.get("refinement") or {}
    per_language = refinement.get("languages") or {}
    if per_language:
        body_rows = [
            (lang, fmt(values.get("added_pct")), fmt(values.get("removed_pct")), fmt(values.get("shared_pct")))
            for lang, values in sorted(per_language.items())
        ]
        overall = refinement.get("mean") or {}
        body_rows.append(
            ("Mean", fmt(overall.get("added_pct")), fmt(overall.get("removed_pct")), fmt(overall.get("shared_pct")))
        )
        tables.append(Table("Refinement (Table 2)", ("", "% added", "% removed", "% shared"), tuple(body_rows)))
    return tables


def provenance_table(lines: Sequence[tuple[str, str]]) -> Table:
    """What the evaluation was computed from (``provenance_lines``), as the report's first table."""
    return Table(title="Provenance", columns=("", "Value"), rows=tuple((label, value) for label, value in lines))


def _interval_cell(value: Mapping[str, Any] | None) -> str:
    """``75.00 [42.86, 100.00]``: the percentage and its 95% bootstrap interval."""
    value = value or {}
    point, low, high = value.get("percent"), value.get("low"), value.get("high")
    if point is None:
        return NA
    return f"{fmt(point)} [{fmt(low)}, {fmt(high)}]"


def domain_table(by_domain: Sequence[Mapping[str, Any]]) -> Table:
    """Accuracy, %MISS and the BAD rate per system and domain, each with its 95% bootstrap interval."""
    body = tuple(
        (
            str(row["system"]),
            str(row["domain"]),
            str(row["n"]),
            _interval_cell(row.get("accuracy")),
            _interval_cell(row.get("miss_rate")),
            _interval_cell(row.get("bad_rate")),
        )
        for row in by_domain
    )
    return Table(
        title="By domain",
        columns=("System", "Domain", "n", "Accuracy", "%MISS", "BAD rate"),
        rows=body,
        notes=(
            "Accuracy = GOOD / (GOOD + BAD); %MISS = MISS / n; BAD rate = BAD / n; "
            "[95% percentile bootstrap interval].",
        ),
    )
