"""Benchmark (issue 12): each hostile file is handed to the command line in a fresh process; prints the outcome,
wall-clock seconds and peak RSS (the child's own ``ru_maxrss``). Targets: under 5 s and 300 MB each.

Run: ``python benchmarks/bench_hostile_files.py``. Builds its files in a temporary folder (about 700 MB of disk
at most; each file is deleted after its run).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import hostile_files as hf  # the tests' builders: the benchmark measures the very same files

MB = 1024 * 1024
TIME_TARGET_S = 5.0
RSS_TARGET_MB = 300.0


def _dataset(folder: Path) -> Path:
    path = folder / "dataset.jsonl"
    path.write_text(json.dumps(hf.DATASET_LINE) + "\n", encoding="utf-8")
    return path


def cases(folder: Path, data: str, sheet_shapes: dict[str, Path]) -> list[tuple[str, Callable[[], Path], list[str]]]:
    """(label, build the file, the command line's arguments with ``{}`` for the file)."""
    items = ["import", "{}", "--data", data]
    sheet = ["sheet", "import", "{}", "--user", "lead", "--data", data]
    snapshot = ["lexicon", "use-snapshot", "{}", "--data", data]
    evaluate = ["evaluate", str(_dataset(folder)), "{}", "--out", str(folder / "out")]
    return [
        ("items: xlsx declaring A1:XFD1048576", lambda: hf.xlsx_declared_dimension(folder), items),
        ("items: xlsx with a value in column XFD", lambda: hf.xlsx_declared_dimension(folder, "far.xlsx", True), items),
        ("items: xlsx with 1,000,000 empty-ish rows", lambda: hf.xlsx_million_rows(folder), items),
        ("items: csv with a 300 MB sentence", lambda: hf.csv_long_sentence(folder, 300 * MB), items),
        ("items: jsonl with a 90 MB sentence", lambda: hf.jsonl_long_string(folder, 90 * MB), items),
        ("items: xlsx with a 300 MB sentence", lambda: hf.xlsx_long_sentence(folder, 300 * MB), items),
        ("sheet: 1,000,000 empty-ish rows", lambda: sheet_shapes["million"], sheet),
        ("sheet: a 40 MB cell", lambda: sheet_shapes["long-cell"], sheet),
        ("sheet: a value in column XFD", lambda: sheet_shapes["far-column"], sheet),
        ("snapshot: jsonl with a 90 MB gloss", lambda: hf.snapshot_long_gloss(folder, 90 * MB), snapshot),
        (
            "snapshot: json with a 90 MB gloss",
            lambda: hf.snapshot_long_gloss(folder, 90 * MB, "snapshot.json"),
            snapshot,
        ),
        ("snapshot: jsonl of 300 MB", lambda: hf.snapshot_long_gloss(folder, 300 * MB, "big.jsonl"), snapshot),
        ("evaluate: translations with a 90 MB line", lambda: hf.translations_long(folder, 90 * MB), evaluate),
        ("evaluate: translations of 300 MB", lambda: hf.translations_long(folder, 300 * MB, "big.jsonl"), evaluate),
    ]


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    from annotator.commands.project import create_demo
    from annotator.data_export.spreadsheet import DATA_SHEET, sheet_bytes
    from annotator.data_import.limits import InputLimits
    from annotator.data_import.xlsx import Workbook
    from annotator.project import Project

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "data"
        create_demo(str(data), quiet=True)
        name, sheet = sheet_bytes(Project.open(data), "IT")
        exported = folder / name
        exported.write_bytes(sheet)
        with Workbook(exported, InputLimits()) as workbook:
            member = workbook.sheets[DATA_SHEET]
        shapes = hf.sheet_shapes(exported, folder, member)
        print(f"{'file':45} {'size':>10} {'exit':>4} {'seconds':>8} {'peak MB':>8}  message")
        worst_time = worst_rss = 0.0
        for label, build, arguments in cases(folder, str(data), shapes):
            path = build()
            size = path.stat().st_size
            measured = hf.run_cli_measured([str(path) if a == "{}" else a for a in arguments], timeout=300)
            worst_time, worst_rss = max(worst_time, measured.seconds), max(worst_rss, measured.peak_rss_mb)
            message = measured.stderr.splitlines()[0] if measured.stderr else "(accepted)"
            print(
                f"{label:45} {size / MB:>8.1f}MB {measured.returncode:>4} {measured.seconds:>8.2f} "
                f"{measured.peak_rss_mb:>8.1f}  {message[:110]}"
            )
            if path.parent == folder and path.name not in ("dimension.xlsx",):
                path.unlink()
        verdict = "within" if worst_time < TIME_TARGET_S and worst_rss < RSS_TARGET_MB else "OVER"
        print(
            f"worst: {worst_time:.2f} s, {worst_rss:.1f} MB peak RSS — {verdict} the targets "
            f"({TIME_TARGET_S:.0f} s, {RSS_TARGET_MB:.0f} MB)"
        )


if __name__ == "__main__":
    main()
