"""The modules that once held several jobs stay split along their seams: none of them grows past 450 lines again.

Covered: the suggestions services, the matching domain, the evaluation's inputs, the lexicon snapshot and the app's
session state (each now a package or a family of modules).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.source_trees import write_source

PACKAGE = Path(__file__).resolve().parents[2] / "annotator"
MAX_LINES = 450
#: Globs, relative to the package, of the modules split by job.
SPLIT_MODULES = (
    "services/suggestions/*.py",
    "domain/matching/*.py",
    "evaluation/inputs/*.py",
    "lexicon/snapshot*.py",
    "app/session.py",
    "app/messages.py",
    "app/project_cache.py",
    "app/guards.py",
    "app/faults.py",
)


def oversized(root: Path, globs: tuple[str, ...], limit: int) -> list[str]:
    """``path: N lines`` for every module matched by ``globs`` under ``root`` longer than ``limit`` lines."""
    found: list[str] = []
    for pattern in globs:
        for path in sorted(root.glob(pattern)):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def test_every_glob_names_modules() -> None:
    empty = [pattern for pattern in SPLIT_MODULES if not list(PACKAGE.glob(pattern))]
    assert not empty, f"patterns matching no module (renamed? update the list): {empty}"


def test_split_modules_stay_small() -> None:
    assert not oversized(PACKAGE, SPLIT_MODULES, MAX_LINES)


@pytest.mark.parametrize("lines, reported", [(MAX_LINES, False), (MAX_LINES + 1, True)])
def test_the_check_reports_a_module_one_line_too_long(tmp_path: Path, lines: int, reported: bool) -> None:
    write_source(tmp_path, "domain/matching/grown.py", "x = 1\n" * lines)
    found = oversized(tmp_path, ("domain/matching/*.py",), MAX_LINES)
    assert found == ([f"domain/matching/grown.py: {lines} lines"] if reported else [])
