"""Is a job's worker still alive? Its process on this host (zombies and reused pids count as dead), its heartbeat
elsewhere; active jobs whose worker is gone are marked failed with the reason."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from annotator.clock import utc_now
from annotator.domain import jobs as rules
from annotator.domain.jobs import Job, JobState
from annotator.store.repository import Repository


def host_name() -> str:
    return socket.gethostname()


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


def death_reasons(active: Sequence[Job]) -> list[tuple[Job, str | None]]:
    now, host = datetime.now(UTC), host_name()
    found = []
    for job in active:
        known = pid_alive(job.worker_pid, job.id) if job.worker_pid and job.worker_host == host else None
        found.append((job, rules.death_reason(job, now, host, known)))
    return found


def living(active: Sequence[Job]) -> list[Job]:
    return [job for job, reason in death_reasons(active) if reason is None]


def reconcile(repo: Repository, conn: Any, active: Sequence[Job]) -> list[Job]:
    """Mark the active jobs whose worker is gone as failed (with the reason); return those still alive."""
    alive = []
    for job, reason in death_reasons(active):
        if reason is None:
            alive.append(job)
            continue
        repo.update_job(
            conn,
            job.id,
            rules.ACTIVE,
            state=JobState.FAILED,
            error=f"{reason}; run the job again to resume",
            finished_at=utc_now(),
        )
    return alive
