"""Background jobs: start a project-wide run as a detached worker process, follow it, cancel it, rerun it.

A browser session must not own a long run: a click elsewhere (or a closed tab, or a restarted app server) would
stop it half-way. ``start`` records the job and launches ``python -m annotator.cli jobs work ID`` in its own
session; the worker claims the job, runs the ordinary service with a progress callback that writes (throttled)
to the job row and stops at the next callback once a cancel is requested. Every kind is resumable by rerunning:
pre-population skips the item-languages already done, an import is all-or-nothing and a re-import is a no-op.
A job whose worker vanished (killed, crashed, host gone) is marked failed with that reason when anyone looks
(``liveness.py``); the worker's side is ``worker.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import annotator
from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.domain import jobs as rules
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.model import User
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.private_files import make_private_folder, open_private, write_private_bytes
from annotator.progress import ProgressCallback
from annotator.services import administration
from annotator.services.jobs.liveness import host_name, living, reconcile

#: Folder under the project's data folder for uploaded inputs and worker logs.
JOBS_FOLDER = "jobs"


class JobRefused(UserError):
    """A job cannot start (one of the same kind is alive, bad parameters) or cannot be cancelled."""


def jobs_folder(project: ProjectContext) -> Path:
    """``DATA/jobs`` (0700): uploaded inputs, worker logs and evaluation results are the project's own data."""
    folder = project.data_dir / JOBS_FOLDER
    make_private_folder(folder)
    return folder


# --- starting, listing, cancelling --------------------------------------------------------------------------


#: What a person calls a job's parameters, for the message refusing one (command-line flags name the rest).
PARAM_LABELS = {
    "models": "Stanza model folder",
    "out": "output folder",
    "file": "item file name",
    "gold": "gold key file name",
    "dataset": "dataset file name",
    "translations": "translations file name",
    "dataset_name": "dataset file name",
    "translations_name": "translations file name",
    "name": "file name",
}


def _check_params(project: ProjectContext, kind: JobKind, params: dict[str, Any]) -> dict[str, Any]:
    """Refuse what the worker could not run, now, with the usual message; paths become absolute."""
    params = dict(params)
    for name, value in params.items():  # a NUL or lone surrogate would fail the path, the record or the worker
        for text in value if isinstance(value, list | tuple) else [value]:
            if isinstance(text, str):
                check_storable(PARAM_LABELS.get(name, name), text)
    for name in ("file", "gold", "dataset", "translations", "out"):
        if params.get(name):
            params[name] = str(Path(params[name]).expanduser().resolve())
    if kind is JobKind.IMPORT and not params.get("file"):
        raise JobRefused("An import job needs the item file (--file).")
    if kind is JobKind.EVALUATE and not params.get("translations"):
        raise JobRefused("An evaluation job needs the translations (--translations).")
    if kind is JobKind.EVALUATE and not (params.get("dataset") or params.get("current")):
        raise JobRefused("An evaluation job needs --dataset, or --current to score the project's current curation.")
    for name in ("file", "gold", "dataset", "translations"):
        if params.get(name) and not Path(params[name]).is_file():
            raise JobRefused(f"{params[name]}: no such file.")
    if kind is JobKind.EXPORT:
        from annotator.data_export.dataset import default_export_root

        params.setdefault("out", str(default_export_root(project)))
    if kind is JobKind.PREPOPULATE and params.get("languages"):
        known = set(project.settings().languages)
        unknown = [lang for lang in params["languages"] if lang not in known]
        if unknown:
            raise JobRefused(f"Not project languages: {', '.join(unknown)}.")
    return params


def start(
    project: ProjectContext,
    kind: JobKind | str,
    params: dict[str, Any] | None = None,
    user: User | None = None,
    launch: bool = True,
) -> Job:
    """Record a job and launch its worker; refused while a job of the same kind is queued or running.

    ``user`` is the lead acting in the app (checked, and the worker acts as them); None for the command line.
    """
    try:
        kind = JobKind(kind)
    except ValueError:
        raise JobRefused(f"Unknown job kind {kind!r}; use one of: {', '.join(k.value for k in JobKind)}.") from None
    administration.check_admin(user, f"start a {kind.value} job")
    params = _check_params(project, kind, params or {})
    with project.db.write() as conn:
        alive = reconcile(project.repo, conn, project.repo.active_jobs(conn, kind))
        if alive:
            raise JobRefused(rules.already_running_message(alive[0]))
        job_id = project.repo.insert_job(conn, kind, administration.actor(user), params, utc_now())
    if launch:
        launch_worker(project, job_id)
    return get(project, job_id)


def launch_worker(project: ProjectContext, job_id: int) -> int:
    """Start ``annotator jobs work ID`` detached (own session, no terminal) so it outlives this process."""
    root = str(Path(annotator.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "annotator.cli", "--data", str(project.data_dir), "jobs", "work", str(job_id)]
    log = jobs_folder(project) / f"job-{job_id}.log"
    try:
        with open_private(log, "ab") as out:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
    except OSError as error:
        with project.db.write() as conn:
            project.repo.update_job(
                conn,
                job_id,
                rules.ACTIVE,
                state=JobState.FAILED,
                error=f"cannot start the worker: {error}",
                finished_at=utc_now(),
            )
        raise JobRefused(f"Cannot start the worker process: {error}") from error
    # reap it when it ends, so a finished worker never lingers as a zombie that looks alive
    threading.Thread(target=process.wait, name=f"reap-job-{job_id}", daemon=True).start()
    with project.db.write() as conn:
        project.repo.update_job(conn, job_id, [JobState.QUEUED], worker_pid=process.pid, worker_host=host_name())
    return process.pid


def get(project: ProjectContext, job_id: int) -> Job:
    with project.db.read() as conn:
        job = project.repo.get_job(conn, job_id)
    if job is not None and job.active and not living([job]):
        with project.db.write() as conn:
            reconcile(project.repo, conn, [job])
            job = project.repo.get_job(conn, job_id)
    if job is None:
        raise JobRefused(f"No job {job_id}.")
    return job


def list_jobs(project: ProjectContext, limit: int = 20, kinds: Sequence[JobKind] | None = None) -> list[Job]:
    """The newest jobs first; active ones whose worker died are marked failed first (the one write here)."""
    with project.db.read() as conn:
        active = project.repo.active_jobs(conn)
    if len(living(active)) < len(active):  # write only when a worker died, not on every look
        with project.db.write() as conn:
            reconcile(project.repo, conn, project.repo.active_jobs(conn))
    with project.db.read() as conn:
        return project.repo.list_jobs(conn, limit, kinds)


@dataclass(frozen=True)
class JobBoard:
    """What the jobs panel shows: the newest job of every kind (under each start button) and the newest jobs (of
    the kinds asked for) in the table, newest first."""

    latest: dict[JobKind, Job]
    recent: list[Job]


def board(project: ProjectContext, limit: int = 20, kinds: Sequence[JobKind] | None = None) -> JobBoard:
    """``list_jobs`` and the newest job of every kind in one read (one statement), for the Project page's three status
    panels and its table on every rerun (rather than eight statements in eight transactions). Active jobs whose worker
    died are marked failed first, as ``list_jobs`` does (the one write, only then); an active job is
    always among those read (the newest of its kind, and every active one is asked for)."""
    with project.db.read() as conn:
        found = project.repo.board_jobs(conn, limit, kinds)
    active = [job for job in found if job.active]
    if len(living(active)) < len(active):
        with project.db.write() as conn:
            reconcile(project.repo, conn, project.repo.active_jobs(conn))
            found = project.repo.board_jobs(conn, limit, kinds)
    wanted = {JobKind(k) for k in kinds} if kinds else None
    latest: dict[JobKind, Job] = {}
    for job in found:  # newest first
        latest.setdefault(job.kind, job)
    recent = [job for job in found if wanted is None or job.kind in wanted][:limit]
    return JobBoard(latest, recent)


def latest_result_path(project: ProjectContext, kind: JobKind) -> str | None:
    """The folder the newest finished ``kind`` job wrote (the Dataset page offers the last export's files)."""
    with project.db.read() as conn:
        for job in project.repo.list_jobs(conn, limit=20, kinds=[kind]):
            if job.state is JobState.DONE and job.result and job.result.get("path"):
                return str(job.result["path"])
    return None


def cancel(project: ProjectContext, job_id: int, user: User | None = None) -> Job:
    """A queued job is cancelled at once; a running one stops at its next progress report (work so far kept)."""
    administration.check_admin(user, "cancel a job")
    with project.db.write() as conn:
        job = project.repo.get_job(conn, job_id)
        if job is None:
            raise JobRefused(f"No job {job_id}.")
        if not job.active:
            raise JobRefused(f"Job {job_id} is already {job.state.value}; nothing to cancel.")
        if job.state is JobState.QUEUED:
            project.repo.update_job(
                conn,
                job_id,
                [JobState.QUEUED],
                state=JobState.CANCELLED,
                cancel_requested=True,
                finished_at=utc_now(),
                message="cancelled before it started",
            )
        else:
            project.repo.update_job(conn, job_id, [JobState.RUNNING], cancel_requested=True)
        administration.record(project, conn, user, "cancel_job", {"job": job_id, "kind": job.kind.value})
    return get(project, job_id)


def wait(project: ProjectContext, job_id: int, timeout: float = 600.0, progress: ProgressCallback | None = None) -> Job:
    """Poll until the job finishes (command line ``--wait``, tests); returns it as it ended or as it is at timeout."""
    deadline = time.monotonic() + timeout
    while True:
        job = get(project, job_id)
        if progress is not None and job.total:
            progress(job.done, job.total, job.message)
        if not job.active or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def latest_done(project: ProjectContext, kind: JobKind, **params: Any) -> Job | None:
    """The newest job of ``kind`` that finished successfully and was started with ``params`` (e.g. ``page=True``)."""
    with project.db.read() as conn:
        for job in project.repo.list_jobs(conn, limit=50, kinds=[kind]):
            if job.state is JobState.DONE and all(job.params.get(k) == v for k, v in params.items()):
                return job
    return None


def save_upload(project: ProjectContext, name: str, data: bytes) -> Path:
    """Keep an uploaded file (items, a dataset, translations) where the worker can read it (the browser's copy
    lives only in the session)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(name).name)[-100:]
    path = jobs_folder(project) / f"upload-{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(4).hex()}-{safe}"
    try:
        write_private_bytes(path, data)
    except OSError as error:  # a full disk: say so, and leave no half file behind
        path.unlink(missing_ok=True)
        raise JobRefused(
            f"Cannot keep the uploaded file {Path(name).name!r} on the server: {error.strerror or error}. "
            "Nothing was started; free some space on the server and try again."
        ) from error
    return path
