"""The HTTP transport's guards: the API key kept out of urllib3's and requests' logs, and a total deadline per
request enforced by a watchdog that shuts down the sockets of the thread's connections in whatever phase the
exchange is (a server dripping one byte every few seconds defeats a per-read time-out)."""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
import time
import weakref
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.exceptions import InvalidHeader
from urllib3.util.retry import Retry

KEY_IN_URL = re.compile(r"(?i)([?&]key=)[^&\s\"'#]*")


class _RedactKeyFilter(logging.Filter):
    """Blanks ``key=…`` query parameters in log records (urllib3 logs full request URLs at DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if KEY_IN_URL.search(message):
            record.msg = KEY_IN_URL.sub(r"\1<redacted>", message)
            record.args = None
        return True


def _install_log_redaction() -> None:
    for name in ("urllib3.connectionpool", "urllib3", "requests"):
        logger = logging.getLogger(name)
        if not any(isinstance(existing, _RedactKeyFilter) for existing in logger.filters):
            logger.addFilter(_RedactKeyFilter())


_install_log_redaction()


class _ThreadLinks:
    """What one thread's HTTP exchanges run over: its connections (their ``sock`` is set from the start of
    ``connect``, the TLS handshake included) and the sockets they opened (still read after a connection that
    will close hands its socket over to the response and forgets it)."""

    def __init__(self) -> None:
        self.connections: weakref.WeakSet[urllib3.connection.HTTPConnection] = weakref.WeakSet()
        self.sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    def cut(self) -> None:
        """Shut every live socket down: a blocked read returns at once."""
        live = [connection.sock for connection in list(self.connections)] + list(self.sockets)
        for sock in live:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


_thread_links = threading.local()


def _links_of_this_thread() -> _ThreadLinks:
    found = getattr(_thread_links, "links", None)
    if found is None:
        found = _thread_links.links = _ThreadLinks()
    return found


class _TrackedHTTPConnection(urllib3.connection.HTTPConnection):
    """Registers itself and its socket with its thread, so the watchdog can cut it in any phase."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _links_of_this_thread().connections.add(self)

    def connect(self) -> None:
        super().connect()
        if self.sock is not None:
            _links_of_this_thread().sockets.add(self.sock)


class _TrackedHTTPSConnection(_TrackedHTTPConnection, urllib3.connection.HTTPSConnection):
    """The TLS twin of ``_TrackedHTTPConnection``: its tracking, then urllib3's TLS connection (by the MRO)."""


class _TrackedHTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection


class _TrackedHTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection


_TRACKED_POOLS = {"http": _TrackedHTTPPool, "https": _TrackedHTTPSPool}


class TrackedAdapter(HTTPAdapter):
    """requests' adapter whose pools open tracked connections (its documented subclassing hook)."""

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_TRACKED_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> urllib3.PoolManager:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if type(manager) is urllib3.ProxyManager:  # SOCKS managers keep their own connection classes
            manager.pool_classes_by_scheme = dict(_TRACKED_POOLS)
        return manager


class Watchdog:
    """Shuts down the sockets of this thread's connections when ``seconds`` have passed, unless stopped first.

    A blocked read then returns at once, whatever the server is doing; ``fired`` tells the caller that what it
    got (an error, or a body cut short) is the deadline's doing.
    """

    def __init__(self, seconds: float) -> None:
        self._links = _links_of_this_thread()
        self._fired = threading.Event()
        self._timer = threading.Timer(max(0.0, seconds), self._cut)
        self._timer.daemon = True
        self._timer.start()

    @property
    def fired(self) -> bool:
        return self._fired.is_set()

    def _cut(self) -> None:
        self._fired.set()
        self._links.cut()

    def stop(self) -> None:
        self._timer.cancel()


class DeadlinePassed(Exception):
    """The request ran out of its total time (raised inside the transport, turned into a message by it)."""


class TooLarge(Exception):
    """The answer is larger than the cap."""


def retry_after(response: requests.Response) -> float | None:
    """A 429's ``Retry-After`` in seconds (a number or an HTTP date, read by urllib3), None when absent or invalid."""
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, Retry().parse_retry_after(value)) if value else None
    except InvalidHeader:
        return None


_READ_CHUNK = 64 * 1024


def read_capped(response: requests.Response, max_bytes: int, deadline_at: float) -> bytes:
    """The (decoded) body, read a chunk at a time: ``TooLarge`` past the cap, ``DeadlinePassed`` past the
    deadline (the watchdog's back-up, for connections it cannot reach, e.g. through a SOCKS proxy)."""
    announced = response.headers.get("Content-Length", "")
    if announced.isdigit() and int(announced) > max_bytes:
        raise TooLarge
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(_READ_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge
        if time.monotonic() >= deadline_at:
            raise DeadlinePassed
        chunks.append(chunk)
    return b"".join(chunks)
