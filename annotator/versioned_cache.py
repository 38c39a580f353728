"""A per-process cache of values computed from the data at a version: what pages read on every rerun, computed
again only when the data moved.

Keys are (scope, version): the scope names what the value is of (a database, a project folder), the version what
it was computed from (``read_model.data_version``, an evaluation's id, a file's time). Each scope keeps its newest
``keep`` versions, so a session still reading the version before finds it while the others move on, and a long
run's memory stays bounded. Values are computed outside the lock, so no thread waits behind another's slow read;
two threads may compute the same value, and both then get the one kept first (callers may rely on its identity).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class VersionedCache(Generic[Value]):
    """Values by (scope, version), the newest ``keep`` versions of each scope kept."""

    def __init__(self, keep: int) -> None:
        if keep < 1:
            raise ValueError("a versioned cache keeps at least one version")
        self.keep = keep
        self._values: dict[Hashable, dict[Hashable, Value]] = {}
        self._lock = threading.Lock()

    def get(self, scope: Hashable, version: Hashable, compute: Callable[[], Value]) -> Value:
        """The value of ``scope`` at ``version``: the kept one, else ``compute()`` kept (dropping the oldest
        version of the scope beyond ``keep``)."""
        with self._lock:
            kept = self._values.get(scope)
            if kept is not None and version in kept:
                return kept[version]
        value = compute()
        with self._lock:
            kept = self._values.setdefault(scope, {})
            if version in kept:  # another thread computed it meanwhile: everyone shares the first
                return kept[version]
            kept[version] = value
            while len(kept) > self.keep:
                del kept[next(iter(kept))]  # oldest first (insertion order)
        return value

    def clear(self, scope: Hashable) -> None:
        """Forget ``scope``'s values: the next ``get`` computes afresh."""
        with self._lock:
            self._values.pop(scope, None)
