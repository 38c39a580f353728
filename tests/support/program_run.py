"""The ``annotator`` program in a process of its own (``cli.console``, as the installed command runs it): one thread,
so it may fork. An exit handler prints last on its standard output how many processes it forked and whether what
was alive had been frozen by then: ``exit: forked N, frozen True``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import atexit, gc, os, sys
forks = []
fork = os.fork
def counted():
    pid = fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = counted
atexit.register(lambda: print(f"exit: forked {len(forks)}, frozen {gc.get_freeze_count() > 0}", flush=True))
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


class Printed(NamedTuple):
    """What the program printed on its standard output before its exit handler's line, and that line's figures."""

    out: str
    forked: int
    frozen: bool


def printed(done: subprocess.CompletedProcess[str]) -> Printed:
    *lines, last = done.stdout.splitlines(keepends=True)
    found = re.fullmatch(r"exit: forked (\d+), frozen (True|False)\n?", last)
    assert found, done.stdout
    return Printed("".join(lines), int(found[1]), found[2] == "True")
