"""Benchmark: import and pre-populate (snapshot provider) a synthetic project of N items × 5 languages.

Run: ``python benchmarks/bench_import_prepopulate.py [--items 10000]``. Each phase runs in a fresh process so
its peak RSS is its own; prints wall-clock and CPU seconds, peak RSS, and the longest single write
transaction (the longest any other writer could have had to wait for the lock).
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import resource
import sys
import tempfile
import time
from pathlib import Path

from synthetic import LANGS, write_inputs

from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate


class WriteTimes:
    """The recorder given to ``Database.write_recorder``: count, total and longest write transaction."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.longest = 0.0

    def __call__(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        self.longest = max(self.longest, seconds)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _phase(name: str, data: str, items_path: str, snapshot_path: str, results: multiprocessing.Queue) -> None:
    project = Project.open(data)
    times = WriteTimes()
    project.db.write_recorder = times
    cpu, wall = time.process_time(), time.perf_counter()
    if name == "import":
        summary = import_items(project, items_path).summary()
        loaded = wall
    else:
        lexicon = SnapshotLexicon.load(Path(snapshot_path))
        loaded = time.perf_counter()
        report = prepopulate(project, lexicon=lexicon)
        summary = f"{report.item_languages} item-languages, {report.outcome} run"
    done = time.perf_counter()
    results.put(
        {
            "wall": done - wall,
            "load": loaded - wall,
            "cpu": time.process_time() - cpu,
            "rss": _peak_rss_mb(),
            "writes": times.count,
            "write_total": times.total,
            "longest": times.longest,
            "summary": summary,
        }
    )


def _run_phase(name: str, *args: str) -> dict:
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_phase, args=(name, *args, results))
    process.start()
    while True:  # a phase that dies (a snapshot over the input limits) sends nothing: stop, not wait for ever
        try:
            result = results.get(timeout=1)
            break
        except queue.Empty:
            if not process.is_alive():
                sys.exit(f"{name} failed (exit {process.exitcode})")
    process.join()
    if process.exitcode:
        sys.exit(f"{name} failed (exit {process.exitcode})")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items_path, snapshot_path = write_inputs(root, args.items, args.lemmas, args.senses)
        project = Project.open(root / "data", create=True)
        settings = ProjectSettings(
            name="bench", languages=LANGS, lexicon=LexiconSettings(provider="snapshot", snapshot=str(snapshot_path))
        )
        project.save_settings(settings)
        project.db.dispose()
        paths = (str(root / "data"), str(items_path), str(snapshot_path))
        imported = _run_phase("import", *paths)
        prepared = _run_phase("prepopulate", *paths)
    print(f"items: {args.items} × {len(LANGS)} languages; lemmas: {args.lemmas}; senses per lemma: {args.senses}")
    for name, result in (("import", imported), ("pre-population", prepared)):
        print(
            f"{name + ':':16} {result['wall']:7.2f} s wall, {result['cpu']:7.2f} s CPU, "
            f"peak RSS {result['rss']:6.0f} MB  ({result['summary']})"
        )
        print(
            f"{'':16} {result['writes']} write transactions, {result['write_total']:.2f} s in total, "
            f"longest {result['longest'] * 1000:.0f} ms"
        )
    print(f"snapshot load:   {prepared['load']:7.2f} s (inside pre-population; {args.lemmas * args.senses} synsets)")
    longest = max(imported["longest"], prepared["longest"])
    print(f"longest single write transaction: {longest * 1000:.0f} ms")


if __name__ == "__main__":
    main()
