"""Benchmark: how long a writer frozen inside its transaction makes everyone else wait (issue 20, point 3).

A separate process opens a write transaction (it holds the write lock: SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
advisory lock), writes a row and is then stopped with SIGSTOP, as a frozen server or a paused VM would be. Meanwhile
a translator saves a candidate and someone logs in (a log-in writes the login throttle); each is timed until it
gets its answer — ``DatabaseBusyError`` after the busy time-out (15 s by default; the target is at most 16 s).
Before issue 20 PostgreSQL waited for ever.

Run: ``python benchmarks/bench_stalled_writer.py [--engine postgresql|sqlite|both] [--busy-ms 15000]
[--postgres-url URL]``. Without ``--postgres-url`` (a server's maintenance database) a throw-away cluster is
started with the tests' helper (tests/support/pg_cluster.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from frozen_writer import frozen_writer  # the tests' stalled writer: the benchmark measures the very same one
from pg_cluster import scratch_database

from annotator.domain.model import Role, Side
from annotator.errors import DatabaseBusyError
from annotator.project import Project, ProjectSettings
from annotator.services.accounts import add_user, log_in
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.store.database import BUSY_TIMEOUT_ENV

ITEM = {
    "id": "shot-whiskey",
    "sentence": "He poured a shot of whiskey.",
    "target": "shot",
    "lemma": "shot",
    "pos": "NOUN",
    "synset": "bn:00057755n",
}


def timed_refusal(label: str, call: Callable[[], object]) -> float:
    started = time.perf_counter()
    try:
        call()
    except DatabaseBusyError as error:
        waited = time.perf_counter() - started
        print(f"  {label:<28} waited {waited:6.2f} s, then: {error}")
        return waited
    raise AssertionError(f"{label}: not refused although the writer holds the lock")


def measure(engine: str, root: Path) -> list[float]:
    data = root / engine
    project = Project.open(data, create=True)
    project.save_settings(ProjectSettings(name="bench"))
    items = root / "items.jsonl"
    items.write_text(json.dumps(ITEM) + "\n", encoding="utf-8")
    import_items(project, items)
    lead = add_user(project, "lena", Role.LEAD, (), "lead-password")
    project.db.dispose()
    project = Project.open(data)  # with the busy time-out of the environment
    print(f"{engine}: busy time-out {project.db.busy_timeout_ms / 1000:g} s")
    with frozen_writer(data):
        service = CurationService(project, lead)
        waits = [
            timed_refusal("save a candidate", lambda: service.add_candidate(ITEM["id"], "IT", Side.GOOD, "goccio", 0)),
            timed_refusal("log in", lambda: log_in(project, "lena", "lead-password")),
        ]
    started = time.perf_counter()
    service.add_candidate(ITEM["id"], "IT", Side.GOOD, "goccio", 0)
    print(f"  {'save once the writer is gone':<28} {1000 * (time.perf_counter() - started):6.1f} ms")
    project.db.dispose()
    return waits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("postgresql", "sqlite", "both"), default="postgresql")
    parser.add_argument("--busy-ms", type=int, help=f"the busy time-out ({BUSY_TIMEOUT_ENV}); default: 15000")
    parser.add_argument("--postgres-url", help="a PostgreSQL server's maintenance database (default: a new cluster)")
    args = parser.parse_args()
    if args.busy_ms is not None:
        os.environ[BUSY_TIMEOUT_ENV] = str(args.busy_ms)
    engines = ("sqlite", "postgresql") if args.engine == "both" else (args.engine,)
    with tempfile.TemporaryDirectory(prefix="bench-stalled-") as folder:
        root = Path(folder)
        if "sqlite" in engines:
            os.environ.pop("ANNOTATOR_DATABASE_URL", None)
            measure("sqlite", root)
        if "postgresql" in engines:
            with scratch_database(args.postgres_url or None, "annotator_bench") as url:
                os.environ["ANNOTATOR_DATABASE_URL"] = url
                waits = measure("postgresql", root)
                print(f"postgresql: a frozen writer made others wait at most {max(waits):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
