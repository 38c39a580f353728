"""The versioned cache: one computation per (scope, version), the newest ``keep`` versions of each scope kept."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from annotator.versioned_cache import VersionedCache


def counting() -> tuple[list[tuple[str, int]], Callable[[str, int], Callable[[], str]]]:
    """A log of computations and a maker of compute functions that append to it."""
    calls: list[tuple[str, int]] = []

    def compute(scope: str, version: int) -> Callable[[], str]:
        def run() -> str:
            calls.append((scope, version))
            return f"{scope}@{version}"

        return run

    return calls, compute


def test_a_version_is_computed_once_and_a_new_version_computes_again() -> None:
    cache: VersionedCache[str] = VersionedCache(keep=2)
    calls, compute = counting()
    assert cache.get("db", 1, compute("db", 1)) == "db@1"
    assert cache.get("db", 1, compute("db", 1)) == "db@1"
    assert cache.get("db", 2, compute("db", 2)) == "db@2"
    assert calls == [("db", 1), ("db", 2)]


def test_each_scope_keeps_its_newest_versions_only() -> None:
    cache: VersionedCache[str] = VersionedCache(keep=2)
    calls, compute = counting()
    for version in (1, 2, 3):
        cache.get("a", version, compute("a", version))
    cache.get("b", 7, compute("b", 7))  # another scope pushes none of "a"'s versions out
    calls.clear()
    for version in (2, 3):
        assert cache.get("a", version, compute("a", version)) == f"a@{version}"
    assert cache.get("b", 7, compute("b", 7)) == "b@7"
    assert calls == []  # all kept
    assert cache.get("a", 1, compute("a", 1)) == "a@1"
    assert calls == [("a", 1)]  # the oldest was dropped, so it is computed again (and 2 is now the oldest)
    cache.get("a", 2, compute("a", 2))
    assert calls == [("a", 1), ("a", 2)]


def test_clear_forgets_one_scope() -> None:
    cache: VersionedCache[str] = VersionedCache(keep=1)
    calls, compute = counting()
    cache.get("a", 1, compute("a", 1))
    cache.get("b", 1, compute("b", 1))
    cache.clear("a")
    cache.get("a", 1, compute("a", 1))
    cache.get("b", 1, compute("b", 1))
    assert calls == [("a", 1), ("b", 1), ("a", 1)]


def test_keep_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least one"):
        VersionedCache(keep=0)


def test_threads_reading_one_version_all_share_the_first_value_kept() -> None:
    cache: VersionedCache[list[int]] = VersionedCache(keep=2)
    start = threading.Barrier(8)
    seen: list[list[int]] = []

    def read() -> None:
        start.wait()
        seen.append(cache.get("db", 5, lambda: [5, 5]))  # a new list per computation

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [[5, 5]] * 8
    assert len({id(value) for value in seen}) == 1  # one object, however many threads computed it
