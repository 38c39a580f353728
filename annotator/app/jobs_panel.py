"""Background jobs in the app: a button that starts one, and a live panel any lead sees (progress, cancel).

The panel is a fragment that reruns on its own every few seconds, so a lead who comes back (or another lead)
follows a job started elsewhere; when a job it saw running ends, the whole page reruns to show the new data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from annotator.app.guards import guarded
from annotator.app.page_run import run_shared
from annotator.app.project_cache import get_project
from annotator.app.safe_text import md
from annotator.app.session import require_lead
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.errors import UserError
from annotator.services import jobs

#: Seconds between the panel's own reruns.
REFRESH_SECONDS = 2.0
#: Session key: ids of the jobs the panel last saw active.
SEEN_ACTIVE_KEY = "jobs_seen_active"
#: Jobs shown in the "Recent jobs" table.
RECENT = 20
#: ``page_run.run_shared`` key: the jobs read once for the page run's panels, by the kinds they list.
BOARDS_KEY = "jobs_boards"


def _board(kinds: Sequence[JobKind] | None = None) -> jobs.JobBoard:
    """The jobs as this page run shows them: read once for all the page's panels (the Project page has one under
    each of its three start buttons and the table), afresh when a panel reruns on its own."""
    boards: dict[tuple[JobKind, ...], jobs.JobBoard] = run_shared().setdefault(BOARDS_KEY, {})
    key = tuple(kinds or ())
    if key not in boards:
        boards[key] = jobs.board(get_project(), RECENT, kinds)
    return boards[key]


def start_button(
    kind: JobKind, label: str, key: str, params: Callable[[], dict[str, Any]] | None = None, disabled: bool = False
) -> Job | None:
    """A button that starts a ``kind`` job as the current lead; a refusal (one already running) is shown."""
    if not st.button(label, key=key, disabled=disabled):
        return None
    try:
        job = jobs.start(get_project(), kind, params() if params else {}, user=require_lead())
    except UserError as error:
        st.error(md(error))
        return None
    st.info(f"Job {job.id} ({kind.value}) started in the background; its progress and outcome are shown below.")
    run_shared().pop(BOARDS_KEY, None)  # the panels drawn after this button show the new job
    st.session_state.setdefault(SEEN_ACTIVE_KEY, set()).add(job.id)
    return job


def outcome(job: Job) -> str:
    if job.error:
        return job.error
    if job.result and job.result.get("summary"):
        return str(job.result["summary"])
    return job.message


def _line(job: Job) -> str:
    return f"Job {job.id} · {job.kind.value} · {job.state.value} · by {job.user}: {outcome(job)}"


def _render_job(job: Job) -> None:
    if job.active:
        left, right = st.columns([5, 1])
        text = f"Job {job.id} · {job.kind.value} · {job.state.value}: {job.done}/{job.total} {job.message}"
        left.progress(job.fraction, text=md(text if not job.cancel_requested else text + " (cancelling)"))
        if right.button("Cancel", key=f"job_cancel_{job.id}", disabled=job.cancel_requested):
            try:
                jobs.cancel(get_project(), job.id, require_lead())
            except UserError as error:
                st.error(md(error))
        return
    {JobState.DONE: st.success, JobState.FAILED: st.error}.get(job.state, st.warning)(md(_line(job)))
    warnings = (job.result or {}).get("warnings") or []
    if warnings:
        with st.expander(f"{len(warnings)} warning(s) of job {job.id}"):
            for warning in warnings:
                st.caption(md(f"⚠ {warning}"))


def _rerun_when_ended(shown: Sequence[Job]) -> None:
    """Remember the running jobs among ``shown``; when one this session watched has ended, redraw the whole page
    around it with the new data. Several panels (one per start button) share the set, each minding its own jobs."""
    seen: set[int] = st.session_state.setdefault(SEEN_ACTIVE_KEY, set())
    ended = {job.id for job in shown if job.id in seen and not job.active}
    seen.difference_update(ended)
    seen.update(job.id for job in shown if job.active)
    if ended:
        st.rerun(scope="app")


@st.fragment(run_every=REFRESH_SECONDS)
@guarded(lead=True)  # every 2 s without the app's log-in gate: an ended session stops drawing here
def render_job_status(kind: JobKind) -> None:
    """Under a start button: the latest job of ``kind`` — its progress and Cancel while it runs, how it ended after."""
    latest = _board().latest.get(kind)
    if latest is not None:
        _render_job(latest)
    _rerun_when_ended([latest] if latest is not None else [])


@st.fragment(run_every=REFRESH_SECONDS)
@guarded(lead=True)
def render_jobs(kinds: Sequence[JobKind] | None = None, latest: bool = True) -> None:
    """The latest job of each kind (progress and cancel while it runs; left out with ``latest=False`` where each
    start button shows its own), and the recent ones in a table."""
    recent = _board(kinds).recent
    st.subheader("Jobs")
    if not recent:
        st.caption("No background job yet.")
        return
    if latest:
        newest: dict[JobKind, Job] = {}
        for job in recent:
            newest.setdefault(job.kind, job)
        for job in sorted(newest.values(), key=lambda j: j.id, reverse=True):
            _render_job(job)
    _rerun_when_ended(recent)
    with st.expander("Recent jobs"):
        st.dataframe(
            [
                {
                    "id": j.id,
                    "kind": j.kind.value,
                    "state": j.state.value,
                    "progress": f"{j.done}/{j.total}" if j.total else "",
                    "by": j.user,
                    "created (UTC)": j.created_at[:19].replace("T", " "),
                    "outcome": outcome(j),
                }
                for j in recent
            ],
            hide_index=True,
            width="stretch",
        )
