"""The ``annotator`` program in a process of its own (``cli.console``, as the installed command runs it): one thread,
so it may fork, and a count of the processes it forked, printed last on its standard output as ``forked N``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import atexit, os, sys
forks = []
fork = os.fork
def counted():
    pid = fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = counted
atexit.register(lambda: print("forked", len(forks), flush=True))
sys.argv = ["annotator", *sys.argv[1:]]
from annotator.cli import console
console()
"""


def run_program(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``annotator ARGS`` (this checkout's) to its end; its output as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def printed(done: subprocess.CompletedProcess[str]) -> tuple[str, int]:
    """What the program printed on its standard output before the count, and the count."""
    *lines, last = done.stdout.splitlines(keepends=True)
    assert last.startswith("forked "), done.stdout
    return "".join(lines), int(last.split()[1])
