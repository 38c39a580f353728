"""Run one ``annotator`` command in a real process that stops just before its first write transaction.

``python paused_command.py READY GO annotator-arguments…``: when the command is about to begin its first write
transaction (``Database.write``: ``BEGIN IMMEDIATE`` on SQLite, the advisory lock on PostgreSQL) it creates the
file READY and waits until the file GO exists, then goes on. Whatever the command read before that point it has
read; a test can let other processes commit meanwhile, which is how two commands run at once meet.

The pause is a SQLAlchemy ``begin`` listener registered on the ``Engine`` class: class-level listeners run before
the engine's own (which takes the lock), so the process is paused outside the lock. Nothing of annotator's is
replaced.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

WAIT_LIMIT_S = 120


def _pause_before_first_write(ready: Path, go: Path) -> None:
    paused = [False]

    @event.listens_for(Engine, "begin")
    def _before_begin(connection: Connection) -> None:
        if paused[0] or connection.info.get("begin_mode") != "IMMEDIATE":
            return
        paused[0] = True
        ready.touch()
        deadline = time.monotonic() + WAIT_LIMIT_S
        while not go.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"paused_command: {go} never appeared")
            time.sleep(0.005)


def main() -> int:
    ready, go, *arguments = sys.argv[1:]
    _pause_before_first_write(Path(ready), Path(go))
    from annotator.cli import main as annotator

    return annotator(arguments)


if __name__ == "__main__":
    sys.exit(main())
