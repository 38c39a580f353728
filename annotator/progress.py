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
    """A one-line text progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self._last = 0.0

    def __call__(self, done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        finished = total > 0 and done >= total
        if not finished and now - self._last < 0.1:
            return
        self._last = now
        if total > 0:
            filled = int(self.width * done / total)
            bar = "#" * filled + "-" * (self.width - filled)
            line = f"{self.label} [{bar}] {done}/{total} {message}"
        else:
            line = f"{self.label} {done} {message}"
        write_control(self.stream, "\r")  # the one raw control: redraw the line; the text is escaped
        self.stream.write(escape_controls(line, keep="")[:160].ljust(80))
        if finished:
            self.stream.write("\n")
        self.stream.flush()
