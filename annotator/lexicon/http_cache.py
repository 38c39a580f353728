"""Persistent response cache for the BabelNet client, in its own SQLite file.

BabelNet keys have a small daily allowance, so every answer is kept and no request is ever sent twice:
a stopped pre-population run resumes from here, and the whole cache can be frozen into a snapshot.
Entries are keyed by the server's address + endpoint + sorted parameters (an answer from one server never
serves another: a test server's or a hostile one's answers must not stand in for babelnet.io's) and never hold
the API key.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from urllib.parse import urlencode, urlsplit, urlunsplit

from annotator.clock import utc_now
from annotator.private_files import create_private_file

#: The query parameter that carries the API key; it is dropped from every key and stored parameter list.
API_KEY_PARAM = "key"
BUSY_TIMEOUT_MS = 15_000

Params = Mapping[str, str | Sequence[str]] | Sequence[tuple[str, str]]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS responses (
        key TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL,
        params TEXT NOT NULL,
        body TEXT NOT NULL,
        stored_at TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS responses_endpoint ON responses (endpoint)",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def param_pairs(params: Params) -> list[tuple[str, str]]:
    """Parameters as sorted (name, value) pairs without the API key, so equal requests compare equal."""
    items: list[tuple[str, str]] = []
    if isinstance(params, Mapping):
        for name, value in params.items():
            if isinstance(value, str):
                items.append((name, value))
            else:
                items.extend((name, str(entry)) for entry in value)
    else:
        items.extend((name, str(value)) for name, value in params)
    return sorted((name, value) for name, value in items if name != API_KEY_PARAM)


def server_address(base_url: str) -> str:
    """``base_url`` as it leads a cache key: scheme and host lower-cased, without credentials, query or fragment,
    ending in ``/`` (so ``https://User@BabelNet.io/v9`` and ``https://babelnet.io/v9/`` share their answers)."""
    if not base_url:
        return ""
    parts = urlsplit(base_url.strip())
    host = parts.netloc.rsplit("@", 1)[-1].lower()
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((parts.scheme.lower(), host, path, "", ""))


def cache_key(endpoint: str, params: Params, base_url: str = "") -> str:
    """The cache key of a request: ``server-address endpoint?sorted-query`` (readable, free of the API key).

    Without ``base_url`` the key is the bare ``endpoint?query``, the form of caches written before the address
    was part of the key; the client never looks those up, since nothing says which server answered them.
    """
    return f"{server_address(base_url)}{endpoint}?{urlencode(param_pairs(params))}"


@dataclass(frozen=True)
class CacheEntry:
    """One cached answer: the request (without key) and the raw response body."""

    key: str
    endpoint: str
    params: tuple[tuple[str, str], ...]
    body: str
    stored_at: str

    def param(self, name: str) -> str | None:
        """The first value of parameter ``name`` (None if absent)."""
        return next((value for key, value in self.params if key == name), None)

    def param_values(self, name: str) -> list[str]:
        return [value for key, value in self.params if key == name]


class HttpCache:
    """A thread-safe, multi-process-safe response store (WAL, busy timeout, autocommit per write).

    Each ``put`` commits on its own, so work done before a crash or a quota stop is never lost.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        create_private_file(self.path)  # owner only (0600); SQLite gives its -wal and -shm files the same mode
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)

    def __repr__(self) -> str:
        return f"HttpCache({str(self.path)!r})"

    # --- responses ---------------------------------------------------------------------------------

    def get(self, key: str) -> str | None:
        """The cached body for ``key``, or None."""
        with self._lock:
            row = self._conn.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, key: str, endpoint: str, params: Params, body: str, *, replace: bool = False) -> None:
        """Store an answer; an existing entry wins (two workers fetching the same request agree anyway), unless
        ``replace`` (a deliberate re-fetch: the new answer is the one to keep)."""
        stored_params = json.dumps(param_pairs(params), ensure_ascii=False)
        stored_at = utc_now("seconds")
        conflict = (
            "DO UPDATE SET body = excluded.body, params = excluded.params, stored_at = excluded.stored_at"
            if replace
            else "DO NOTHING"
        )
        with self._lock:
            self._conn.execute(
                "INSERT INTO responses (key, endpoint, params, body, stored_at) VALUES (?, ?, ?, ?, ?) "
                f"ON CONFLICT(key) {conflict}",
                (key, endpoint, stored_params, body, stored_at),
            )

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def count(self, endpoint: str | None = None) -> int:
        with self._lock:
            if endpoint is None:
                row = self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
            else:
                row = self._conn.execute("SELECT COUNT(*) FROM responses WHERE endpoint = ?", (endpoint,)).fetchone()
        return int(row[0])

    def __len__(self) -> int:
        return self.count()

    def entries(self, endpoint: str | None = None) -> Iterator[CacheEntry]:
        """All entries (optionally of one endpoint) in key order: a stable order for snapshot exports."""
        with self._lock:
            if endpoint is None:
                rows = self._conn.execute(
                    "SELECT key, endpoint, params, body, stored_at FROM responses ORDER BY key"
                ).fetchall()
            else:
                rows = self._conn.execute(
                    "SELECT key, endpoint, params, body, stored_at FROM responses WHERE endpoint = ? ORDER BY key",
                    (endpoint,),
                ).fetchall()
        for key, entry_endpoint, params, body, stored_at in rows:
            pairs = tuple((str(name), str(value)) for name, value in json.loads(params))
            yield CacheEntry(key, entry_endpoint, pairs, body, stored_at)

    def __iter__(self) -> Iterator[CacheEntry]:
        return self.entries()

    # --- metadata ----------------------------------------------------------------------------------

    def get_meta(self, name: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, name: str, value: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # --- lifetime ----------------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> HttpCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
