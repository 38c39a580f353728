"""Benchmark: publish a curated synthetic project of N items × 5 languages (issue 35 target: 10,000 items < 30 s).

Run: ``python benchmarks/bench_publish.py [--items 10000] [--runs 3] [--keep DIR]``. The project is seeded like
``bench_export.py`` (every item-language done, cross-PoS BAD candidates in 10 %); the timed part is ``publish``
exactly as ``annotator publish`` runs it: the export, the Parquet file of every language and of the discards, the
SHA-256 of each, ``croissant.json``, the card and ``LICENSES/``, written in a hidden folder renamed at the end.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench_export import LANGS, seed

from annotator.data_export.publish import publish
from annotator.project import LexiconSettings, Project, ProjectSettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="seed into DIR once and reuse it on later runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        fresh = not (folder / "data" / "annotator.sqlite").exists()
        project = Project.open(folder / "data", create=fresh)
        if fresh:
            project.save_settings(ProjectSettings(name="bench", languages=LANGS, lexicon=LexiconSettings("snapshot")))
            started = time.perf_counter()
            seed(project, args.items, folder, 0.1)
            print(f"seed: {args.items} items × {len(LANGS)} languages in {time.perf_counter() - started:.1f} s")
        wall, cpu = [], []
        for run in range(args.runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            result = publish(project, Path(tmp) / f"published-{run}")
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        size = sum(p.stat().st_size for p in result.path.rglob("*.parquet"))
        rows = sum(n for config, n in result.rows.items() if config != "discarded")
        print(
            f"publish: {rows} item-language rows in {len(LANGS)} Parquet files ({size / 1e6:.1f} MB): "
            f"best {min(wall):.2f} s wall ({min(cpu):.2f} s CPU); runs {', '.join(f'{t:.2f}' for t in wall)} s "
            f"(target < 30 s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )


if __name__ == "__main__":
    main()
