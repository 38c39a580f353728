"""Pausing Python's cyclic garbage collector around a long run that builds many long-lived objects.

Used by an evaluation's run, an export, a pre-population and the snapshot check. Why: their records, compiled
candidates and memos are many tracked objects that set off the collector's full passes over the whole heap, and those
passes free nothing, since the run holds every object until it ends; pausing cuts the run's CPU time measurably
(figures in benchmarks/RESULTS.md, "The collector"). Reference counting still frees everything the run drops, so
pausing loses nothing.
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
    ``unfreeze`` would release those too.
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
