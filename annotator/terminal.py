"""Terminal output made safe: text from users and files never reaches the terminal as control characters.

A system name, an item id or a message can carry ESC sequences (recolour, retitle, rewrite the screen), BEL, C1
controls or bidi overrides that reorder what the operator reads. The command line wraps stdout and stderr in
``SafeStream`` for its whole run, so every print goes through one sanitiser (``escape_controls``) whoever
wrote it; the only raw control it emits on purpose is the progress bar's carriage return (``write_control``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from annotator.domain.unicode_rules import escape_controls


class SafeStream:
    """A text stream that writes everything with control, invisible and bidi characters escaped (newlines kept)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(escape_controls(text))
        return len(text)

    def write_control(self, text: str) -> int:
        """Write a control sequence the program itself chose (never user text): the progress bar's ``\\r``."""
        return self.stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno…
        return getattr(self.stream, name)


def write_control(stream: TextIO | SafeStream, text: str) -> None:
    """Write ``text`` raw to a ``SafeStream``'s terminal, or as-is to any other stream."""
    writer = getattr(stream, "write_control", None)
    (writer or stream.write)(text)


@contextmanager
def sanitised_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through ``SafeStream`` until the block ends."""
    saved = sys.stdout, sys.stderr
    sys.stdout = SafeStream(saved[0])  # type: ignore[assignment]
    sys.stderr = SafeStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        for wrapper in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to show
                wrapper.flush()
        sys.stdout, sys.stderr = saved
