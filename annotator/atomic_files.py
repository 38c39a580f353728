"""Atomic output: the one way the project writes a file or a folder for a user.

Everything is built under a temporary name in the target's own folder and renamed into place when complete, so a
crash or an error half-way leaves at most a hidden ``.NAME.partial-PID-RANDOM`` entry, never something with the
final name that looks like a finished export (SPEC §7). The temporary is created with ``O_EXCL`` and a random
part (``mkstemp``/``mkdtemp``), so two writers of one target never share one, and private (0600 files, 0700
folders); it stays so when published, with everything written inside it (an export holds the curation work; its
owner decides whom to share it with). A file is flushed to disk (``fsync``) before the rename.

A target that exists and is not a regular file (a folder, a named pipe, a device, a socket, or a link to one) is
refused with a ``UserError`` before anything is written: a rename would replace it (``/dev/null`` included).
An interrupted run's temporary folder is swept by the next writer into the same folder when it is provably
ours: the name pattern, the same owner, and a writer process that no longer runs (or a day old).

The command line turns SIGTERM and SIGHUP into ``KeyboardInterrupt`` (``annotator.cli``), so the ``except``
clauses below remove the temporary on those signals as on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, TextIO

from annotator.errors import UserError
from annotator.private_files import FILE_MODE, make_private, make_private_folder

PARTIAL_MARK = ".partial-"
#: An interrupted writer's temporary entry: ``.NAME.partial-PID-RANDOM`` (``mkstemp``/``mkdtemp``'s 8 characters).
_LEFTOVER = re.compile(r"^\..*\.partial-(\d+)-[a-z0-9_]{8}$")
#: A leftover whose writer still seems to run (or whose number another process took since) goes after this long.
LEFTOVER_MAX_AGE_S = 24 * 3600
#: Longest part of the target's name kept in its temporary's (a file name holds at most 255 bytes).
_NAME_IN_TEMPORARY = 120
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


class OutputRefused(UserError):
    """The output path names something that is not a regular file (or nothing at all); nothing was written."""


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_output_file(path: Path | str, what: str = "the output") -> Path:
    """``path`` as a ``Path`` when a file may be written there: it does not exist, or it is a regular file (or a
    link to one, which the rename replaces, never writing through it). Anything else is refused in words."""
    if not str(path).strip():
        raise OutputRefused(f"{what} names no file (an empty path); name the file to write.")
    path = Path(path)
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return path  # nothing there, or a dangling link: the rename puts a new file in its place
    except OSError as error:
        raise cannot_write(path, error) from error
    if stat.S_ISREG(found.st_mode):
        return path
    kind = next((name for test, name in _KINDS if test(found.st_mode)), "not a regular file")
    through = " (through a link)" if path.is_symlink() else ""
    raise OutputRefused(
        f"{path} is {kind}{through}: {what} is written only as a new file or over a regular file. Nothing was "
        "written; name a file."
    )


def check_output_files(paths: Iterable[Path], what: str = "the output") -> None:
    """``check_output_file`` for every file a command will write, before it writes the first: a refusal then leaves
    no part of the output written."""
    for path in paths:
        check_output_file(path, what)


def _temporary_prefix(name: str) -> str:
    return f".{name[:_NAME_IN_TEMPORARY]}{PARTIAL_MARK}{os.getpid()}-"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def sweep_leftovers(root: Path) -> list[Path]:
    """Remove the temporary folders and files interrupted writers left in ``root`` (a SIGKILL, a power cut) when
    they are provably ours: the ``.NAME.partial-PID-RANDOM`` pattern, not a link, owned by this user, and written
    by a process that no longer runs (or more than a day old). Returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _LEFTOVER.match(entry.name)
        if match is None:
            continue
        try:
            found = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISLNK(found.st_mode) or found.st_uid != os.getuid():
            continue
        pid = int(match.group(1))
        old = time.time() - found.st_mtime > LEFTOVER_MAX_AGE_S
        if pid == os.getpid() or (_running(pid) and not old):
            continue  # this process's own (another thread may be writing it), or a writer still at work
        path = Path(entry.path)
        if stat.S_ISDIR(found.st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


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
    … if taken), available as ``.final``. On any exception (Ctrl-C, SIGTERM and SIGHUP included) the temporary
    folder is removed and nothing is published.

    ``exact``: the folder becomes ``root/name`` itself, taking the place of an empty folder there (refused, with
    the temporary removed, when something else has appeared there meanwhile)."""

    def __init__(self, root: Path, name: str, *, exact: bool = False) -> None:
        self.root = root
        self.name = name
        self.exact = exact
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
        sweep_leftovers(self.root)
        prefix = _temporary_prefix(self.name)
        try:
            self.temporary = Path(tempfile.mkdtemp(prefix=prefix, dir=self.root))
        except BaseException:
            # a signal between the folder's creation and its name reaching us: ``__exit__`` will not run, so the
            # folders this process made under this name (its pid is in the prefix) are removed here
            for made in self.root.glob(glob.escape(prefix) + "*"):
                shutil.rmtree(made, ignore_errors=True)
            raise
        return self.temporary

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> Literal[False]:
        if self.temporary is None:
            raise RuntimeError("AtomicFolder left without being entered")
        if exc_type is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)
            return False
        try:
            if self.exact:
                self._final = _publish_exactly(self.temporary, self.root / self.name)
            else:
                self._final = publish_folder(self.temporary, self.root, self.name)
        except BaseException:
            shutil.rmtree(self.temporary, ignore_errors=True)
            raise
        return False


class FolderTaken(UserError):
    """The exact output folder holds something (or is not a folder): publishing never mixes its files with others."""


def _publish_exactly(temporary: Path, final: Path) -> Path:
    """Rename ``temporary`` to ``final``, which must not exist or be an empty folder (a rename replaces an empty
    folder in one step; a non-empty one, a file or a link is left as it is and the publication refused)."""
    make_private(temporary)
    if final.is_symlink() or (final.exists() and not final.is_dir()):
        raise FolderTaken(f"{final} already exists and is not a folder: choose a new folder. Nothing was changed.")
    try:
        os.rename(temporary, final)
    except OSError as error:
        if error.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise FolderTaken(
                f"{final} was filled by something else while this ran: choose a new folder. Nothing was changed."
            ) from error
        raise
    _fsync_dir(final.parent)
    return final


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


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_file(path: Path, *, replace: bool = True, what: str = "the output") -> Iterator[Path]:
    """Yield a private temporary path next to ``path`` (``O_EXCL``, 0600, a name no other writer shares); when the
    block succeeds the file is flushed to disk and replaces ``path`` in one rename.

    ``path`` existing as anything but a regular file is refused (``OutputRefused``, naming ``what``) before
    anything is written, and checked again just before the rename. ``replace=False``: an existing ``path`` is kept
    (put in place as a link, so of two processes writing at once the first wins and neither ever sees the other's
    half-written file).
    """
    path = check_output_file(path, what)
    make_private_folder(path.parent)
    fd, name = tempfile.mkstemp(prefix=_temporary_prefix(path.name), dir=path.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        make_private(temporary)  # writers such as openpyxl may have replaced the mkstemp file
        _fsync_file(temporary)
        check_output_file(path, what)  # something put there meanwhile is not replaced either
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


@contextmanager
def open_atomic(path: Path, *, what: str = "the output") -> Iterator[TextIO]:
    """``atomic_file`` with the temporary opened for UTF-8 text (LF line ends): write to the handle; the file
    replaces ``path`` when the block succeeds."""
    with atomic_file(path, what=what) as temporary, open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        yield handle


def write_bytes_synced(path: Path, data: bytes) -> None:
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def write_bytes_atomic(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename, so a crash never leaves half a file (``replace``: as in
    ``atomic_file``)."""
    with atomic_file(path, replace=replace) as temporary, open(temporary, "wb") as handle:
        handle.write(data)  # atomic_file flushes it to disk before the rename


def write_text_atomic(path: Path, text: str, *, replace: bool = True) -> None:
    """Replace ``path`` with ``text`` (UTF-8, LF) in one rename, so a crash never leaves half a file."""
    write_bytes_atomic(path, text.encode("utf-8"), replace=replace)
