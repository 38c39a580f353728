"""Benchmark: how long a writer frozen inside its transaction makes everyone else wait (issue 20, point 3).

A separate process opens a write transaction (it holds the write lock: SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
advisory lock), writes a row and is then stopped with SIGSTOP, as a frozen server or a paused VM would be. Meanwhile
a translator saves a candidate and someone logs in (a log-in writes the login throttle); each is timed until it
gets its answer — ``DatabaseBusyError`` after the busy time-out (15 s by default; the target is at most 16 s).
Before issue 20 PostgreSQL waited for ever.

Run: ``python benchmarks/bench_stalled_writer.py [--engine postgresql|sqlite|both] [--busy-ms 15000]
[--postgres-url URL]``. Without ``--postgres-url`` (a server's maintenance database) a throw-away cluster is
started with the tests' helper (tests/pg_cluster.py).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text

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
FROZEN_WRITER = """
import sys, time
from sqlalchemy import text
from annotator.project import Project

project = Project.open(sys.argv[1])
with project.db.write() as conn:
    conn.execute(text("INSERT INTO meta (key, value) VALUES ('frozen-writer', '1')"))
    print("holding", flush=True)
    time.sleep(3600)
"""


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
    writer = subprocess.Popen([sys.executable, "-c", FROZEN_WRITER, str(data)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "holding\n"
        os.kill(writer.pid, signal.SIGSTOP)
        service = CurationService(project, lead)
        waits = [
            timed_refusal("save a candidate", lambda: service.add_candidate(ITEM["id"], "IT", Side.GOOD, "goccio", 0)),
            timed_refusal("log in", lambda: log_in(project, "lena", "lead-password")),
        ]
    finally:
        writer.kill()
        writer.wait()
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
            cluster = None
            server = args.postgres_url
            if not server:
                sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
                from pg_cluster import Cluster

                cluster = Cluster()
                server = cluster.url()
            admin = create_engine(server, isolation_level="AUTOCOMMIT")
            name = f"annotator_bench_{uuid.uuid4().hex[:8]}"
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            try:
                os.environ["ANNOTATOR_DATABASE_URL"] = admin.url.set(database=name).render_as_string(False)
                waits = measure("postgresql", root)
                print(f"postgresql: a frozen writer made others wait at most {max(waits):.2f} s")
            finally:
                with admin.connect() as conn:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
                if cluster is not None:
                    cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
