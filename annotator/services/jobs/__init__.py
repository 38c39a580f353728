"""Background jobs: start a project-wide run as a detached worker process, follow it, cancel it, rerun it
(``control``), the worker's body (``worker``), and whether a worker is still alive (``liveness``)."""

from annotator.services.jobs.control import (
    JOBS_FOLDER,
    JobBoard,
    JobRefused,
    board,
    cancel,
    get,
    jobs_folder,
    latest_done,
    latest_result_path,
    launch_worker,
    list_jobs,
    save_upload,
    start,
    wait,
)
from annotator.services.jobs.liveness import host_name, pid_alive, runs_job
from annotator.services.jobs.worker import (
    HEARTBEAT_SECONDS,
    PROGRESS_INTERVAL_ENV,
    RUNNERS,
    JobCancelled,
    progress_interval,
    work,
)

__all__ = [
    "HEARTBEAT_SECONDS",
    "JOBS_FOLDER",
    "PROGRESS_INTERVAL_ENV",
    "RUNNERS",
    "JobBoard",
    "JobCancelled",
    "JobRefused",
    "board",
    "cancel",
    "get",
    "host_name",
    "jobs_folder",
    "latest_done",
    "latest_result_path",
    "launch_worker",
    "list_jobs",
    "pid_alive",
    "progress_interval",
    "runs_job",
    "save_upload",
    "start",
    "wait",
    "work",
]
