"""The Dataset page's script and a curated demo project for the Dataset and Publish pages."""

from __future__ import annotations

from pathlib import Path

from export_data import curate_demo

from annotator.commands.project import create_demo

SCRIPT = """
from annotator.app.pages.dataset import render
render()
"""


def build_curated_demo(data: Path) -> None:
    create_demo(str(data), quiet=True)
    curate_demo(data)
