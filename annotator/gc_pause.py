"""Pausing Python's cyclic garbage collector around the two parts of an evaluation where this measured a gain of 2×:
the set-up from the live curation and the run itself (issue 32; every other pause and freeze, in import,
pre-population, export and the app's start-up, measured less and was removed).

Building the dataset from the rows and reading 100,000 translations allocates hundreds of thousands of small,
long-lived, acyclic objects; the collector's passes kept re-scanning them. ``benchmarks/bench_pages.py --only set-up``
at 10,000 items × 5 languages and 98,132 translations (SQLite, ``compare_revisions.py`` pinned to one core of a
shared 2-core machine, medians of 3 runs taking turns), without → with the pause and the freeze: CPU 3.09 → 1.45 s
and 2.83 → 1.39 s in two sessions (2.1×, 2.0×); wall 19.3 → 9.4 s and 10.7 → 5.7 s (2.1×, 1.9×: the machine's load).
The run (``evaluate()``, ``benchmarks/bench_evaluate.py``, 20,000 translations, the same set-up): without → with the
pause, 3,049 → 6,901 translations/s wall (2.3×; 2,450 → 4,911 at 10,000, 2.0×), CPU 6,502 → 8,988/s (1.4×; the
collector's full passes over a large heap also wait on memory, which CPU time does not count).
Reference counting still frees everything the work drops, so pausing loses nothing. Since the dataset keeps its
candidates as flat tuples (``evaluation.inputs.StoredSpec``) the set-up's gain is 1.3–1.4× (figures in
``services.evaluate_project.prepare_current``); removing the pause still costs more than 10 % (issue 32).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(*, age_survivors: bool = False) -> Iterator[None]:
    """Disable the collector inside the block and restore its previous state after it (nesting is safe).

    ``age_survivors``: on the way out, move the objects the block left alive into the oldest generation unscanned
    (``freeze`` then ``unfreeze``), so the first collection afterwards does not walk them all at once; later full
    passes still see them, so nothing leaks. Skipped when the caller keeps frozen objects of its own, since
    ``unfreeze`` would release those too. Measured with the run's pause above, not apart.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if age_survivors and not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
