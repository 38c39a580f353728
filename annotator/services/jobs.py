"""Background jobs: start a project-wide run as a detached worker process, follow it, cancel it, rerun it.

A browser session must not own a long run: a click elsewhere (or a closed tab, or a restarted app server) would
stop it half-way. ``start`` records the job and launches ``python -m annotator.cli jobs work ID`` in its own
session; the worker claims the job, runs the ordinary service with a progress callback that writes (throttled)
to the job row and stops at the next callback once a cancel is requested. Every kind is resumable by rerunning:
pre-population skips the item-languages already done, an import is all-or-nothing and a re-import is a no-op.
A job whose worker vanished (killed, crashed, host gone) is marked failed with that reason when anyone looks.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import annotator
from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.domain import jobs as rules
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.private_files import make_private_folder, open_private, write_private_bytes
from annotator.progress import ProgressCallback
from annotator.services import administration
from annotator.store import jobs as store

#: Seconds between heartbeats written by a worker's background thread.
HEARTBEAT_SECONDS = 5.0
#: Folder under the project's data folder for uploaded inputs and worker logs.
JOBS_FOLDER = "jobs"
#: Environment variable: seconds between a worker's progress writes (see ``progress_interval``).
PROGRESS_INTERVAL_ENV = "ANNOTATOR_JOB_PROGRESS_INTERVAL"


class JobRefused(UserError):
    """A job cannot start (one of the same kind is alive, bad parameters) or cannot be cancelled."""


class JobCancelled(Exception):
    """Raised from a progress callback once a cancel was requested; the run stops at that point."""


def host_name() -> str:
    return socket.gethostname()


def jobs_folder(project: ProjectContext) -> Path:
    """``DATA/jobs`` (0700): uploaded inputs, worker logs and evaluation results are the project's own data."""
    folder = project.data_dir / JOBS_FOLDER
    make_private_folder(folder)
    return folder


# --- liveness -----------------------------------------------------------------------------------------------


def pid_alive(pid: int, job_id: int) -> bool:
    """Is ``pid`` still this job's worker? A zombie or a pid reused by another program counts as dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path(f"/proc/{pid}")
    try:
        stat = (proc / "stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}:
            return False
        cmdline = (proc / "cmdline").read_bytes()
    except (OSError, IndexError):
        return True  # no /proc (not Linux): the signal test is all we have
    return runs_job(cmdline, job_id)


def runs_job(cmdline: bytes, job_id: int) -> bool:
    """Does a live process's ``/proc/PID/cmdline`` belong to this job's worker? An empty one does not tell: the
    kernel fills it in during ``exec``, after ``Popen`` has already returned, so a worker checked at once looked
    dead and its job was failed before it started."""
    if not cmdline:
        return True
    argv = cmdline.split(b"\0")
    return b"work" in argv and str(job_id).encode() in argv


def _death_reasons(active: Sequence[Job]) -> list[tuple[Job, str | None]]:
    now, host = datetime.now(UTC), host_name()
    found = []
    for job in active:
        known = pid_alive(job.worker_pid, job.id) if job.worker_pid and job.worker_host == host else None
        found.append((job, rules.death_reason(job, now, host, known)))
    return found


def _living(active: Sequence[Job]) -> list[Job]:
    return [job for job, reason in _death_reasons(active) if reason is None]


def _reconcile(conn: Any, active: Sequence[Job]) -> list[Job]:
    """Mark the active jobs whose worker is gone as failed (with the reason); return those still alive."""
    alive = []
    for job, reason in _death_reasons(active):
        if reason is None:
            alive.append(job)
            continue
        store.update_job(
            conn,
            job.id,
            rules.ACTIVE,
            state=JobState.FAILED,
            error=f"{reason}; run the job again to resume",
            finished_at=utc_now(),
        )
    return alive


# --- starting, listing, cancelling --------------------------------------------------------------------------


def _check_params(project: ProjectContext, kind: JobKind, params: dict[str, Any]) -> dict[str, Any]:
    """Refuse what the worker could not run, now, with the usual message; paths become absolute."""
    params = dict(params)
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
        alive = _reconcile(conn, store.active_jobs(conn, kind))
        if alive:
            raise JobRefused(rules.already_running_message(alive[0]))
        job_id = store.insert_job(conn, kind, administration.actor(user), params, utc_now())
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
            store.update_job(
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
        store.update_job(conn, job_id, [JobState.QUEUED], worker_pid=process.pid, worker_host=host_name())
    return process.pid


def get(project: ProjectContext, job_id: int) -> Job:
    with project.db.read() as conn:
        job = store.get_job(conn, job_id)
    if job is not None and job.active and not _living([job]):
        with project.db.write() as conn:
            _reconcile(conn, [job])
            job = store.get_job(conn, job_id)
    if job is None:
        raise JobRefused(f"No job {job_id}.")
    return job


def list_jobs(project: ProjectContext, limit: int = 20, kinds: Sequence[JobKind] | None = None) -> list[Job]:
    """The newest jobs first; active ones whose worker died are marked failed first (the one write here)."""
    with project.db.read() as conn:
        active = store.active_jobs(conn)
    if len(_living(active)) < len(active):  # write only when a worker died, not on every look
        with project.db.write() as conn:
            _reconcile(conn, store.active_jobs(conn))
    with project.db.read() as conn:
        return store.list_jobs(conn, limit, kinds)


def latest_result_path(project: ProjectContext, kind: JobKind) -> str | None:
    """The folder the newest finished ``kind`` job wrote (the Dataset page offers the last export's files)."""
    with project.db.read() as conn:
        for job in store.list_jobs(conn, limit=20, kinds=[kind]):
            if job.state is JobState.DONE and job.result and job.result.get("path"):
                return str(job.result["path"])
    return None


def cancel(project: ProjectContext, job_id: int, user: User | None = None) -> Job:
    """A queued job is cancelled at once; a running one stops at its next progress report (work so far kept)."""
    administration.check_admin(user, "cancel a job")
    with project.db.write() as conn:
        job = store.get_job(conn, job_id)
        if job is None:
            raise JobRefused(f"No job {job_id}.")
        if not job.active:
            raise JobRefused(f"Job {job_id} is already {job.state.value}; nothing to cancel.")
        if job.state is JobState.QUEUED:
            store.update_job(
                conn,
                job_id,
                [JobState.QUEUED],
                state=JobState.CANCELLED,
                cancel_requested=True,
                finished_at=utc_now(),
                message="cancelled before it started",
            )
        else:
            store.update_job(conn, job_id, [JobState.RUNNING], cancel_requested=True)
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


# --- the worker ---------------------------------------------------------------------------------------------


def progress_interval() -> float:
    """Seconds between a worker's progress writes: ``PROGRESS_INTERVAL_ENV`` if set (0 writes every update, which
    the tests use to see each step a job reports whatever the machine's speed), else the domain's default."""
    raw = os.environ.get(PROGRESS_INTERVAL_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else rules.PROGRESS_INTERVAL_SECONDS
    except ValueError:
        return rules.PROGRESS_INTERVAL_SECONDS


class _Reporter:
    """The progress callback handed to the service: throttled writes, and the cancel check at each write."""

    def __init__(self, side: store.SideChannel, job_id: int) -> None:
        self.side = side
        self.job_id = job_id
        self.last = float("-inf")
        self.interval = progress_interval()

    def __call__(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if not rules.due(self.last, now, done, total, self.interval):
            return
        self.last = now
        cancel = self.side.report(self.job_id, utc_now(), done=done, total=total, message=message[:200])
        if cancel:
            raise JobCancelled()


def _acting_user(project: ProjectContext, name: str) -> User | None:
    if name == "cli" or name.startswith("cli:"):
        return None
    with project.db.read() as conn:
        user = project.repo.get_user(conn, name)
    if user is None or user.disabled:
        raise UserError(f"The account {name!r} that started this job no longer exists or is disabled.")
    return user


def _run_import(project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback) -> dict[str, Any]:
    if job.params.get("gold"):  # WSD-framework XML with its gold key file
        from annotator.services.import_wsd import import_wsd_xml

        name = job.params.get("name")
        wsd = import_wsd_xml(
            project, job.params["file"], job.params["gold"], first_key=bool(job.params.get("first_key")),
            force=bool(job.params.get("force")), progress=progress, user=user, name=name,
        )  # fmt: skip
        return {"summary": wsd.summary(), "warnings": [str(w) for w in wsd.report.warnings[:50]]}
    from annotator.services.importing import import_items

    report = import_items(
        project, job.params["file"], force=bool(job.params.get("force")), progress=progress, user=user
    )
    return {"summary": report.summary(), "warnings": [str(w) for w in report.warnings[:50]]}


def _run_prepopulate(
    project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback
) -> dict[str, Any]:
    from annotator.services.prepopulate import prepopulate

    languages = tuple(job.params.get("languages") or ()) or None
    report = prepopulate(project, languages=languages, progress=progress, user=user)
    return {
        "summary": report.summary(),
        "item_languages": report.item_languages,
        "already_done": report.already_done,
        "stopped": report.stopped,
        "failed": report.failure_message() if report.skipped else None,
        "warnings": report.warnings[:50],
    }


def _run_filters(project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback) -> dict[str, Any]:
    from annotator.services.filters import run_filters

    report = run_filters(project, progress=progress, user=user)
    return {
        "summary": f"Checked {report.checked} items; {len(report.failures)} fail at least one rule.",
        "checked": report.checked,
        "failing": sorted(report.failures),
    }


def _run_export(project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback) -> dict[str, Any]:
    from annotator.data_export.dataset import ExportOptions, export_dataset

    administration.check_admin(user, "export the dataset")
    options = ExportOptions(
        include_incomplete=bool(job.params.get("include_incomplete")),
        keep_partially_discarded=bool(job.params.get("keep_partially_discarded")),
        with_annotators=bool(job.params.get("with_annotators")),
        annotator_names=bool(job.params.get("annotator_names")),
    )
    result = export_dataset(project, job.params["out"], options, progress)
    from annotator.services import job_files

    job_files.keep_folder(project, job.id, JobKind.EXPORT, result.path)  # offered by every server's Dataset page
    return {"summary": f"Exported {result.items} item(s) to {result.path.name}", "path": str(result.path)}


def _run_evaluate(project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback) -> dict[str, Any]:
    """Score translations against an exported dataset or (``current``) the project's current curation.

    A job the Evaluate page started (``page``) keeps its results in the database, where every app server's page
    reads them (``evaluate_project.save_result``); otherwise they are written beside the translations (or ``out``).
    """
    from dataclasses import replace

    from annotator.evaluation.inputs import load_dataset, load_translations
    from annotator.evaluation.provenance import job_provenance
    from annotator.evaluation.run import create_analyser, default_out_dir, evaluate, write_results
    from annotator.services.evaluate_project import prepare_current, save_result

    administration.check_admin(user, "evaluate translations")
    params = job.params
    names = {"translations_name": params.get("translations_name"), "dataset_name": params.get("dataset_name")}
    if params.get("current"):
        dataset, translations = prepare_current(project, params["translations"], names["translations_name"])
    else:  # problems name an upload by its own name, not the server's copy of it
        dataset = load_dataset(params["dataset"], name=names["dataset_name"])
        translations = load_translations(params["translations"], dataset, name=names["translations_name"])
    analyser = create_analyser(params.get("analyser") or "default", params.get("models") or None)
    source = params.get("translations_name") or str(params["translations"])
    result = evaluate(dataset, translations, analyser, progress, translations_source=source)
    result = replace(result, provenance=job_provenance(project.settings().name, params, dataset, analyser, source))
    if params.get("page") and not params.get("out"):
        save_result(project, job.id, result)
        return {"summary": f"Scored {len(result.results)} translation(s); results kept in the project's database"}
    out_dir = Path(params["out"]) if params.get("out") else default_out_dir(params["translations"])
    write_results(result, out_dir)
    return {"summary": f"Scored {len(result.results)} translation(s); results in {out_dir}", "path": str(out_dir)}


def latest_done(project: ProjectContext, kind: JobKind, **params: Any) -> Job | None:
    """The newest job of ``kind`` that finished successfully and was started with ``params`` (e.g. ``page=True``)."""
    with project.db.read() as conn:
        for job in store.list_jobs(conn, limit=50, kinds=[kind]):
            if job.state is JobState.DONE and all(job.params.get(k) == v for k, v in params.items()):
                return job
    return None


RUNNERS: dict[JobKind, Callable[[ProjectContext, Job, User | None, ProgressCallback], dict[str, Any]]] = {
    JobKind.IMPORT: _run_import,
    JobKind.PREPOPULATE: _run_prepopulate,
    JobKind.FILTERS: _run_filters,
    JobKind.EXPORT: _run_export,
    JobKind.EVALUATE: _run_evaluate,
}


def _heartbeat(side: store.SideChannel, job_id: int, stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT_SECONDS):
        side.report(job_id, utc_now())


def work(project: ProjectContext, job_id: int) -> Job:
    """The worker's body: claim the queued job, run it, record how it ended. Never raises for the job's own errors."""
    pid, host = os.getpid(), host_name()
    with project.db.write() as conn:
        job = store.get_job(conn, job_id)
        if job is None:
            raise JobRefused(f"No job {job_id}.")
        claimed = store.update_job(
            conn,
            job_id,
            [JobState.QUEUED],
            state=JobState.RUNNING,
            started_at=utc_now(),
            heartbeat_at=utc_now(),
            worker_pid=pid,
            worker_host=host,
        )
    if not claimed:
        return get(project, job_id)  # cancelled before it started, or claimed by another worker
    side = store.SideChannel(project.db.url)
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(side, job_id, stop), daemon=True)
    beat.start()
    reporter = _Reporter(side, job_id)
    values: dict[str, Any]
    try:
        result = RUNNERS[job.kind](project, job, _acting_user(project, job.user), reporter)
        values = {"state": JobState.DONE, "result": result, "message": "finished"}
        if job.kind is JobKind.PREPOPULATE and result.get("stopped"):
            values = {"state": JobState.FAILED, "result": result, "error": f"stopped: {result['stopped']}"}
        elif job.kind is JobKind.PREPOPULATE and result.get("failed"):  # some items failed: not a clean success
            values = {"state": JobState.FAILED, "result": result, "error": f"finished with errors: {result['failed']}"}
    except JobCancelled:
        values = {"state": JobState.CANCELLED, "message": f"cancelled at {reporter_progress(project, job_id)}"}
    except UserError as error:
        values = {"state": JobState.FAILED, "error": str(error)}
    except Exception as error:  # broad on purpose: the worker's top level; the job must end recorded, whatever happened
        traceback.print_exc()
        values = {"state": JobState.FAILED, "error": f"{type(error).__name__}: {error}"}
    finally:
        stop.set()
        beat.join(timeout=1)
        side.dispose()
    with project.db.write() as conn:
        store.update_job(conn, job_id, [JobState.RUNNING], finished_at=utc_now(), heartbeat_at=utc_now(), **values)
    if job.kind is JobKind.IMPORT and values["state"] is JobState.DONE and job.params.get("uploaded"):
        Path(job.params["file"]).unlink(missing_ok=True)
        if job.params.get("gold"):
            Path(job.params["gold"]).unlink(missing_ok=True)
    return get(project, job_id)


def reporter_progress(project: ProjectContext, job_id: int) -> str:
    with project.db.read() as conn:
        job = store.get_job(conn, job_id)
    return f"{job.done}/{job.total}" if job and job.total else "the start"


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
