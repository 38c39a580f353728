"""The metrics report of a run: the leaderboard files and rebuilding the metrics input from ``analysed.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotator.atomic_files import check_output_files, write_text_atomic
from annotator.domain.metrics import ScoredItem
from annotator.domain.research_metrics import DEFAULT_SEED, leaderboard_rows, significance_rows
from annotator.evaluation.leaderboard import (
    leaderboard_csv,
    leaderboard_latex,
    leaderboard_markdown,
    significance_csv,
    significance_markdown,
)
from annotator.evaluation.provenance import provenance_latex_comment, provenance_markdown
from annotator.evaluation.run import EvaluationResult

LEADERBOARD_FILES = {"csv": "leaderboard.csv", "md": "leaderboard.md", "tex": "leaderboard.tex"}
SIGNIFICANCE_FILES = {"significance_csv": "significance.csv", "significance_md": "significance.md"}
#: The CSV tables stay plain tables any CSV reader parses; their provenance is this file beside them.
PROVENANCE_FILE = "provenance.json"


def leaderboard_paths(folder: Path) -> list[Path]:
    """Every file ``write_leaderboard`` may write in ``folder`` (the significance files with two systems or more)."""
    names = [PROVENANCE_FILE, *LEADERBOARD_FILES.values(), *SIGNIFICANCE_FILES.values()]
    return [folder / name for name in names]


def write_leaderboard(result: EvaluationResult, out_dir: str | Path, resamples: int = 1000) -> dict[str, Path]:
    """Write the leaderboard (every metric, bootstrap CI, macro accuracy, MuCoW scores) as CSV, Markdown, LaTeX.

    With two or more systems, also the paired bootstrap test between every two (``significance.csv`` / ``.md``).
    """
    rows = leaderboard_rows(
        [r.scored() for r in result.results], [r.item.synset for r in result.results], resamples=resamples
    )
    folder = Path(out_dir)
    check_output_files(leaderboard_paths(folder))  # all refused before the first is written
    provenance = dict(result.provenance) | {"bootstrap": {"resamples": resamples, "seed": DEFAULT_SEED}}
    written = {"provenance": folder / PROVENANCE_FILE}
    write_text_atomic(written["provenance"], json.dumps(provenance, ensure_ascii=False, indent=2) + "\n")
    stated = provenance_markdown(provenance)
    texts = {
        "csv": leaderboard_csv(rows),
        "md": leaderboard_markdown(rows) + "\n" + stated,
        "tex": provenance_latex_comment(provenance) + leaderboard_latex(rows),
    }
    for kind, text in texts.items():
        path = folder / LEADERBOARD_FILES[kind]
        write_text_atomic(path, text)
        written[kind] = path
    systems = {r.translation.system for r in result.results}
    if len(systems) > 1:  # a paired test needs two systems on the same items
        tests = significance_rows(
            ((r.translation.system, r.translation.item_id, r.translation.lang, str(r.outcome)) for r in result.results),
            resamples=resamples,
        )
        for kind, render in (("significance_csv", significance_csv), ("significance_md", significance_markdown)):
            path = folder / SIGNIFICANCE_FILES[kind]
            text = render(tests) + ("\n" + stated if kind == "significance_md" else "")
            write_text_atomic(path, text)
            written[kind] = path
    return written


def scored_from_record(record: dict[str, Any]) -> ScoredItem:
    """Rebuild the metrics input from one ``analysed.jsonl`` line (to recompute or filter metrics later)."""
    return ScoredItem(
        system=record["system"],
        lang=record["lang"],
        pos=record["pos"],
        outcome=record["result"],
        sense_rank=record["sense_rank"],
        polysemy_degree=record["polysemy_degree"],
        omega_rank=record.get("omega_rank") if record["result"] == "BAD" else None,
    )
