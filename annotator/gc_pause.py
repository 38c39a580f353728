"""Pausing Python's cyclic garbage collector around a long run that builds many long-lived objects; and the web
server's schedule for it (``use_server_schedule``).

Used by an evaluation's run, an export, a pre-population and the snapshot check. Why: their records, compiled
candidates and memos are many tracked objects that set off the collector's full passes over the whole heap, and those
passes free nothing, since the run holds every object until it ends; pausing cuts the run's CPU time measurably
(figures in benchmarks/RESULTS.md, "The collector"). Reference counting still frees everything the run drops, so
pausing loses nothing but the cyclic garbage a run makes (a lexicon's answers): ``YoungPasses`` collects that
between a run's batches.
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
            if age_survivors:
                age_objects_alive()
            gc.enable()


def age_objects_alive() -> None:
    """Move every object alive now into the oldest generation unscanned (``freeze`` then ``unfreeze``) and start the
    young count afresh: the next young pass walks only what is made after. Later full passes still see them, so
    nothing leaks. Skipped when the caller keeps frozen objects of its own, since ``unfreeze`` would release those
    too."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()


class YoungPasses:
    """Collects, between the batches of a run that pauses the collector, the young objects it made: one pass once
    they outnumber ``threshold``, so the cyclic garbage a run does make (a lexicon's answers) is freed as it goes.

    A pass walks every young object and pays off only by the garbage it frees; most of what a run keeps (its memos,
    its lexicon) is no garbage. So the pass's cost follows what it finds: after a pass that frees almost nothing
    (fewer than one object in ``FOUND_SHARE``), the next one waits for ``GROWTH`` times as many young objects as it
    walked, up to ``cap``; after one that frees more, passes come every ``base`` objects again. A run without cyclic
    garbage then pays for a pass or two, and one with it is collected as often as with a fixed ``base``; between two
    passes at most ``cap`` young objects pile up (and then only while the passes find next to no garbage among them).
    """

    #: A pass freeing fewer than one object in this many of those it walked found "almost nothing".
    FOUND_SHARE = 1_000
    #: How much longer the next pass waits after one that found almost nothing (the cap bounds it, not this).
    GROWTH = 4

    def __init__(self, base: int, cap: int) -> None:
        if not 0 < base <= cap:
            raise ValueError(f"the base ({base}) must be positive and at most the cap ({cap})")
        self.base, self.cap = base, cap
        self.threshold = base
        #: What the passes did: (young objects walked, objects freed), one pair per pass.
        self.passes: list[tuple[int, int]] = []

    def after_batch(self) -> None:
        """A batch is done: collect the young objects if they outnumber the threshold, and set the next one."""
        young = gc.get_count()[0]
        if young <= self.threshold:
            return
        freed = gc.collect(1)
        self.passes.append((young, freed))
        if freed * self.FOUND_SHARE < young:
            self.threshold = min(self.cap, max(self.base, self.GROWTH * young))
        else:
            self.threshold = self.base


#: The collector's thresholds in the web server: (young, middle, old) as ``gc.set_threshold`` takes them.
SERVER_THRESHOLDS = (700, 3, 33)


def use_server_schedule() -> None:
    """Collect the middle generation every third young pass instead of every tenth, and the whole heap as often as
    before (a full pass may come every 3 × 33 young passes, as under the default 10 × 10).

    Every Streamlit script run leaves cyclic garbage behind (the classes Streamlit's component presenter makes per
    call, a page file's namespace run afresh), still alive at the young pass that promotes it. Under the default
    schedule it piles up for ten young passes, and the one interaction that meets the middle pass pays for all of
    it at once; every third, the same garbage goes in passes a third as long, for about the same total. The old
    threshold keeps full passes, which walk every object a big page keeps (10,000 rows), from coming sooner (figures
    in benchmarks/RESULTS.md, "The collector in the server"). Idempotent: the app calls it on every run."""
    if gc.get_threshold() != SERVER_THRESHOLDS:
        gc.set_threshold(*SERVER_THRESHOLDS)
