"""Fixtures shared by the service tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from annotator.commands.project import create_demo
from annotator.domain.model import Role
from annotator.project import Project
from annotator.services.accounts import add_user


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("double-demo") / "data"
    create_demo(str(path), quiet=True)
    project = Project.open(path)
    add_user(project, "ana", Role.TRANSLATOR, ("IT",), "ana-password")
    add_user(project, "ben", Role.TRANSLATOR, ("IT",), "ben-password")
    add_user(project, "dora", Role.TRANSLATOR, ("DE",), "dora-password")
    project.db.dispose()
    return path


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path) -> Project:
    data = tmp_path / "data"
    shutil.copytree(demo_template, data)
    return Project.open(data)
