"""Pausing Python's cyclic garbage collector while the evaluation's set-up from the live curation builds its inputs,
the one place where this measured a gain of 2× (issue 32; every other pause and freeze was removed for less).

Building the dataset from the rows and reading 100,000 translations allocates hundreds of thousands of small,
long-lived, acyclic objects; the collector's passes kept re-scanning them. ``benchmarks/bench_pages.py --only set-up``
at 10,000 items × 5 languages and 98,132 translations (SQLite, one core of a loaded 2-core machine, medians of 3
runs taking turns, ``compare_revisions.py``): without the pause and the freeze 19.3 s wall / 3.09 s CPU, with them
9.4 s / 1.45 s (2.1×). Reference counting still frees everything the work drops, so pausing loses nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the collector inside the block and restore its previous state after it (nesting is safe)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
