"""Rows of the ``jobs`` table, and a side channel for a running job's progress that never waits on the data.

A worker reports progress while its own run may hold the write transaction (an import writes everything in
one), so progress, heartbeats and the cancel flag go through a separate small engine that gives up at once
when the database is busy: a skipped progress update costs nothing, a blocked worker would.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, create_engine, event, func, or_, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from annotator.domain.jobs import Job, JobKind, JobState
from annotator.store import schema
from annotator.store.engines import kept_for_exit

J = schema.jobs
#: How long a progress write waits for the SQLite lock before it is skipped.
SIDE_BUSY_TIMEOUT_MS = 200


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def job_from_row(row: Any) -> Job:
    return Job(
        id=int(row.id),
        kind=JobKind(row.kind),
        user=row.user,
        params=json.loads(row.params),
        state=JobState(row.state),
        done=int(row.done),
        total=int(row.total),
        message=row.message,
        result=json.loads(row.result) if row.result else None,
        error=row.error,
        cancel_requested=bool(row.cancel_requested),
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        heartbeat_at=row.heartbeat_at,
        worker_pid=row.worker_pid,
        worker_host=row.worker_host,
    )


class JobRecords:
    """Background jobs' rows; part of ``Repository``."""

    def insert_job(self, conn: Connection, kind: JobKind, user: str, params: dict[str, Any], at: str) -> int:
        result = conn.execute(
            J.insert().values(
                kind=kind.value,
                user=user,
                params=_dumps(params),
                state=JobState.QUEUED.value,
                done=0,
                total=0,
                message="",
                cancel_requested=False,
                created_at=at,
            )
        )
        return _inserted_id(result)

    def get_job(self, conn: Connection, job_id: int) -> Job | None:
        row = conn.execute(select(J).where(J.c.id == job_id)).first()
        return job_from_row(row) if row else None

    def list_jobs(self, conn: Connection, limit: int = 20, kinds: Sequence[JobKind] | None = None) -> list[Job]:
        """The newest jobs first."""
        query = select(J).order_by(J.c.id.desc()).limit(limit)
        if kinds:
            query = query.where(J.c.kind.in_([JobKind(k).value for k in kinds]))
        return [job_from_row(r) for r in conn.execute(query)]

    def board_jobs(self, conn: Connection, limit: int, kinds: Sequence[JobKind] | None = None) -> list[Job]:
        """Newest first, in one statement: the ``limit`` newest jobs (of ``kinds``), the newest of every kind and every
        active job — what the jobs panel shows and checks (``services.jobs.board`` sorts them out)."""
        recent = select(J.c.id).order_by(J.c.id.desc()).limit(limit)
        if kinds:
            recent = recent.where(J.c.kind.in_([JobKind(k).value for k in kinds]))
        newest = select(func.max(J.c.id)).group_by(J.c.kind)
        active = J.c.state.in_([JobState.QUEUED.value, JobState.RUNNING.value])
        query = select(J).where(or_(J.c.id.in_(recent), J.c.id.in_(newest), active)).order_by(J.c.id.desc())
        return [job_from_row(r) for r in conn.execute(query)]

    def active_jobs(self, conn: Connection, kind: JobKind | None = None) -> list[Job]:
        query = select(J).where(J.c.state.in_([JobState.QUEUED.value, JobState.RUNNING.value])).order_by(J.c.id)
        if kind is not None:
            query = query.where(J.c.kind == kind.value)
        return [job_from_row(r) for r in conn.execute(query)]

    def update_job(
        self, conn: Connection, job_id: int, states: Collection[JobState] | None = None, **values: Any
    ) -> bool:
        """Change a job's columns, only if it is still in one of ``states``; True when the row changed."""
        if "result" in values and values["result"] is not None:
            values["result"] = _dumps(values["result"])
        if "state" in values:
            values["state"] = JobState(values["state"]).value
        query = J.update().where(J.c.id == job_id)
        if states:
            query = query.where(J.c.state.in_([s.value for s in states]))
        return conn.execute(query.values(**values)).rowcount == 1


class SideChannel:
    """Progress, heartbeat and cancel flag of one running job, on an engine of its own (see module docstring)."""

    def __init__(self, url: str) -> None:
        self.is_sqlite = make_url(url).get_backend_name() == "sqlite"
        self.engine: Engine = kept_for_exit(
            create_engine(url, pool_size=1, max_overflow=1, pool_pre_ping=True)
            if not self.is_sqlite
            else create_engine(url)
        )
        if self.is_sqlite:

            @event.listens_for(self.engine, "connect")
            def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
                cursor = dbapi_connection.cursor()
                cursor.execute(f"PRAGMA busy_timeout={SIDE_BUSY_TIMEOUT_MS}")
                cursor.close()

    def report(self, job_id: int, at: str, **values: Any) -> bool | None:
        """Write progress and/or the heartbeat; returns the cancel flag, or None when the database was busy."""
        try:
            with self.engine.begin() as conn:
                conn.execute(J.update().where(J.c.id == job_id).values(heartbeat_at=at, **values))
                flag = conn.execute(select(J.c.cancel_requested).where(J.c.id == job_id)).scalar()
        except OperationalError:
            return None
        return bool(flag)

    def cancel_requested(self, job_id: int) -> bool:
        with self.engine.connect() as conn:
            return bool(conn.execute(select(J.c.cancel_requested).where(J.c.id == job_id)).scalar())

    def dispose(self) -> None:
        self.engine.dispose()


def _inserted_id(result: CursorResult[Any]) -> int:
    """The id the database gave the row just inserted (one row, one integer key)."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the insert returned no primary key")
    return int(key[0])
