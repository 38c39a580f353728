"""Benchmark: ``annotator init --snapshot`` and ``annotator import`` as a user runs them, whole processes (start-up
included), on the synthetic inputs ``bench_label_studio.py`` builds (its "import only" row is these two commands).

Run: ``python benchmarks/bench_init_import.py [--items 10000] [--runs 3] [--tree PATH …]``. Each ``--tree`` is a
source tree of annotator (default: this one), run with ``PYTHONPATH=<tree>``; several trees take turns, run by run,
so a machine that gets busier weighs on each alike. Prints the median wall-clock and CPU seconds (the process's
user + system time) of each command per tree.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

from synthetic import LANGS, write_inputs
from whole_process import run_annotator

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", help="an annotator source tree (repeatable)")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree or [HERE.parent]]
    times: dict[tuple[int, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items, snapshot = write_inputs(root, args.items, args.lemmas, args.senses)
        for _run in range(args.runs):
            for number, tree in enumerate(trees):
                data = root / "data"
                init = ("init", "--name", "bench", "--languages", ",".join(LANGS), "--snapshot", str(snapshot))
                times.setdefault((number, "init"), []).append(run_annotator(tree, data, *init))
                imported = run_annotator(tree, data, "import", str(items), "--corpus-license", "unknown")
                times.setdefault((number, "import"), []).append(imported)
                shutil.rmtree(data)
    print(f"items: {args.items} × {len(LANGS)} languages; lemmas: {args.lemmas}; senses per lemma: {args.senses}")
    for number, tree in enumerate(trees):
        if len(trees) > 1:
            print(f"== {tree}")
        for command in ("init", "import"):
            runs = times[(number, command)]
            wall = statistics.median(run[0] for run in runs)
            cpu = statistics.median(run[1] for run in runs)
            print(f"{command + ':':8} {wall:7.2f} s wall, {cpu:6.2f} s CPU (median of {len(runs)})")


if __name__ == "__main__":
    main()
