"""The leaderboard and the pairwise significance tables as files: CSV (a name starting like a formula stays text),
Markdown (names escaped, small samples flagged) and LaTeX (booktabs). The rows are computed in the domain
(``annotator.domain.research_metrics``); this module only writes them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from annotator.domain.output_text import csv_text_cell, latex_escape, markdown_escape
from annotator.domain.research_metrics import DEFAULT_RESAMPLES

LEADERBOARD_COLUMNS = (
    "system", "lang", "pos", "n", "Accuracy", "CI95 low", "CI95 high", "macro Acc", "%MISS", "MFS", "MFS+",
    "SFII", "SPDI", "coverage", "precision", "recall", "F1",
)  # fmt: skip

#: The columns that hold names users gave (systems, languages, parts of speech); the others are numbers we format.
_NAME_COLUMNS = frozenset({"system", "lang", "pos", "system A", "system B"})


def _csv(rows: Sequence[dict[str, str]], columns: Sequence[str]) -> str:
    """CSV a spreadsheet may open: a name starting like a formula (``=HYPERLINK(...)``) stays text."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: csv_text_cell(row[c]) if c in _NAME_COLUMNS else row[c] for c in columns})
    return out.getvalue()


def _markdown_cell(value: str) -> str:
    """A Markdown table cell: names escaped (no images, links or HTML a viewer would load) and kept on one line."""
    return markdown_escape(value) or "–"


def leaderboard_csv(rows: Sequence[dict[str, str]]) -> str:
    return _csv(rows, LEADERBOARD_COLUMNS)


def leaderboard_markdown(rows: Sequence[dict[str, str]]) -> str:
    lines = ["| " + " | ".join(markdown_escape(c) for c in LEADERBOARD_COLUMNS) + " |"]
    lines.append("|" + "|".join("---" if c in ("system", "lang", "pos") else "---:" for c in LEADERBOARD_COLUMNS) + "|")
    lines += ["| " + " | ".join(_markdown_cell(row[c]) for c in LEADERBOARD_COLUMNS) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def leaderboard_latex(rows: Sequence[dict[str, str]]) -> str:
    """A ``booktabs`` table (``\\toprule`` / ``\\midrule`` / ``\\bottomrule``), one rule between systems."""
    spec = "lll" + "r" * (len(LEADERBOARD_COLUMNS) - 3)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    lines.append(" & ".join(latex_escape(c) for c in LEADERBOARD_COLUMNS) + " \\\\")
    lines.append("\\midrule")
    previous = None
    for row in rows:
        if previous is not None and row["system"] != previous:
            lines.append("\\midrule")
        previous = row["system"]
        lines.append(" & ".join(latex_escape(row[c]) if row[c] else "--" for c in LEADERBOARD_COLUMNS) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


SIGNIFICANCE_COLUMNS = ("system A", "system B", "lang", "n", "Acc A", "Acc B", "ΔAcc", "p")


#: Below this many items a pair's paired bootstrap p-value is flagged as unreliable (too few items to resample).
MIN_RELIABLE_ITEMS = 30
SMALL_SAMPLE_MARK = "†"


def p_value_text(p: str, resamples: str | int) -> str:
    """``p`` as written: ``< 1/B`` (e.g. ``< 0.001`` for B = 1000) when no resample reached the observed delta,
    since B resamples cannot show a p-value below 1/B; otherwise the four-decimal value."""
    if not p or not int(resamples) or float(p) > 0:
        return p
    return f"< {1 / int(resamples):g}"


def significance_markdown(rows: Sequence[dict[str, str]]) -> str:
    """The pairwise tests as a Markdown table; p is the two-sided paired bootstrap p-value.

    A p-value of 0 over B resamples is written ``< 1/B`` (Markdown-escaped, ``\\< 0.001``); a pair compared on fewer
    than 30 items is marked and warned about under the table, because a bootstrap over so few items is unstable.
    """
    lines = ["| " + " | ".join(markdown_escape(c) for c in SIGNIFICANCE_COLUMNS) + " |"]
    lines.append("|" + "|".join("---" if i < 3 else "---:" for i in range(len(SIGNIFICANCE_COLUMNS))) + "|")
    small = False
    for row in rows:
        cells = {c: _markdown_cell(row[c]) for c in SIGNIFICANCE_COLUMNS}
        cells["p"] = _markdown_cell(p_value_text(row["p"], row.get("resamples", DEFAULT_RESAMPLES)))
        if int(row["n"]) < MIN_RELIABLE_ITEMS:
            small = True
            cells["n"] = f"{row['n']} {SMALL_SAMPLE_MARK}"
        lines.append("| " + " | ".join(cells[c] for c in SIGNIFICANCE_COLUMNS) + " |")
    if small:
        lines.append("")
        warning = (
            f"{SMALL_SAMPLE_MARK} Warning: n < {MIN_RELIABLE_ITEMS} items — too few for a reliable paired bootstrap; "
            "treat that p-value as indicative only."
        )
        lines.append(markdown_escape(warning))
    return "\n".join(lines) + "\n"


def significance_csv(rows: Sequence[dict[str, str]]) -> str:
    return _csv(rows, SIGNIFICANCE_COLUMNS)
