"""The pages' read model: statistics cached per change of the data (and recomputed after any change), the Review
lists in one query, the flagged items — each checked against the direct computation it replaces."""

from __future__ import annotations

import shutil
from itertools import product
from pathlib import Path

import pytest
from export_data import DISCARDED, EXCLUDED, curate_demo

from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, collect
from annotator.domain.model import Status
from annotator.project import Project
from annotator.services import read_model, read_model_dataset
from annotator.services.administration import set_excluded
from annotator.services.curation import CurationService
from annotator.store.repository import ReviewState


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("read-model") / "data"
    create_demo(str(data), quiet=True)
    curate_demo(data)
    return data


@pytest.fixture
def curated(template: Path, tmp_path: Path) -> Project:
    shutil.copytree(template, tmp_path / "data")
    return Project.open(tmp_path / "data")


def lead_service(project: Project) -> CurationService:
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    return CurationService(project, lead)


def same_as_collect(project: Project) -> None:
    for incomplete, partial in product((False, True), repeat=2):
        options = ExportOptions(include_incomplete=incomplete, keep_partially_discarded=partial)
        overview, selection = read_model_dataset.dataset_overview(project, options), collect(project, options)
        assert overview.refinement() == selection.refinement()
        assert overview.counts() == selection.counts()
        assert overview.left_out == selection.left_out and overview.items == len(selection.items)


def test_the_overview_is_what_collect_gives_for_every_option(curated: Project) -> None:
    same_as_collect(curated)


def test_the_version_moves_with_every_kind_of_change_and_only_then(curated: Project) -> None:
    seen = [read_model.data_version(curated)]
    assert read_model.data_version(curated) == seen[-1]  # reading changes nothing
    read_model_dataset.dataset_overview(curated, ExportOptions())
    assert read_model.data_version(curated) == seen[-1]

    service = lead_service(curated)
    state = service.view("shot-whiskey", "IT").state
    service.reopen("shot-whiskey", "IT", state.version)  # a curation write (history)
    seen.append(read_model.data_version(curated))
    set_excluded(curated, ["head-stream"], True)  # a project-wide action (audit)
    seen.append(read_model.data_version(curated))
    with curated.db.write() as conn:  # even a direct exclusion without an audit row
        curated.repo.set_excluded(conn, ["shot-whiskey"], True)
    seen.append(read_model.data_version(curated))
    assert len(set(seen)) == len(seen)


def test_a_change_is_reflected_at_once(curated: Project) -> None:
    before = read_model_dataset.dataset_overview(curated, ExportOptions())
    service = lead_service(curated)
    state = service.view("shot-whiskey", "IT").state
    assert state.status is Status.DONE
    service.reopen("shot-whiskey", "IT", state.version)
    after = read_model_dataset.dataset_overview(curated, ExportOptions())
    assert after.items == before.items - 1 and after.left_out["incomplete"] == before.left_out["incomplete"] + 1
    it_before = next(r for r in before.refinement().languages if r.lang == "IT")
    it_after = next(r for r in after.refinement().languages if r.lang == "IT")
    assert it_after.item_languages == it_before.item_languages - 1
    same_as_collect(curated)


def test_review_lists_and_flagged_items_in_one_query_each(curated: Project) -> None:
    langs = curated.settings().languages
    service = lead_service(curated)
    state = service.view("head-stream", "IT").state
    reopened = service.reopen("head-stream", "IT", state.version)
    service.flag_discuss("head-stream", "IT", "which sense?", reopened.version)
    for status in (Status.DISCUSS, Status.DISCARDED):
        expected = []
        with curated.db.read() as conn:
            for lang in langs:
                for entry in curated.repo.queue(conn, lang, [status], include_excluded=True):
                    il = curated.repo.get_item_language(conn, entry.item_id, lang)
                    assert il is not None
                    expected.append((entry, [getattr(il, f) for f in ReviewState.__dataclass_fields__]))
        found = read_model.review_list(curated, langs, status)
        assert [(e, [getattr(s, f) for f in ReviewState.__dataclass_fields__]) for e, s in found] == expected
        assert expected
    assert [e.item_id for e, _ in read_model.review_list(curated, langs, Status.DISCARDED)] == [DISCARDED]
    with curated.db.read() as conn:
        flagged = [i for i in curated.repo.list_items(conn) if i.filter_failures or i.excluded]
    assert read_model.flagged_items(curated) == flagged and EXCLUDED in {i.id for i in flagged}
