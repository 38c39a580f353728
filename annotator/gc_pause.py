"""Pausing Python's cyclic garbage collector while the evaluation's set-up from the live curation builds its inputs,
the one place where this measured a gain of 2× (issue 32; every other pause and freeze was removed for less).

Building the dataset from the rows and reading 100,000 translations allocates hundreds of thousands of small,
long-lived, acyclic objects; the collector's passes kept re-scanning them. ``benchmarks/bench_pages.py --only set-up``
at 10,000 items × 5 languages and 98,132 translations (SQLite, ``compare_revisions.py`` pinned to one core of a
shared 2-core machine, medians of 3 runs taking turns), without → with the pause and the freeze: CPU 3.09 → 1.45 s
and 2.83 → 1.39 s in two sessions (2.1×, 2.0×); wall 19.3 → 9.4 s and 10.7 → 5.7 s (2.1×, 1.9×: the machine's load).
Reference counting still frees everything the work drops, so pausing loses nothing.
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
