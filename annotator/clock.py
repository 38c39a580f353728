"""The one clock every layer stamps times with: UTC, ISO 8601 text (stored rows, jobs, provenance)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal


def utc_now(timespec: Literal["seconds", "microseconds"] = "microseconds", *, zulu: bool = False) -> str:
    """The time now, e.g. ``2026-11-25T14:05:00.123456+00:00``; ``zulu`` writes ``Z`` for ``+00:00`` (provenance's
    ``2026-11-25T14:05:00Z``, with ``timespec="seconds"``)."""
    stamp = datetime.now(UTC).isoformat(timespec=timespec)
    return stamp.replace("+00:00", "Z") if zulu else stamp
