"""Pausing Python's cyclic garbage collector around an evaluation's run (``evaluation.run.evaluate``): the one pause
left (issue 32; every other pause and freeze, in import, pre-population, export, the app's start-up and, since
session 38, the set-up from the live curation, was removed).

The run's tracked objects set off the collector's full passes over the whole heap: 8 at 20,000 translations, about
1.1 s of CPU. Most come from the compiled candidates (``CandidatePattern``, ``Candidate``, ``SurfacePiece`` per
language) and the segment analyses, not from the results: with no result kept (``AnalysedTranslation`` and its
``Analysis`` and ``MatchResult`` dropped) there are still 7 full passes, 0.76 s.
``benchmarks/bench_evaluate.py`` (20,000 translations, pinned to one core of a shared 2-core machine, runs taking
turns, session 38): without → with the pause, CPU 3.10–3.49 → 1.99–2.49 s (median 3.34 → 2.43 s, 1.4×); wall
4.2–11.1 → 2.7–6.7 s (other work shared the core: no ratio can be read from it). The figures before (wall 3,049 →
6,901 translations/s, 2.3×; CPU 1.4×) agree on CPU time. On the quiet machine at the end of session 38, one core,
three runs taking turns: without → with, wall 3.56 / 3.65 / 3.20 → 2.14 / 2.22 / 2.27 s (1.4–1.7×, median 1.64×).
Below the 2× the project asks of a trick, so it is
kept only because removing it costs about +40 % CPU on the run (issue 32, acceptance 4); the way out is the matcher's
compiled candidates (``domain.matching``) and then the results as exact tuples with views built on access, as
``inputs.Translations`` does.
Reference counting still frees everything the work drops, so pausing loses nothing.
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
