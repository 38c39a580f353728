"""A job's files kept in the project's database: what the Evaluate page shows and the Dataset page's
"Last export" offers, on every app server of the project, whichever server's worker ran the job.

Each file goes in as parts of at most 1 MiB, each compressed and written in its own short transaction (curators'
saves are never held up by a large file, and nothing holds a whole file in memory); a reader only asks for the files
of a job that finished, and a job is marked done only after its runner kept its files, so it never sees half a file.
Only the files of the newest finished job of a kind and of the one keeping its files now are kept.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

from annotator.context import ProjectContext
from annotator.domain.jobs import JobKind, JobState
from annotator.errors import UserError


def keep_folder(project: ProjectContext, job_id: int, kind: JobKind, folder: Path) -> list[str]:
    """Keep every file directly in ``folder`` as the job's files (after dropping the files of the kind's older jobs
    but the newest, which the pages show until this job is done); return their names."""
    with project.db.write() as conn:
        held = project.repo.jobs_with_files(conn, kind.value)
        shown = next((other for other, state in held if state == JobState.DONE.value), None)
        project.repo.drop_job_files(conn, [other for other, _state in held if other not in (shown, job_id)])
    kept = []
    for path in sorted(folder.iterdir()):
        if path.is_file():
            keep_file(project, job_id, path.name, path)
            kept.append(path.name)
    return kept


def keep_file(project: ProjectContext, job_id: int, name: str, path: Path) -> None:
    with path.open("rb") as handle:
        part = 0
        while True:
            data = handle.read(project.repo.job_file_part_bytes)
            if not data and part:
                return
            with project.db.write() as conn:
                project.repo.put_job_file_part(conn, job_id, name, part, data)
            part += 1


def file_names(project: ProjectContext, job_id: int) -> list[str]:
    with project.db.read() as conn:
        return project.repo.job_file_names(conn, job_id)


def parts(project: ProjectContext, job_id: int, name: str) -> Iterator[bytes]:
    """The file's bytes, a part at a time; a file that is not (or no longer) kept is a user error."""
    part = 0
    while True:
        with project.db.read() as conn:
            data = project.repo.job_file_part(conn, job_id, name, part)
        if data is None:
            if not part:
                raise UserError(f"The file {name} of job {job_id} is no longer kept; run the job again.")
            return
        yield data
        part += 1


def lines(project: ProjectContext, job_id: int, name: str) -> Iterator[bytes]:
    """The file's lines (without their newlines), read a part at a time."""
    rest = b""
    for data in parts(project, job_id, name):
        pieces = (rest + data).split(b"\n")
        rest = pieces.pop()
        yield from pieces
    if rest:
        yield rest


def read_bytes(project: ProjectContext, job_id: int, name: str) -> bytes:
    """The whole file (a download)."""
    return b"".join(parts(project, job_id, name))


def zip_bytes(project: ProjectContext, job_id: int, names: list[str]) -> bytes:
    """The files as one ZIP archive, each written into it a part at a time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            with archive.open(name, "w") as member:
                for data in parts(project, job_id, name):
                    member.write(data)
    return buffer.getvalue()
