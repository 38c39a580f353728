"""A second process that takes the project's write lock and is then frozen (SIGSTOP), for the busy-database tests.

Shared by tests/test_database_faults.py and benchmarks/bench_stalled_writer.py, so both meet the very same writer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Opens the project, takes the write lock, writes a row and says so; ``frozen_writer`` then freezes it (SIGSTOP).
FROZEN_WRITER = """
import sys, time
from sqlalchemy import text
from annotator.project import Project

project = Project.open(sys.argv[1])
with project.db.write() as conn:
    conn.execute(text("INSERT INTO meta (key, value) VALUES ('frozen-writer', '1')"))
    print("holding", flush=True)
    time.sleep(600)
"""


@contextmanager
def frozen_writer(data: Path) -> Iterator[None]:
    """Another process stopped (SIGSTOP) inside its write transaction, as a frozen server or a paused VM is."""
    process = subprocess.Popen([sys.executable, "-c", FROZEN_WRITER, str(data)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "holding\n"
        os.kill(process.pid, signal.SIGSTOP)
        yield
    finally:
        process.kill()  # SIGKILL ends a stopped process too; its transaction is rolled back
        process.wait(timeout=30)
