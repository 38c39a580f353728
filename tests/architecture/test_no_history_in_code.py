"""annotator/ reads like a map: no revision hash or tracker number in its code, docstrings or comments.

History belongs in commit messages and figures in benchmarks/RESULTS.md; a hash or an "issue 32" in the code only
says when something changed, goes stale, and buries the contract the comment should state.
"""

import re
from pathlib import Path

#: The repository root: the nearest folder above this test that holds the package (tests/ or tests/<layer>/).
ROOT = next(folder for folder in Path(__file__).resolve().parents if (folder / "annotator" / "__init__.py").exists())
PACKAGE = ROOT / "annotator"

# A revision: 7 to 40 hex digits standing alone, with at least one digit and one letter (so neither an English word
# nor a plain number matches); a tracker number: "issue 32", "Issues 12 and 14", "#12".
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z_-])[0-9a-f]{7,40}(?![0-9A-Za-z_-])")
# A colour ("color: #222", "color:#000") is not a tracker number: no ':' before it.
_TRACKER = re.compile(r"\bissues?\s*#?\d+|(?<![\w&#/:])(?<!: )#\d{1,5}\b", re.IGNORECASE)
_SCANNED_SUFFIXES = {".py", ".js", ".css", ".html", ".md", ".toml", ".ini", ".mako", ".txt", ".json"}


def _is_revision(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def history_in_text(text: str) -> list[tuple[int, str]]:
    """(line number, offending text) for each revision hash or tracker number in ``text``."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        found += [(number, m.group(0)) for m in _HEX_RUN.finditer(line) if _is_revision(m.group(0))]
        found += [(number, m.group(0)) for m in _TRACKER.finditer(line)]
    return found


def history_in_package(package: Path = PACKAGE) -> list[str]:
    """Every ``path:line: text`` in the package's text files that names a revision or a tracker number."""
    hits: list[str] = []
    for path in sorted(package.rglob("*")):
        if path.suffix not in _SCANNED_SUFFIXES or not path.is_file() or "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{path.relative_to(package.parent)}:{n}: {what}" for n, what in history_in_text(text)]
    return hits


def test_the_checker_finds_hashes_and_tracker_numbers() -> None:
    text = "\n".join(
        [
            "# fast since 46285f4 (issue 32)",
            "x = 1  # see #12",
            '"""Issues 7 and 9: the cache; 9fb1c3c0aa."""',
            "colour = '#a1b2c3'  # six digits, a colour",
            "body { color: #222; } mark { color:#000 }",
            "count = 1234567  # a plain number",
            "word = 'accede'  # letters only",
        ]
    )
    assert history_in_text(text) == [(1, "46285f4"), (1, "issue 32"), (2, "#12"), (3, "9fb1c3c0aa"), (3, "Issues 7")]


def test_no_revision_hash_or_tracker_number_in_the_package() -> None:
    hits = history_in_package()
    assert not hits, "history in annotator/ (move it to a commit message or benchmarks/RESULTS.md):\n" + "\n".join(hits)
