"""Fixtures shared by the browser tests: the demo project and an app server on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import serve_app, server_env

from annotator.commands.project import create_demo


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    create_demo(str(data), quiet=True)
    return data


@pytest.fixture
def app_url(demo: Path) -> Iterator[str]:
    with serve_app(demo, server_env("ANNOTATOR_DATABASE_URL")) as url:
        yield url
