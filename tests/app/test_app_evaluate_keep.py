"""The Evaluate page keeps a lead's uploaded translations across a trip to Curate and back (issue 21): the kept copy of
their last upload is offered (and chosen) again, and a second run scores the same file without uploading it again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_helpers import logged_in
from streamlit.testing.v1 import AppTest

from annotator.app.pages.evaluate import BUNDLED, UPLOAD
from annotator.domain.jobs import JobKind, JobState
from annotator.project import Project, builtin_path
from annotator.services import jobs

SUBMIT = "evaluate_run"


@pytest.fixture
def demo(app_demo: Path) -> Path:
    return app_demo


def finish_newest(at: AppTest) -> jobs.Job:
    project = Project.open(Path(os.environ["ANNOTATOR_DATA"]))
    (job,) = jobs.list_jobs(project, limit=1, kinds=[JobKind.EVALUATE])
    finished = jobs.wait(project, job.id, timeout=300)
    assert finished.state is JobState.DONE, finished.error
    at.run()
    assert not at.exception, at.exception
    return finished


def test_the_uploaded_translations_survive_going_to_curate_and_back(demo: Path) -> None:
    data = builtin_path("demo/translations.jsonl").read_bytes()
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    assert at.radio(key="evaluate_translations_choice").options == [UPLOAD, BUNDLED]  # nothing kept yet
    at.radio(key="evaluate_translations_choice").set_value(UPLOAD)
    at.file_uploader(key="evaluate_translations_file").set_value(("my-mt.jsonl", data, "application/jsonl"))
    at.button(key=SUBMIT).click().run()
    assert not at.exception, at.exception
    first = finish_newest(at)
    assert first.params["translations_name"] == "my-mt.jsonl"

    opened = next(b for b in at.button if b.key and b.key.startswith("eval_open|"))
    opened.click().run()  # to Curate …
    assert not at.exception, at.exception
    assert at.query_params.get("item")
    at.switch_page("pages/evaluate.py").run()  # … and back: the browser's upload is gone
    assert not at.exception, at.exception
    choice = at.radio(key="evaluate_translations_choice")
    assert choice.value == "The file of my last run: my-mt.jsonl", choice.options
    at.button(key=SUBMIT).click().run()  # no upload this time
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    second = finish_newest(at)
    assert second.id != first.id
    assert second.params["translations"] == first.params["translations"]
    assert Path(second.params["translations"]).read_bytes() == data


def test_another_lead_is_not_offered_someone_elses_upload(demo: Path) -> None:
    project = Project.open(demo)
    kept = jobs.save_upload(project, "theirs.jsonl", builtin_path("demo/translations.jsonl").read_bytes())
    params = {"page": True, "current": True, "analyser": "default", "translations": str(kept)}
    jobs.start(project, JobKind.EVALUATE, params | {"translations_name": "theirs.jsonl"}, launch=False)
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    assert not any("theirs.jsonl" in option for option in at.radio(key="evaluate_translations_choice").options)
