"""Moving through a queue (Curate's queue, Review's DISCUSS list, a translator's double-curation copies): where the
current entry stands and which entry Next / Previous / auto-advance lead to. Pure, over any list of keys."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, TypeVar

Key = TypeVar("Key")


class Position(NamedTuple):
    """Where the current entry stands: ``at`` (-1 when it is not in the queue, e.g. an item opened by a link) of
    ``total`` entries."""

    at: int
    total: int

    @property
    def has_previous(self) -> bool:
        return self.at > 0

    @property
    def has_next(self) -> bool:
        """Next leads somewhere: to the following entry, or to the first when the current one is not in the queue."""
        return self.total > 0 and self.at < self.total - 1


class QueueCache(NamedTuple):
    """A queue's item ids as a session keeps them, and what they were read for (project, language, queue, search).
    Defined here, not in the page file Streamlit runs afresh on every run, which would make the class anew each time."""

    project: str
    lang: str
    queue: str
    search: str
    ids: list[str]

    def serves(self, project: str, lang: str, queue: str, search: str) -> bool:
        return (self.project, self.lang, self.queue, self.search) == (project, lang, queue, search)


def position(keys: Sequence[Key], current: Key | None) -> Position:
    return Position(keys.index(current) if current in keys else -1, len(keys))


def step(keys: Sequence[Key], current: Key | None, delta: int) -> Key | None:
    """The entry ``delta`` places from ``current``, held at the ends; the first entry when ``current`` is not in the
    queue; None for an empty queue."""
    if not keys:
        return None
    index = position(keys, current).at
    if index < 0:
        return keys[0]
    return keys[min(max(index + delta, 0), len(keys) - 1)]


def following(keys: Sequence[Key], current: Key | None) -> Key | None:
    """The entry after ``current`` (auto-advance), None when it is the last or not in the queue."""
    index = position(keys, current).at
    return keys[index + 1] if 0 <= index < len(keys) - 1 else None


def without(keys: Sequence[Key], current: Key | None) -> list[Key]:
    """The queue once ``current`` has left it (a status it does not show)."""
    return [key for key in keys if key != current]
