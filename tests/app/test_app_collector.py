"""The app runs with the server's collector schedule (``gc_pause.use_server_schedule``): a page run sets it; young
passes and full passes keep the default cadence, the middle generation is collected more often."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_helpers import logged_in

from annotator.gc_pause import SERVER_THRESHOLDS, use_server_schedule


@pytest.fixture
def default_schedule() -> Iterator[tuple[int, int, int]]:
    """The interpreter's default thresholds for the test, the test process's own restored after it."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_a_page_run_sets_the_server_schedule(demo: Path, default_schedule: tuple[int, int, int]) -> None:
    assert default_schedule == (700, 10, 10)
    at = logged_in("translator", "demo-translator-pass")
    assert not at.exception
    assert gc.get_threshold() == SERVER_THRESHOLDS
    young, middle, old = SERVER_THRESHOLDS
    assert young == 700 and middle < 10  # the middle generation is collected more often than by default
    assert 90 <= middle * old <= 110  # full passes as often as by default: every 10 × 10 young passes


def test_it_is_idempotent(default_schedule: tuple[int, int, int]) -> None:
    use_server_schedule()
    use_server_schedule()
    assert gc.get_threshold() == SERVER_THRESHOLDS != default_schedule
