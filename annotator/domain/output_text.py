"""User text (system names, ids, notes) written into files other programs interpret: CSV opened in a spreadsheet,
Markdown rendered by a viewer. Pure functions shared by the curation sheets and the evaluation outputs, so every
output neutralises the same characters.
"""

from __future__ import annotations

#: What a spreadsheet would run as a formula (or treat specially) when a cell starts with it.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN_SYNTAX = frozenset("\\`*_[]<>|$~")


def is_formula_like(text: str) -> bool:
    return text.startswith(FORMULA_PREFIXES)


def csv_text_cell(text: str) -> str:
    """A text cell for a CSV a spreadsheet may open: one starting like a formula gets a leading apostrophe (the
    spreadsheet's own "this is text" mark, as the sheets' quote prefix), so ``=HYPERLINK(...)`` stays text."""
    return "'" + text if is_formula_like(text) else text


def markdown_escape(text: str) -> str:
    """Cells are data: escape what Markdown would read as syntax, and keep each row on one line."""
    out = []
    for char in " ".join(text.split()):
        if char in _MARKDOWN_SYNTAX:
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def latex_escape(text: str) -> str:
    """Text in a LaTeX table cell: every special character written as its command."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
