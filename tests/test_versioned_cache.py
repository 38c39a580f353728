"""The versioned cache: one computation per (scope, version), the newest ``keep`` versions of each scope kept."""

from __future__ import annotations

import threading

import pytest

from annotator.versioned_cache import VersionedCache


def test_a_version_is_computed_once_and_a_new_version_computes_again() -> None:
    cache: VersionedCache[str] = VersionedCache(keep=2)
    calls: list[int] = []

    def compute(version: int) -> str:
        calls.append(version)
        return f"value {version}"

    assert cache.get("db", 1, lambda: compute(1)) == "value 1"
    assert cache.get("db", 1, lambda: compute(1)) == "value 1"
    assert cache.get("db", 2, lambda: compute(2)) == "value 2"
    assert calls == [1, 2]


def test_each_scope_keeps_its_newest_versions_only() -> None:
    cache: VersionedCache[int] = VersionedCache(keep=2)
    for version in (1, 2, 3):
        cache.get("a", version, lambda v=version: v * 10)
    cache.get("b", 7, lambda: 70)
    assert cache.versions("a") == [2, 3]
    assert cache.versions("b") == [7]  # another scope's versions do not push "a"'s out, nor the reverse
    recomputed: list[int] = []
    cache.get("a", 1, lambda: recomputed.append(1) or 10)
    assert recomputed == [1]
    assert cache.versions("a") == [3, 1]


def test_clear_forgets_one_scope_or_all() -> None:
    cache: VersionedCache[int] = VersionedCache(keep=1)
    cache.get("a", 1, lambda: 1)
    cache.get("b", 1, lambda: 2)
    cache.clear("a")
    assert cache.versions("a") == [] and cache.versions("b") == [1]
    cache.clear()
    assert cache.versions("b") == []


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
    assert cache.versions("db") == [5]
