"""The worker's body (``annotator jobs work ID``, a process of its own): claim the job, run the ordinary service with a
throttled progress callback that also checks for a cancel, keep a heartbeat, record how the run ended."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.domain import jobs as rules
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.progress import ProgressCallback
from annotator.services import administration
from annotator.services.jobs.control import JobRefused, get
from annotator.services.jobs.liveness import host_name
from annotator.store.jobs import SideChannel

#: Seconds between heartbeats written by a worker's background thread.
HEARTBEAT_SECONDS = 5.0
#: Environment variable: seconds between a worker's progress writes (see ``progress_interval``).
PROGRESS_INTERVAL_ENV = "ANNOTATOR_JOB_PROGRESS_INTERVAL"


class JobCancelled(Exception):
    """Raised from a progress callback once a cancel was requested; the run stops at that point."""


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

    def __init__(self, side: SideChannel, job_id: int) -> None:
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
            corpus_licence=job.params.get("licence"),
        )  # fmt: skip
        summary = " ".join(filter(None, (wsd.summary(), wsd.report.licence_line())))
        return {"summary": summary, "warnings": [str(w) for w in wsd.report.warnings[:50]]}
    from annotator.services.importing import import_items

    report = import_items(
        project, job.params["file"], force=bool(job.params.get("force")), progress=progress, user=user,
        corpus_licence=job.params.get("licence"),
    )  # fmt: skip
    summary = " ".join(filter(None, (report.summary(), report.licence_line())))
    return {"summary": summary, "warnings": [str(w) for w in report.warnings[:50]]}


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
    # an empty selection is refused as on the command line (the Dataset page says why before offering the button)
    result = export_dataset(project, job.params["out"], options, progress, allow_empty=False, empty_hint="")
    from annotator.services import job_files

    job_files.keep_folder(project, job.id, JobKind.EXPORT, result.path)  # offered by every server's Dataset page
    return {"summary": f"Exported {result.items} item(s) to {result.path.name}", "path": str(result.path)}


def _run_evaluate(project: ProjectContext, job: Job, user: User | None, progress: ProgressCallback) -> dict[str, Any]:
    """Score translations against an exported dataset or (``current``) the project's current curation.

    A job the Evaluate page started (``page``) keeps its results in the database, where every app server's page
    reads them (``evaluation_results.save_result``); otherwise they are written in ``out``, by default in the project's
    own ``evaluations`` folder (never beside the translations: for the bundled demo file that was the installed
    package's folder).
    """
    from dataclasses import replace

    from annotator.evaluation.inputs import load_dataset, load_translations
    from annotator.evaluation.provenance import job_provenance
    from annotator.evaluation.run import create_analyser, evaluate, write_results
    from annotator.services.evaluate_project import prepare_current
    from annotator.services.evaluation_results import save_result

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
        from annotator.services.suggestions.mt import refresh_mt

        with contextlib.suppress(UserError):  # its MISS words ready for the cards (else the first card reads)
            refresh_mt(project, job.id)
        return {"summary": f"Scored {len(result.results)} translation(s); results kept in the project's database"}
    out_dir = Path(params["out"]) if params.get("out") else evaluation_folder(project, source)
    write_results(result, out_dir)
    summary = {"summary": f"Scored {len(result.results)} translation(s); results in {out_dir}", "path": str(out_dir)}
    if params.get("current"):  # its MISS words feed the cards too (read from its results folder)
        from annotator.services.suggestions.mt import refresh_mt

        with contextlib.suppress(UserError):
            refresh_mt(project, job.id, folder=out_dir)
    return summary


#: Where an evaluation job writes its results unless told otherwise (``DATA/evaluations/<translations>-evaluation``).
EVALUATIONS_FOLDER = "evaluations"


def evaluation_folder(project: ProjectContext, translations: str) -> Path:
    """``deepl.tsv`` → ``DATA/evaluations/deepl-evaluation`` (absolute): beside the project, whatever the worker's
    folder and wherever the translations file lies; re-running replaces the last run."""
    return (project.data_dir / EVALUATIONS_FOLDER / f"{Path(translations).stem}-evaluation").resolve()


RUNNERS: dict[JobKind, Callable[[ProjectContext, Job, User | None, ProgressCallback], dict[str, Any]]] = {
    JobKind.IMPORT: _run_import,
    JobKind.PREPOPULATE: _run_prepopulate,
    JobKind.FILTERS: _run_filters,
    JobKind.EXPORT: _run_export,
    JobKind.EVALUATE: _run_evaluate,
}


def _heartbeat(side: SideChannel, job_id: int, stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT_SECONDS):
        side.report(job_id, utc_now())


def work(project: ProjectContext, job_id: int) -> Job:
    """The worker's body: claim the queued job, run it, record how it ended. Never raises for the job's own errors."""
    pid, host = os.getpid(), host_name()
    with project.db.write() as conn:
        job = project.repo.get_job(conn, job_id)
        if job is None:
            raise JobRefused(f"No job {job_id}.")
        claimed = project.repo.update_job(
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
    side = SideChannel(project.db.url)
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
        project.repo.update_job(
            conn, job_id, [JobState.RUNNING], finished_at=utc_now(), heartbeat_at=utc_now(), **values
        )
    if job.kind is JobKind.IMPORT and values["state"] is JobState.DONE and job.params.get("uploaded"):
        Path(job.params["file"]).unlink(missing_ok=True)
        if job.params.get("gold"):
            Path(job.params["gold"]).unlink(missing_ok=True)
    return get(project, job_id)


def reporter_progress(project: ProjectContext, job_id: int) -> str:
    with project.db.read() as conn:
        job = project.repo.get_job(conn, job_id)
    return f"{job.done}/{job.total}" if job and job.total else "the start"
