"""Rows of ``job_files``: a job's files as numbered, separately compressed parts (see ``schema.job_files``)."""

from __future__ import annotations

import zlib

from sqlalchemy import Connection, delete, select

from annotator.store import schema

F = schema.job_files


class JobFileRecords:
    """A job's files in parts; part of ``Repository``."""

    #: The most bytes of a file one part holds before compression.
    job_file_part_bytes = 1 << 20

    def put_job_file_part(self, conn: Connection, job_id: int, name: str, part: int, data: bytes) -> None:
        """Part ``part`` of the file ``name`` (at most ``job_file_part_bytes``), compressed."""
        conn.execute(F.insert().values(job_id=job_id, name=name, part=part, data=zlib.compress(data, 1)))

    def job_file_part(self, conn: Connection, job_id: int, name: str, part: int) -> bytes | None:
        """Part ``part`` of the file, decompressed; None past its last part (or when there is no such file)."""
        row = conn.execute(select(F.c.data).where(F.c.job_id == job_id, F.c.name == name, F.c.part == part)).first()
        return None if row is None else zlib.decompress(row.data)

    def job_file_names(self, conn: Connection, job_id: int) -> list[str]:
        """The files kept for the job, by name."""
        query = select(F.c.name).where(F.c.job_id == job_id, F.c.part == 0).order_by(F.c.name)
        return list(conn.execute(query).scalars())

    def jobs_with_files(self, conn: Connection, kind: str) -> list[tuple[int, str]]:
        """(id, state) of the jobs of ``kind`` that have files kept, newest first."""
        J = schema.jobs
        query = select(J.c.id, J.c.state).join(F, J.c.id == F.c.job_id).where(J.c.kind == kind, F.c.part == 0)
        return sorted({(int(row.id), str(row.state)) for row in conn.execute(query)}, reverse=True)

    def drop_job_files(self, conn: Connection, job_ids: list[int]) -> None:
        if job_ids:
            conn.execute(delete(F).where(F.c.job_id.in_(job_ids)))
