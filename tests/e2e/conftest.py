"""Fixtures shared by the browser tests: the demo project and an app server on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser import serve_app, server_env
from project_helpers import build_demo


@pytest.fixture
def demo(copy_project: Callable[[str, Callable[[Path], None], Path], Path], tmp_path: Path) -> Path:
    """A fresh copy of the demo project (built once per session, copied for each test)."""
    return copy_project("demo", build_demo, tmp_path / "data")


@pytest.fixture
def app_url(demo: Path) -> Iterator[str]:
    with serve_app(demo, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url
