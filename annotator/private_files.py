"""Files only their owner can read: the database (it holds password hashes) and everything exported.

Modes are set when an entry is created (``O_CREAT`` with 0600, ``mkdir`` with 0700, ``chmod`` of a finished
temporary entry), never by changing the process umask, which is shared with every thread of the app.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (SQLite then opens it, and gives its ``-wal`` and
    ``-shm`` files the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))


def make_private_folder(path: Path) -> None:
    """``mkdir -p`` whose last folder, when it is new, is 0700 (an existing folder keeps the mode it has)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=FOLDER_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise
        return
    os.chmod(path, FOLDER_MODE)  # mkdir's mode is cut by the umask; 0700 is what is meant


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
