"""Presenting metrics: the fixed-width terminal table and its display rows (also shown by the Evaluate page)."""

from __future__ import annotations

from annotator.domain.metrics import ALL, Metrics, MetricsReport, Rate


def _left_out(count: int) -> str:
    return f", {count} left out" if count else ""


def _cell(rate: Rate, left_out: int = 0) -> str:
    percent = rate.percent
    value = "n/a" if percent is None else f"{percent:.2f}"
    return f"{value} ({rate.count}/{rate.total}{_left_out(left_out)})"


def _grouped_cell(percent: float | None, used: int, left_out: int = 0) -> str:
    value = "n/a" if percent is None else f"{percent:.2f}"
    return f"{value} ({used} group{'' if used == 1 else 's'}{_left_out(left_out)})"


def metrics_table_rows(metrics: MetricsReport) -> list[dict[str, str]]:
    """The table as rows of display strings (system, lang, pos, n, Accuracy, %MISS, MFS, MFS+, SFII, SPDI)."""
    rows = []
    for row in metrics.rows:
        rows.append(_display_row(row))
    return rows


def _display_row(row: Metrics) -> dict[str, str]:
    return {
        "system": row.system,
        "lang": row.lang,
        "pos": row.pos,
        "n": str(row.items),
        "Accuracy": _cell(row.accuracy),
        "%MISS": _cell(row.miss_rate),
        "MFS": _cell(row.mfs),
        "MFS+": _cell(row.mfs_plus, row.mfs_plus_left_out),
        "no prov.": str(row.bad_without_provenance),
        "SFII": _grouped_cell(row.sfii.percent, len(row.sfii.used), row.sfii.left_out),
        "SPDI": _grouped_cell(row.spdi.percent, len(row.spdi.used), row.spdi.left_out),
        "inspected": str(row.inspected),
    }


def format_metrics_table(metrics: MetricsReport) -> str:
    """A fixed-width text table, counts beside every percentage; ``n/a`` where a denominator is empty.

    "no prov." counts the BAD results whose ω has no provenance (left out of MFS and MFS+); "N left out" in MFS+,
    SFII and SPDI counts the items without μ(σ) (MFS+, SFII) or δ(λ) (SPDI) in the dataset.
    """
    rows = metrics_table_rows(metrics)
    if not rows:
        return "no translations evaluated"
    columns = list(rows[0])
    widths = {name: max(len(name), *(len(row[name]) for row in rows)) for name in columns}
    left = {"system", "lang", "pos"}

    def render(values: dict[str, str]) -> str:
        cells = [values[n].ljust(widths[n]) if n in left else values[n].rjust(widths[n]) for n in columns]
        return "  ".join(cells).rstrip()

    lines = [render({name: name for name in columns}), "  ".join("-" * widths[name] for name in columns)]
    previous_scope: tuple[str, str] | None = None
    for row in rows:
        scope = (row["system"], row["lang"])
        if previous_scope is not None and scope != previous_scope and row["pos"] == ALL:
            lines.append("")
        previous_scope = scope
        lines.append(render(row))
    return "\n".join(lines)
