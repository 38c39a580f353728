"""Background jobs as plain data: kinds, states, the allowed transitions, and when a job counts as dead.

Long project-wide runs (import, pre-population, filters, export, evaluation) are recorded as jobs so they outlive
the browser session that started them. These rules are pure, so the service, the worker and the pages agree on
them and the tests check them without processes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any


class JobKind(enum.StrEnum):
    IMPORT = "import"
    PREPOPULATE = "prepopulate"
    FILTERS = "filters"
    EXPORT = "export"
    EVALUATE = "evaluate"


class JobState(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


#: States a job leaves only by finishing; one such job per project and kind at a time.
ACTIVE = frozenset({JobState.QUEUED, JobState.RUNNING})
FINISHED = frozenset({JobState.DONE, JobState.FAILED, JobState.CANCELLED})

#: A worker whose process cannot be checked (another host) is dead after this long without a heartbeat.
HEARTBEAT_STALE_SECONDS = 120.0
#: Progress is written to the database at most this often (the last update of a run is always written).
PROGRESS_INTERVAL_SECONDS = 0.25


@dataclass(frozen=True)
class Job:
    id: int
    kind: JobKind
    user: str
    params: dict[str, Any]
    state: JobState
    done: int = 0
    total: int = 0
    message: str = ""
    result: dict[str, Any] | None = None
    error: str | None = None
    cancel_requested: bool = False
    created_at: str = ""
    started_at: str | None = None
    finished_at: str | None = None
    heartbeat_at: str | None = None
    worker_pid: int | None = None
    worker_host: str | None = None

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total > 0 else 0.0


def already_running_message(job: Job) -> str:
    """Why a second job of the same kind is refused: name the one that holds the slot."""
    progress = f", {job.done}/{job.total}" if job.total else ""
    return (
        f"A {job.kind.value} job is already {job.state.value} (job {job.id}, started by {job.user}{progress}); "
        "wait for it to finish or cancel it first."
    )


def death_reason(
    job: Job,
    now: datetime,
    host: str,
    pid_alive: bool | None,
    stale_after: float = HEARTBEAT_STALE_SECONDS,
) -> str | None:
    """Why an active job's worker must be considered dead, or None while it may still be working.

    ``pid_alive`` is the answer of the process table on this host (None when the job's worker runs elsewhere or
    has no pid yet). On the worker's own host the process table is authoritative; elsewhere only a stale
    heartbeat tells.
    """
    if job.state not in ACTIVE:
        return None
    if job.worker_pid is not None and job.worker_host == host and pid_alive is False:
        return f"the worker process {job.worker_pid} died (killed or crashed) before finishing"
    beat = job.heartbeat_at or job.started_at or job.created_at
    if beat and (job.worker_host != host or job.worker_pid is None):
        age = (now - datetime.fromisoformat(beat)).total_seconds()
        if age > stale_after:
            return f"no heartbeat from the worker for {age:.0f} s"
    return None


def due(last_report: float, now: float, done: int, total: int, interval: float = PROGRESS_INTERVAL_SECONDS) -> bool:
    """Throttle for progress writes: report the first and the final update, otherwise at most every ``interval``."""
    if total > 0 and done >= total:
        return True
    return now - last_report >= interval
