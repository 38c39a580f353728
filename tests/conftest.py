"""Shared test fixtures. Test helper modules in this folder (e.g. fake_babelnet) import by bare name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.domain.model import Role, User
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user

SAMPLE_ITEMS = [
    {
        "id": "shot-whiskey",
        "sentence": "He poured a shot of whiskey.",
        "target": "shot",
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00057755n",
        "source": "dibimt-figure-1",
    },
    {
        "id": "head-stream",
        "sentence": "They tracked him back toward the head of the stream.",
        "target": "head",
        "lemma": "head",
        "pos": "NOUN",
        "synset": "bn:00036083n",
        "source": "dibimt-figure-1",
    },
]


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, list[dict]], Path]:
    def write(name: str, rows: list[dict]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        return path

    return write


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project with the five DiBiMT languages and no lexicon configured."""
    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(ProjectSettings(name="test", lexicon=LexiconSettings(provider="snapshot")))
    return project


@pytest.fixture
def lead(project: Project) -> User:
    return add_user(project, "lena", Role.LEAD, (), "lead-password")


@pytest.fixture
def translator_it(project: Project) -> User:
    return add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")


def dump(project: Project) -> dict[str, list[tuple]]:
    """Every row of every table: tests compare dumps to prove a refused action changed nothing at all."""
    from sqlalchemy import select

    from annotator.store import schema

    with project.db.read() as conn:
        return {
            table.name: sorted(tuple(row) for row in conn.execute(select(table)))
            for table in schema.metadata.sorted_tables
        }
