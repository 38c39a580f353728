"""Fixtures shared by the app's page tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def demo(app_demo: Path) -> Path:
    """A fresh copy of the demo project, named by ANNOTATOR_DATA as ``annotator serve`` would."""
    return app_demo
