"""One ``annotator`` command as a whole process run from a source tree, timed: the helper the benchmarks that
compare source trees share."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_package(tree: Path) -> None:
    """Write the bytecode of ``tree``'s ``annotator`` package, as installing a wheel does and as Python does on a
    first import by default: without it, a process started with ``PYTHONDONTWRITEBYTECODE`` (as on this machine)
    compiles every module it imports, a cost the peers, installed by pip with their bytecode, do not pay."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "annotator")], check=True, stdout=subprocess.DEVNULL
    )


def run_annotator(tree: Path, data: Path, *args: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``annotator`` command run from ``tree`` on the project folder ``data``."""
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "annotator.cli", "--data", str(data), *args],
        check=True,
        cwd=tree,  # ``python -m`` puts the working folder first on the path: it must be the tree measured
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - wall, children_cpu() - cpu
