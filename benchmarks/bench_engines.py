"""Benchmark: the same project on SQLite and on PostgreSQL — set-up, one curation save, concurrent saves, and the cost
of taking the write lock (``BEGIN IMMEDIATE`` / ``pg_advisory_xact_lock``).

Run: ``python benchmarks/bench_engines.py [--items 10000] [--saves 200] [--threads 4] [--postgres-url URL]``.

Without ``--postgres-url`` (a server's maintenance database, e.g. ``postgresql+psycopg://postgres@127.0.0.1/postgres``)
a throw-away cluster is started with the tests' helper (tests/support/pg_cluster.py: initdb + pg_ctl on a free
port). Each engine gets the project built through the services (import, pre-population from a generated snapshot:
5 languages per item), then a translator saves candidates on distinct item-languages: one at a time, then from
``--threads`` threads at once (the writers queue on the lock; the figures show what that costs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from synthetic import LANGS, write_inputs

from annotator.domain.model import Role, Side
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user, authenticate
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate


def summary(label: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"  {label:<32} median {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms   (n={len(ordered)})"


def build(root: Path, items: int) -> tuple[Project, str]:
    root.mkdir(parents=True, exist_ok=True)
    item_file, snapshot = write_inputs(root, items, lemmas=max(1, items // 5), senses=6)
    project = Project.open(root / "data", create=True)
    settings = ProjectSettings(
        name="bench", languages=LANGS, lexicon=LexiconSettings(provider="snapshot", snapshot=str(snapshot))
    )
    project.save_settings(settings)
    started = time.perf_counter()
    import_items(project, item_file)
    imported = time.perf_counter()
    prepopulate(project)
    done = time.perf_counter()
    add_user(project, "lead", Role.LEAD, (), "bench-password")  # a project's first account is a lead
    add_user(project, "translator", Role.TRANSLATOR, LANGS, "bench-password")
    return project, f"import {imported - started:.1f} s, pre-populate {done - imported:.1f} s"


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def measure(engine: str, root: Path, items: int, saves: int, threads: int) -> None:
    project, setup = build(root, items)
    print(f"{engine}: {items} items x {len(LANGS)} languages; set-up: {setup}")
    user = authenticate(project, "translator", "bench-password")
    assert user is not None
    service = CurationService(project, user)
    ids = [f"item-{n:05d}" for n in range(items)]

    def save(item_id: str, lang: str) -> None:
        version = service.view(item_id, lang).state.version
        service.add_candidate(item_id, lang, Side.GOOD, "bench-added", version)

    sequential = [timed(lambda i=i: save(ids[i % items], "IT")) for i in range(saves)]
    print(summary("one save (view + add)", sequential))

    def empty_write() -> None:
        with project.db.write():
            pass

    print(summary("empty write() (the lock alone)", [timed(empty_write) for _ in range(saves)]))

    latencies: list[float] = []
    lock = threading.Lock()
    per_thread = max(1, saves // threads)

    def worker(index: int) -> None:
        lang = LANGS[index % len(LANGS)] if LANGS[index % len(LANGS)] != "IT" else "DE"
        mine = []
        for n in range(per_thread):
            item_id = ids[(index * per_thread + n + saves) % items]
            mine.append(timed(lambda item_id=item_id: save(item_id, lang)))
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.perf_counter() - started
    print(summary(f"save with {threads} writers at once", latencies))
    print(f"  throughput with {threads} writers         {len(latencies) / elapsed:7.1f} saves/s")
    project.db.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--postgres-url", help="a PostgreSQL server's maintenance database (default: a temp cluster)")
    args = parser.parse_args()

    os.environ.pop("ANNOTATOR_DATABASE_URL", None)
    with tempfile.TemporaryDirectory() as tmp:
        measure("SQLite", Path(tmp) / "sqlite", args.items, args.saves, args.threads)

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
    from pg_cluster import scratch_database

    try:
        with scratch_database(args.postgres_url, "annotator_bench") as url:
            os.environ["ANNOTATOR_DATABASE_URL"] = url
            with tempfile.TemporaryDirectory() as tmp:
                measure("PostgreSQL", Path(tmp) / "pg", args.items, args.saves, args.threads)
    finally:
        os.environ.pop("ANNOTATOR_DATABASE_URL", None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
