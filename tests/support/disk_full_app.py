"""Run by tests/test_disk_full.py inside a private mount namespace, with a small tmpfs mounted at DISK.

Copies the project folder SOURCE onto DISK, opens the app on it (AppTest) at the Curate page, fills the disk to
the last byte, then adds a candidate as a user would. Prints, as JSON, what the page showed (exceptions, errors)
and — after freeing the disk — what the database holds, since the tmpfs vanishes with this process.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from app_helpers import feedback, send_area
from streamlit.testing.v1 import AppTest

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"


def fill(disk: Path) -> Path:
    """Write zeros until the file system refuses (ENOSPC); the file is removed later to free the disk."""
    filler = disk / "filler"
    block = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(block)
        except OSError:
            pass
        try:
            while True:
                out.write(b"\0")
        except OSError:
            pass
    return filler


def main(source: Path, disk: Path, item: str, lang: str) -> None:
    data = disk / "data"
    shutil.copytree(source, data)
    os.environ["ANNOTATOR_DATA"] = str(data)
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"item": item, "lang": lang})
    at.run()
    opened = [str(e.value) for e in at.exception] + [e.value for e in at.error]
    filler = fill(disk)
    send_area(at, "add", side="good", text="sorso")  # fails on the full disk: a message, no exception
    shown = {
        "opened": opened,
        "exceptions": [str(e.value) for e in at.exception],
        "errors": [e.value for e in at.error],
        # the element empties the box only when told to (``clear``, on success): the typed text stays to redo
        "kept_input": "sorso" if not at.exception and "clear" not in (feedback(at) or {}) else None,
    }
    filler.unlink()

    from annotator.project import Project

    project = Project.open(data)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, lang)
    shown["good"] = [c.text for c in state.good] if state else None
    project.db.dispose()
    print(json.dumps(shown))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4])
