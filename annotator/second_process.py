"""A producer run in a second process (forked), its values streamed back in order: a long job splits its CPU work
(computing) from its writes, which stay with the process that owns the database, so on two CPUs both go at once.

Contract of ``SecondProcess``:

- ``produce`` runs in a child forked when the block is entered: it sees the parent's memory as it was then (its
  lexicon, its plan) and changes nothing the parent sees. It must not use the parent's open database connections,
  files or sockets (it computes); its values and its return value must pickle.
- The values come back in order, pickled through a pipe; a thread of the child sends them while the child computes
  the next, at most ``queued`` values waiting, so the child runs ahead of a slower parent by a bounded amount.
- An exception in ``produce`` is raised again in the parent, as itself when it pickles, else as
  ``SecondProcessError`` with its traceback's text; a child that dies without a word (killed, out of memory) is a
  ``SecondProcessError`` naming how it ended.
- Leaving the block, however it is left, ends the child (killed if still running) and reaps it: no orphan, no
  zombie; ``end`` does the same before the block is left. The child never runs the parent's ``finally`` blocks or
  exit handlers: it ends with ``os._exit``.

``can_fork`` says when forking is safe and worth it: ``os.fork`` exists, at least two CPUs are usable, and no other
thread runs (a thread holding a lock at the fork would leave that lock held forever in the child: a web server is
never forked, a command line is).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Generator, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Values a child has computed and not yet sent, at most (its memory ahead of the parent stays bounded).
QUEUED = 4

_VALUE, _RETURN, _ERROR, _TEXT = "value", "return", "error", "text"


class SecondProcessError(RuntimeError):
    """The second process failed with an error that could not be sent back as itself, or died without a word."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system says it), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether a second process may be forked here, and would run on a CPU of its own."""
    return hasattr(os, "fork") and usable_cpus() >= 2 and threading.active_count() == 1


class SecondProcess(Generic[T, R]):
    """``with SecondProcess(produce) as child:`` forks a child running the generator ``produce()``; ``child.values()``
    yields its values in order, then ``child.result`` is its return value."""

    def __init__(self, produce: Callable[[], Generator[T, None, R]], queued: int = QUEUED) -> None:
        if queued < 1:
            raise ValueError(f"queued must be at least 1 (got {queued})")
        self._produce = produce
        self._queued = queued
        self._pid = 0
        self._reader: Any = None
        self._ended = False
        self._result: R | None = None
        self._has_result = False

    @property
    def pid(self) -> int:
        """The child's process id (0 before the block is entered)."""
        return self._pid

    def __enter__(self) -> SecondProcess[T, R]:
        read_end, write_end = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # else text buffered before the fork would be written twice
            with contextlib.suppress(Exception):
                stream.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_end)
            self._run_child(write_end)
        os.close(write_end)
        self._pid = pid
        self._reader = os.fdopen(read_end, "rb")
        return self

    def __exit__(
        self, _kind: type[BaseException] | None, _error: BaseException | None, _trace: TracebackType | None
    ) -> None:
        self.end()

    def end(self) -> None:
        """End the child now (killed if still running) and reap it, as leaving the block does; its values and
        result are then never read."""
        if self._pid and not self._ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def values(self) -> Iterator[T]:
        """The child's values in order; after the last, its return value is ``result``."""
        while True:
            kind, payload = self._receive()
            if kind == _VALUE:
                yield payload
            elif kind == _RETURN:  # everything it had to say is said: how it exits no longer matters
                self._result, self._has_result = payload, True
                self._reap()
                return
            elif kind == _ERROR:
                self._reap()
                raise payload
            else:
                self._reap()
                raise SecondProcessError(f"The second process failed:\n{payload}")

    @property
    def result(self) -> R:
        """``produce``'s return value, once ``values()`` is exhausted."""
        if not self._has_result:
            raise RuntimeError("the second process has not returned yet: read every value first")
        return self._result  # type: ignore[return-value]

    def _receive(self) -> tuple[str, Any]:
        try:
            message: tuple[str, Any] = pickle.load(self._reader)
        except (EOFError, pickle.UnpicklingError):  # the pipe ended, maybe inside a message: the child is gone
            status = self._reap()
            raise SecondProcessError(f"The second process ended without a word ({_ending(status)}).") from None
        return message

    def _reap(self) -> int:
        """Wait for the child to end; its ``waitstatus`` (0 for a clean exit)."""
        if self._ended:
            return 0
        _pid, status = os.waitpid(self._pid, 0)
        self._ended = True
        return status

    def _run_child(self, write_end: int) -> None:
        status = 1
        try:
            with os.fdopen(write_end, "wb") as pipe:
                sender = _Sender(pipe, self._queued)
                try:
                    status = 0 if self._send_all(sender) else 1
                finally:
                    sender.close()
        except BaseException:  # nothing may escape the child: the parent's code must not run here
            status = 1
        finally:
            os._exit(status)

    def _send_all(self, sender: _Sender) -> bool:
        """Send every value, then the return value or the error; whether ``produce`` returned."""
        try:
            produced = self._produce()
            while True:
                try:
                    value = next(produced)
                except StopIteration as end:
                    sender.put((_RETURN, end.value))
                    return True
                sender.put((_VALUE, value))
        except BaseException as error:  # sent to the parent, which raises it
            if _round_trips(error):
                sender.put((_ERROR, error))
            else:  # the parent could not rebuild it: its text goes instead
                sender.put((_TEXT, "".join(traceback.format_exception(error))))
            return False


class _Sender:
    """The child's sending thread: pickles are made by the computing thread (so a value that does not pickle fails
    there), written to the pipe by this one while the next value is computed."""

    def __init__(self, pipe: Any, queued: int) -> None:
        self._pipe = pipe
        self._waiting: queue.Queue[bytes | None] = queue.Queue(maxsize=queued)
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._send, name="second-process-sender", daemon=True)
        self._thread.start()

    def put(self, message: tuple[str, Any]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if self._failed is not None:
            raise self._failed
        self._waiting.put(data)

    def close(self) -> None:
        self._waiting.put(None)
        self._thread.join()

    def _send(self) -> None:
        while (data := self._waiting.get()) is not None:
            if self._failed is None:
                try:
                    self._pipe.write(data)
                    self._pipe.flush()
                except BaseException as error:  # the parent went away: the computing thread stops
                    self._failed = error


def _round_trips(error: BaseException) -> bool:
    """Whether the parent can rebuild ``error`` from its pickle (an exception whose ``__init__`` takes other
    arguments than its ``args`` pickles, yet fails to load)."""
    try:
        pickle.loads(pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return False
    return True


def _ending(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
