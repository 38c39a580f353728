"""Atomic output: build a folder or a file under a temporary name and rename it into place when complete.

A crash or an error half-way leaves at most a hidden ``.…partial…`` entry, never something with the final name
that looks like a finished export (SPEC §7). ``mkdtemp``/``mkstemp`` make their entries private (0700/0600) so
no one sees them half-written; before the rename they get the mode any folder or file of the user's gets
(0777/0666 less the umask), since an export is made to be shared.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from annotator.errors import UserError

PARTIAL_MARK = ".partial-"


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); harmless where directories cannot be opened (Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def current_umask() -> int:
    """The process umask. Read from ``/proc`` where there is one: ``os.umask`` can only be read by setting it,
    which races with other threads (the app serves several sessions) creating files meanwhile."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_shareable(path: Path) -> None:
    """Give a temporary (private) folder or file the mode a plain ``mkdir``/``open`` would have given it."""
    os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~current_umask())


def cannot_write(target: Path | str, error: OSError) -> UserError:
    """The user-facing error for an output location that cannot be created or written (a file where the folder
    should be, a missing or read-only parent…): it names the path and the reason instead of a traceback."""
    reason = error.strerror or str(error)
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(target) else ""
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
        self.final: Path | None = None

    def __enter__(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        self.temporary = Path(tempfile.mkdtemp(prefix=f".{self.name}{PARTIAL_MARK}", dir=self.root))
        return self.temporary

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> bool:
        assert self.temporary is not None
        if exc_type is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            return False
        try:
            self.final = publish_folder(self.temporary, self.root, self.name)
        except BaseException:
            shutil.rmtree(self.temporary, ignore_errors=True)
            raise
        return False


def publish_folder(temporary: Path, root: Path, name: str) -> Path:
    """Rename a finished temporary folder to its final, unique name; returns that name."""
    make_shareable(temporary)
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
def atomic_file(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; when the block succeeds it replaces ``path`` in one rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}{PARTIAL_MARK}", dir=path.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        make_shareable(temporary)
        os.replace(temporary, path)
        _fsync_dir(path.parent)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_bytes_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, LF) in one rename, so a crash never leaves half a file."""
    with atomic_file(path) as temporary:
        write_bytes_synced(temporary, text.encode("utf-8"))
