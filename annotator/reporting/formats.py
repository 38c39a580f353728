"""Lay a ``Table`` out as Markdown, LaTeX (booktabs) or an HTML fragment; every cell is escaped for its format."""

from __future__ import annotations

import html
from collections.abc import Iterable

from annotator.domain.output_text import latex_escape, markdown_escape
from annotator.reporting.tables import Table

__all__ = ["latex_escape", "markdown_escape", "to_html", "to_latex", "to_markdown"]


def to_markdown(table: Table) -> str:
    lines = [f"### {markdown_escape(table.title)}", ""]
    lines.append("| " + " | ".join(markdown_escape(column) for column in table.columns) + " |")
    lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.columns))) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(markdown_escape(cell) for cell in row) + " |")
    lines.extend(f"\n{markdown_escape(note)}" for note in table.notes)
    return "\n".join(lines) + "\n"


def to_latex(table: Table) -> str:
    spec = "l" + "r" * (len(table.columns) - 1)
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(column) for column in table.columns) + r" \\",
        r"\midrule",
    ]
    for index, row in enumerate(table.rows):
        if row and row[0] == "Mean" and index == len(table.rows) - 1:
            lines.append(r"\midrule")
        lines.append(" & ".join(latex_escape(cell) for cell in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_html(table: Table, table_id: str) -> str:
    head = "".join(f"<th>{html.escape(column)}</th>" for column in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows)
    notes = "".join(f'<p class="note">{html.escape(note)}</p>' for note in table.notes)
    return (
        f'<section class="table" id="{html.escape(table_id)}"><h3>{html.escape(table.title)}</h3>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}</section>"
    )


def markdown_document(title: str, tables: Iterable[Table]) -> str:
    return f"# {markdown_escape(title)}\n\n" + "\n".join(to_markdown(table) for table in tables)


def latex_document(tables: Iterable[Table]) -> str:
    """Tables only, for ``\\input{}`` into a paper that loads ``booktabs``."""
    return "% Requires \\usepackage{booktabs}\n" + "\n".join(to_latex(table) for table in tables)
