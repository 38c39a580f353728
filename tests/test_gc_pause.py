"""The one collector pause kept (issue 32: 2.1× on the evaluation's set-up from the live curation, figures in
``annotator/gc_pause.py``): the set-up gives the collector back as it found it, and freezes its inputs only when
asked (the evaluation job keeps them to its end)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import build_demo

from annotator.project import Project, builtin_path
from annotator.services.evaluate_project import prepare_current


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    return Project.open(copy_project("demo", build_demo, tmp_path / "data"))


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def _tracked(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none of them)."""
    return any(o is obj for o in gc.get_objects())


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("enabled", [True, False])
def test_the_set_up_gives_the_collector_back_as_it_found_it(demo: Project, enabled: bool) -> None:
    gc.enable() if enabled else gc.disable()
    dataset, translations = prepare_current(demo, builtin_path("demo/translations.jsonl"))
    assert dataset.items and len(translations)
    assert gc.isenabled() is enabled
    assert _tracked(dataset.items)  # not frozen unless asked


@pytest.mark.usefixtures("collector")
def test_the_job_s_set_up_freezes_its_inputs(demo: Project) -> None:
    gc.enable()
    dataset, _translations = prepare_current(demo, builtin_path("demo/translations.jsonl"), freeze=True)
    assert gc.isenabled()
    assert not _tracked(dataset.items)  # out of the collector's reach for the rest of the worker
    gc.unfreeze()
    assert _tracked(dataset.items)
