"""The Evaluate page through AppTest: run an evaluation job, read its metrics and items."""

from __future__ import annotations

import os
from pathlib import Path

from app_helpers import plain
from streamlit.testing.v1 import AppTest

from annotator.app.pages.evaluate import BUNDLED
from annotator.domain.jobs import JobKind, JobState
from annotator.project import Project
from annotator.services import jobs


def run_evaluation(at: AppTest) -> AppTest:
    """Submit the form, wait for the evaluation job it starts (a worker process), and show the page again."""
    at.radio(key="evaluate_translations_choice").set_value(BUNDLED)
    at.button(key="evaluate_run").click()
    at.run()
    assert not at.exception, at.exception
    project = Project.open(Path(os.environ["ANNOTATOR_DATA"]))
    (job,) = jobs.list_jobs(project, limit=1, kinds=[JobKind.EVALUATE])  # the click started it
    finished = jobs.wait(project, job.id, timeout=300)
    assert finished.state is JobState.DONE, finished.error
    at.run()
    assert not at.exception, at.exception
    return at


def metrics_table(at: AppTest):  # type: ignore[no-untyped-def]
    """The metrics table (the jobs panel has a table of its own)."""
    (table,) = [frame.value for frame in at.dataframe if "Accuracy" in frame.value.columns]
    return table


def shown_items(at: AppTest, lang: str = "DE", system: str = "demo-mt-b") -> list[str]:
    at.selectbox(key="evaluate_lang").set_value(lang).run()
    at.selectbox(key="evaluate_system").set_value(system).run()
    return [plain(m.value).split(" · lemma")[0] for m in at.markdown if m.value.startswith("**")]
