"""The Project page through AppTest: its tables, its background jobs, the database's row counts."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from annotator.domain.jobs import JobState
from annotator.project import Project
from annotator.services import jobs


def table_with(at: AppTest, column: str):
    """The page's dataframe that has ``column`` (the page also shows the audit table)."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


def finish_jobs(project: Project) -> None:
    """The page started a background job: wait for its worker, then the test reruns the page like the panel does."""
    for job in jobs.list_jobs(project):
        assert jobs.wait(project, job.id, timeout=120).state is JobState.DONE, jobs.get(project, job.id)


def counts(project: Project) -> dict[str, int]:
    with project.db.read() as conn:
        return project.repo.table_counts(conn)
