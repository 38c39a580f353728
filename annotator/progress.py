"""Progress reporting shared by the command line (a text bar) and the app (st.progress).

Long jobs take a ``ProgressCallback`` and call it as they go; they never import a UI.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from annotator.domain.unicode_rules import escape_controls
from annotator.terminal import write_control

#: ``callback(done, total, message)``; total may be 0 when unknown.
ProgressCallback = Callable[[int, int, str], None]


def no_progress(done: int, total: int, message: str) -> None:
    """The default: report nothing."""


class TerminalProgress:
    """A progress report on stderr: a one-line bar redrawn in place on a terminal, plain lines anywhere else.

    A log file or CI output is read later, line by line: carriage returns there are junk, so a stream that is not a
    terminal gets a plain line at most every ``plain_every_s`` seconds (and at the end) instead of a redrawn bar.
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        width: int = 30,
        interactive: bool | None = None,
        plain_every_s: float = 5.0,
    ) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.interactive = _is_terminal(self.stream) if interactive is None else interactive
        self.plain_every_s = plain_every_s
        self._last: float | None = None  # nothing shown yet: the first report always is
        self._last_plain: tuple[int, int] | None = None

    def __call__(self, done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        finished = total > 0 and done >= total
        every = 0.1 if self.interactive else self.plain_every_s
        if not finished and self._last is not None and now - self._last < every:
            return
        self._last = now
        if total > 0:
            filled = int(self.width * done / total)
            bar = "#" * filled + "-" * (self.width - filled)
            line = f"{self.label} [{bar}] {done}/{total} {message}"
        else:
            line = f"{self.label} {done} {message}"
        text = escape_controls(line, keep="")[:160]
        if not self.interactive:
            if self._last_plain == (done, total):
                return  # the same figures again (a final call repeated): one line is enough
            self._last_plain = (done, total)
            self.stream.write(text.rstrip() + "\n")
            self.stream.flush()
            return
        write_control(self.stream, "\r")  # the one raw control: redraw the line; the text is escaped
        self.stream.write(text.ljust(80))
        if finished:
            self.stream.write("\n")
        self.stream.flush()


def _is_terminal(stream: object) -> bool:
    """Whether ``stream`` is an interactive terminal (a closed or odd stream counts as not one)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
