"""``QueueCache``: a kept queue serves the (project, language, queue, search) it was read for, and nothing else."""

from __future__ import annotations

import pytest

from annotator.domain.queue_navigation import QueueCache

KEPT = QueueCache("/data/project", "IT", "todo", "shot", ["a", "b"])


def test_it_serves_what_it_was_read_for() -> None:
    assert KEPT.serves("/data/project", "IT", "todo", "shot")


@pytest.mark.parametrize(
    "asked",
    [
        ("/data/other", "IT", "todo", "shot"),
        ("/data/project", "DE", "todo", "shot"),
        ("/data/project", "IT", "done", "shot"),
        ("/data/project", "IT", "todo", "shots"),
    ],
)
def test_anything_else_reads_the_queue_again(asked: tuple[str, str, str, str]) -> None:
    assert not KEPT.serves(*asked)

