"""Run one ``annotator`` command in a real process that says when it starts reading standard input.

``python stdin_ready.py READY annotator-arguments…``: the command's first read of ``sys.stdin`` creates the file
READY, then reads as usual. A test waits for READY before it interrupts the command: the command is then inside its
own handling (the command line's ``KeyboardInterrupt`` branch), however slow the machine, where a fixed sleep would
bet on how long the start-up takes.

Ctrl-C gets its default handling, as in a terminal: a process inherits an ignored SIGINT from its parent (a test
worker may ignore it for a moment, e.g. while a library waits in ``system()``), and Python then leaves it ignored.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any


class _AnnouncingStdin:
    """``sys.stdin`` that creates ``ready`` at its first read."""

    def __init__(self, stream: Any, ready: Path) -> None:
        self._stream, self._ready = stream, ready

    def _announce(self) -> None:
        if not self._ready.exists():
            self._ready.touch()

    def readline(self, *args: Any) -> str:
        self._announce()
        return str(self._stream.readline(*args))

    def read(self, *args: Any) -> str:
        self._announce()
        return str(self._stream.read(*args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main() -> int:
    ready, *arguments = sys.argv[1:]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.stdin = _AnnouncingStdin(sys.stdin, Path(ready))  # type: ignore[assignment]
    from annotator.cli import main as annotator

    return annotator(arguments)


if __name__ == "__main__":
    sys.exit(main())
