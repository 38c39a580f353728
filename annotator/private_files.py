"""Files only their owner can read: the database (it holds password hashes), everything exported, and every
file and folder the app keeps (the data folder, uploads and job logs under ``jobs/``, the BabelNet cache, caches).

Modes are set when an entry is created (``O_CREAT`` with 0600, ``mkdir`` with 0700, ``chmod`` of a finished
temporary entry), never by changing the process umask, which is shared with every thread of the app.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (SQLite then opens it, and gives its ``-wal`` and
    ``-shm`` files the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))


def make_private_folder(path: Path) -> None:
    """``mkdir -p`` where every folder it creates is 0700 (an existing folder keeps the mode it has)."""
    missing = []
    folder = Path(os.path.abspath(path))
    while not folder.is_dir() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue  # made meanwhile by another process: its mode is its maker's business
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is cut by the umask; 0700 is what is meant


def open_private(path: Path, mode: str = "wb") -> IO[bytes]:
    """Open ``path`` for writing (``"wb"``) or appending (``"ab"``), created 0600; a file left by an older
    version with a wider mode is narrowed to 0600 too."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "ab" else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


def write_private_bytes(path: Path, data: bytes) -> None:
    """``path.write_bytes(data)`` with the file 0600."""
    with open_private(path) as handle:
        handle.write(data)


def make_private(path: Path) -> None:
    """Give a finished temporary file 0600, or a folder 0700 and everything in it 0600/0700, before publishing."""
    if path.is_dir():
        for folder, folders, files in os.walk(path):
            for name in files:
                os.chmod(Path(folder, name), FILE_MODE)
            for name in folders:
                os.chmod(Path(folder, name), FOLDER_MODE)
        os.chmod(path, FOLDER_MODE)
    else:
        os.chmod(path, FILE_MODE)
