"""Benchmark: what pre-population writes — database size and the time of ``annotator prepopulate``, 10,000 items ×
5 languages from the synthetic snapshot (the inputs of ``bench_label_studio.py``), for one or more source trees.

Each tree runs the three whole processes a user runs (``init --snapshot``, ``import``, ``prepopulate``) with
``PYTHONPATH`` set to it, trees alternating per pair; printed per run: wall / CPU seconds of each, the database's
size after the import and after pre-population, and the largest tables' pages and payload (SQLite ``dbstat``).

Run: ``python benchmarks/bench_prepopulate_size.py [--items 10000] [--pairs 1] [TREE ...]`` (default: this tree).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
from pathlib import Path

from synthetic import LANGS, write_inputs
from whole_process import run_annotator

HERE = Path(__file__).resolve().parent


def _annotator(tree: Path, data: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``annotator`` process run from ``tree``, rounded to hundredths."""
    wall, cpu = run_annotator(tree, data, *args)
    return round(wall, 2), round(cpu, 2)


def _megabytes(data: Path) -> float:
    return round(sum(f.stat().st_size for f in data.glob("annotator.sqlite*")) / 1e6, 1)


def _tables(data: Path) -> dict[str, tuple[float, float]]:
    """The five largest tables and indexes: (MB of pages, MB of payload)."""
    with sqlite3.connect(data / "annotator.sqlite") as conn:
        rows = conn.execute(
            "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 5"
        ).fetchall()
    return {name: (round(pages / 1e6, 1), round(payload / 1e6, 1)) for name, pages, payload in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("trees", nargs="*", type=Path, default=[HERE.parent])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items, snapshot = write_inputs(root, args.items, args.lemmas, args.senses)
        for pair in range(args.pairs):
            for number, tree in enumerate(args.trees if pair % 2 == 0 else args.trees[::-1]):
                data = root / f"data-{pair}-{number}"
                init = _annotator(tree, data, "init", "--name", "bench", "--languages", ",".join(LANGS),
                                  "--snapshot", str(snapshot))  # fmt: skip
                imported = _annotator(tree, data, "import", str(items), "--corpus-license", "unknown")
                after_import = _megabytes(data)
                prepopulated = _annotator(tree, data, "prepopulate")
                figures = {
                    "tree": str(tree),
                    "init (wall, cpu s)": init,
                    "import (wall, cpu s)": imported,
                    "prepopulate (wall, cpu s)": prepopulated,
                    "MB after import": after_import,
                    "MB after prepopulate": _megabytes(data),
                    "largest (MB pages, payload)": _tables(data),
                }
                print(json.dumps(figures, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
