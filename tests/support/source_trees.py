"""Synthetic source trees for the structural checks: each check is also run on a violation it must report."""

from __future__ import annotations

from pathlib import Path


def write_source(root: Path, name: str, text: str) -> None:
    """Write ``text`` as the file ``name`` under ``root``, creating its folders."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
