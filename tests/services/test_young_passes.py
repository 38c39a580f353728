"""The collector's passes between the batches of a run that pauses it (``YoungPasses``), over real objects: a run
that makes cyclic garbage is collected every ``base`` young objects, one that makes none pays for a few passes only,
and the young objects piling up between two passes never outnumber the cap (plus one batch)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from annotator.gc_pause import YoungPasses, age_objects_alive, gc_paused

BASE, CAP = 20_000, 80_000
#: Objects one batch makes (a batch of a run makes a few thousand).
PER_BATCH = 2_000


class _Node:
    """One half of a reference cycle; counts the nodes alive."""

    alive = 0

    def __init__(self) -> None:
        _Node.alive += 1
        self.other: object = None

    def __del__(self) -> None:
        _Node.alive -= 1


def _garbage_batch() -> None:
    """A batch that leaves PER_BATCH objects of cyclic garbage (pairs of nodes, each with its instance dict
    untracked or not: only the nodes are counted)."""
    for _ in range(PER_BATCH // 2):
        first, second = _Node(), _Node()
        first.other, second.other = second, first


def _kept_batch(kept: list[object]) -> None:
    """A batch whose PER_BATCH young objects all stay alive (a run's memos): no garbage."""
    kept.extend([n] for n in range(PER_BATCH))


@pytest.fixture
def paused() -> Iterator[None]:
    gc.collect()
    with gc_paused():
        yield
    gc.collect()


@pytest.mark.usefixtures("paused")
def test_a_run_making_cyclic_garbage_is_collected_every_base_objects() -> None:
    passes = YoungPasses(BASE, CAP)
    most_alive = 0
    for _ in range(200):
        _garbage_batch()
        passes.after_batch()
        most_alive = max(most_alive, _Node.alive)
        assert passes.threshold == BASE
    assert len(passes.passes) >= 200 * PER_BATCH // (BASE + PER_BATCH)  # one pass per base objects, or more often
    assert all(freed >= young // 2 for young, freed in passes.passes)  # each found the garbage it walked
    assert most_alive <= BASE + PER_BATCH  # never more garbage than the base and one batch


@pytest.mark.usefixtures("paused")
def test_a_run_without_garbage_pays_for_few_passes_never_waiting_past_the_cap() -> None:
    passes = YoungPasses(BASE, CAP)
    kept: list[object] = []
    for _ in range(200):
        _kept_batch(kept)
        passes.after_batch()
        assert BASE <= passes.threshold <= CAP
        assert gc.get_count()[0] <= CAP + PER_BATCH
    walked = [young for young, _freed in passes.passes]
    assert all(freed * YoungPasses.FOUND_SHARE < young for young, freed in passes.passes)
    # the gaps grow up to the cap: 400,000 young objects take fewer passes than a fixed base would make
    assert walked[1] >= min(CAP, YoungPasses.GROWTH * walked[0])
    assert passes.threshold == CAP
    assert len(passes.passes) <= 200 * PER_BATCH // CAP + 3 < 200 * PER_BATCH // (BASE + PER_BATCH)
    assert len(kept) == 200 * PER_BATCH


@pytest.mark.usefixtures("paused")
def test_garbage_after_a_quiet_start_brings_the_passes_back_to_the_base() -> None:
    passes = YoungPasses(BASE, CAP)
    kept: list[object] = []
    while passes.threshold < CAP:
        _kept_batch(kept)
        passes.after_batch()
    quiet = len(passes.passes)
    most_alive = 0
    for _ in range(100):
        _garbage_batch()
        passes.after_batch()
        most_alive = max(most_alive, _Node.alive)
    assert passes.threshold == BASE  # the first pass that found the garbage brought the threshold back down
    assert most_alive <= CAP + PER_BATCH  # garbage piled up to the cap at most, once
    later = [young for young, _freed in passes.passes[quiet + 1 :]]
    assert later and all(young <= BASE + PER_BATCH for young in later)  # then collected every base objects


def test_the_base_must_be_positive_and_within_the_cap() -> None:
    with pytest.raises(ValueError, match="at most the cap"):
        YoungPasses(10, 5)
    with pytest.raises(ValueError, match="positive"):
        YoungPasses(0, 5)


def test_what_is_alive_when_a_run_starts_is_no_young_pass_s_work() -> None:
    """A run's lexicon, loaded before its batches, goes to the oldest generation unscanned: the young count starts
    afresh and the first pass walks only what the batches make; objects a caller froze stay frozen."""
    with gc_paused():
        loaded = [[index] for index in range(5_000)]
        assert gc.get_count()[0] >= len(loaded)
        age_objects_alive()
        assert gc.get_count()[0] < 100
        oldest = {id(found) for found in gc.get_objects(generation=2)}
        assert all(id(entry) in oldest for entry in loaded)
        gc.freeze()
        try:
            frozen = gc.get_freeze_count()
            made = [[index] for index in range(100)]
            age_objects_alive()  # the caller keeps frozen objects: left as they are
            assert gc.get_freeze_count() == frozen
            # still young (by identity: the young count also falls when another thread of the process frees objects)
            young = {id(found) for found in gc.get_objects(generation=0)}
            assert all(id(entry) in young for entry in made)
        finally:
            gc.unfreeze()
