"""SQLite's WAL checkpoints on a thread of their own, for a bulk job's writes (``Database.background_checkpoints``).

A checkpoint copies the pages written since the last one from the write-ahead log into the database file and syncs
it: most of its time is spent in SQLite and in the file system, with Python's lock released. Run on the writer's
thread, it holds up the job's next batch; run here, on a connection of its own, it overlaps it. A PASSIVE checkpoint
takes no lock a writer or reader needs: it copies what no reader still uses and leaves the rest to the next one.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading


class BackgroundCheckpoints:
    """A thread running a PASSIVE checkpoint of the SQLite file at ``path`` each time one is asked for (``ask``):
    requests made while one runs are answered by a single next one. ``stop`` ends the thread and closes its
    connection; a checkpoint that fails (the file busy, the disk full) is left to the next one or to the last
    connection's close, as SQLite's own would be."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._asked = threading.Event()
        self._stopping = False
        #: Checkpoints run so far (the tests read it).
        self.runs = 0
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoints", daemon=True)
        self._thread.start()

    def ask(self) -> None:
        """Ask for a checkpoint of what has been committed so far; returns at once."""
        self._asked.set()

    def stop(self) -> None:
        """End the thread once the checkpoint running (if any) is done; the ones asked for since are not run."""
        self._stopping = True
        self._asked.set()
        self._thread.join()

    def _run(self) -> None:
        connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            while True:
                self._asked.wait()
                self._asked.clear()
                if self._stopping:
                    return
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    self.runs += 1
        finally:
            connection.close()
