"""Benchmark: the collector's passes between a pre-population's batches (``gc_pause.YoungPasses``), adaptive (the
run's own) against a fixed threshold (its base for every pass, as before), on two runs of the same synthetic items:

- a snapshot lexicon, whose run makes next to no cyclic garbage;
- BabelNet (the real client against the tests' fake server, in this process), whose HTTP answers do make some.

Each run is a fresh process; printed per run: the passes (young objects walked, objects freed), the seconds spent in
them, the run's CPU seconds and the peak RSS. Run: ``python benchmarks/bench_young_passes.py`` (``--items``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))
sys.path.insert(0, str(REPO / "benchmarks"))

from fake_babelnet import DEFAULT_KEY, FakeBabelNet  # noqa: E402  (the tests' fake server)
from synthetic import LANGS, write_inputs  # noqa: E402

from annotator.domain.settings import ProjectSettings  # noqa: E402
from annotator.gc_pause import YoungPasses  # noqa: E402
from annotator.lexicon.babelnet import BabelNetLexicon  # noqa: E402
from annotator.lexicon.http_cache import HttpCache  # noqa: E402
from annotator.lexicon.snapshot import SnapshotLexicon  # noqa: E402
from annotator.project import Project  # noqa: E402
from annotator.services import prepopulate as prepopulate_module  # noqa: E402
from annotator.services.importing import import_items  # noqa: E402


class _Timed(YoungPasses):
    """The run's passes, their seconds kept (the last one made is the run's)."""

    made: ClassVar[list[_Timed]] = []

    def __init__(self, base: int, cap: int) -> None:
        super().__init__(base, cap)
        self.seconds = 0.0
        _Timed.made.append(self)

    def after_batch(self) -> None:
        started = time.perf_counter()
        super().after_batch()
        self.seconds += time.perf_counter() - started


def _run(lexicon_kind: str, scheme: str, root: str, results: multiprocessing.Queue) -> None:
    data = Path(root) / f"{lexicon_kind}-{scheme}"
    project = Project.open(data, create=True)
    project.save_settings(ProjectSettings(name="bench", languages=LANGS))
    import_items(project, Path(root) / "items.jsonl")
    prepopulate_module.YoungPasses = _Timed  # type: ignore[misc]
    if scheme == "fixed":
        prepopulate_module.YOUNG_OBJECTS_CAP = prepopulate_module.YOUNG_OBJECTS_COLLECTED
    snapshot = Path(root) / "snapshot.json"
    cpu = time.process_time()
    if lexicon_kind == "snapshot":
        report = prepopulate_module.prepopulate(project, lexicon=SnapshotLexicon.load(snapshot))
    else:
        import json

        with FakeBabelNet(json.loads(snapshot.read_text("utf-8"))) as server:
            client = BabelNetLexicon(DEFAULT_KEY, HttpCache(data / "cache.sqlite"), base_url=server.base_url)
            report = prepopulate_module.prepopulate(project, lexicon=client)
    cpu = time.process_time() - cpu
    passes = _Timed.made[-1]
    results.put(
        {
            "passes": passes.passes,
            "seconds": passes.seconds,
            "cpu": cpu,
            "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "summary": f"{report.item_languages} item-languages, {report.outcome}",
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=4_000)
    parser.add_argument("--lemmas", type=int, default=800)
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        write_inputs(Path(tmp), args.items, args.lemmas, 5)
        print(f"items: {args.items} × {len(LANGS)} languages; lemmas: {args.lemmas}")
        for lexicon_kind in ("snapshot", "babelnet"):
            for scheme in ("fixed", "adaptive"):
                results = context.Queue()
                process = context.Process(target=_run, args=(lexicon_kind, scheme, tmp, results))
                process.start()
                result = results.get()
                process.join()
                walked = sum(young for young, _freed in result["passes"])
                freed = sum(freed for _young, freed in result["passes"])
                print(
                    f"{lexicon_kind:8} {scheme:8}: {len(result['passes']):3} passes, {walked:9,} young objects "
                    f"walked, {freed:8,} freed, {result['seconds']:.3f} s in passes; run {result['cpu']:.2f} s CPU, "
                    f"peak RSS {result['rss']:.0f} MB ({result['summary']})"
                )


if __name__ == "__main__":
    main()
