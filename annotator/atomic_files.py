"""Atomic output: build a folder or a file under a temporary name and rename it into place when complete.

A crash or an error half-way leaves at most a hidden ``.…partial…`` entry, never something with the final name
that looks like a finished export (SPEC §7). ``mkdtemp``/``mkstemp`` make their entries private (0700/0600) and
they stay so when published, with everything written inside them (issue 14: an export holds the curation work;
its owner decides whom to share it with). A new output folder is made 0700 too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from annotator.errors import UserError
from annotator.private_files import FILE_MODE, make_private, make_private_folder

PARTIAL_MARK = ".partial-"
#: errno values that mean "no room": a full disk, a quota, a file-size limit.
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); harmless where directories cannot be opened (Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def cannot_write(target: Path | str, error: OSError) -> UserError:
    """The user-facing error for an output location that cannot be created or written (a file where the folder
    should be, a missing or read-only parent…): it names the path and the reason instead of a traceback."""
    reason = error.strerror or str(error)
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(target) else ""
    if error.errno in _NO_SPACE:  # a full disk or quota, or a file-size limit: the atomic writes left no half file
        return UserError(
            f"Cannot write to {target}: {reason}{where}. Nothing was left half-written; free some space or choose "
            "another folder, then run it again."
        )
    return UserError(f"Cannot write to {target}: {reason}{where}. Choose a folder that can be created and written.")


def unique_path(root: Path, stem: str, suffix: str = "") -> Path:
    """``root/stem+suffix``, or ``root/stem-2+suffix`` … when taken."""
    candidate = root / f"{stem}{suffix}"
    number = 2
    while candidate.exists():
        candidate = root / f"{stem}-{number}{suffix}"
        number += 1
    return candidate


class AtomicFolder:
    """``with AtomicFolder(root, name) as tmp:`` fill ``tmp``; on success it becomes ``root/name`` (or ``name-2``
    … if taken), available as ``.final``. On any exception the temporary folder is removed and nothing is
    published."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.temporary: Path | None = None
        self._final: Path | None = None

    @property
    def final(self) -> Path:
        """The published folder; reading it before the ``with`` block has succeeded is a programming error."""
        if self._final is None:
            raise RuntimeError(f"AtomicFolder {self.name!r} has not been published (its block failed or is running)")
        return self._final

    def __enter__(self) -> Path:
        make_private_folder(self.root)
        self.temporary = Path(tempfile.mkdtemp(prefix=f".{self.name}{PARTIAL_MARK}", dir=self.root))
        return self.temporary

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> Literal[False]:
        if self.temporary is None:
            raise RuntimeError("AtomicFolder left without being entered")
        if exc_type is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            return False
        try:
            self._final = publish_folder(self.temporary, self.root, self.name)
        except BaseException:
            shutil.rmtree(self.temporary, ignore_errors=True)
            raise
        return False


def publish_folder(temporary: Path, root: Path, name: str) -> Path:
    """Rename a finished temporary folder to its final, unique name; returns that name."""
    make_private(temporary)
    for _attempt in range(100):
        final = unique_path(root, name)
        try:
            os.rename(temporary, final)
        except OSError:
            if final.exists():
                continue  # someone took the name between the check and the rename
            raise
        _fsync_dir(root)
        return final
    raise OSError(f"could not find a free name for {name} in {root}")


@contextmanager
def atomic_file(path: Path, *, replace: bool = True) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block succeeds it replaces ``path`` in one rename.

    ``replace=False``: an existing ``path`` is kept (put in place as a link, so of two processes writing at once
    the first wins and neither ever sees the other's half-written file).
    """
    make_private_folder(path.parent)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}{PARTIAL_MARK}", dir=path.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        make_private(temporary)  # writers such as openpyxl may have replaced the mkstemp file
        if replace:
            os.replace(temporary, path)
        else:
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
            temporary.unlink()
        _fsync_dir(path.parent)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_bytes_synced(path: Path, data: bytes) -> None:
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def write_bytes_atomic(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename, so a crash never leaves half a file (``replace``: as in
    ``atomic_file``)."""
    with atomic_file(path, replace=replace) as temporary:
        write_bytes_synced(temporary, data)


def write_text_atomic(path: Path, text: str, *, replace: bool = True) -> None:
    """Replace ``path`` with ``text`` (UTF-8, LF) in one rename, so a crash never leaves half a file."""
    write_bytes_atomic(path, text.encode("utf-8"), replace=replace)
