"""The ``session_epochs`` table: per account, the epoch every login session remembers, and when it last moved.

Moving an account's epoch ends its sessions opened before (each stops at its next action)."""

from __future__ import annotations

import time

from sqlalchemy import Connection, select

from annotator.store import schema


class SessionRecords:
    """Login sessions' epochs per account; part of ``Repository``."""

    def session_epoch(self, conn: Connection, name: str) -> int:
        """The account's current epoch (0 before anything moved it)."""
        t = schema.session_epochs
        row = conn.execute(select(t.c.epoch).where(t.c.user == name)).first()
        return int(row[0]) if row else 0

    def bump_session_epoch(self, conn: Connection, name: str) -> None:
        """Move the account's epoch on, noting when (Unix time)."""
        t = schema.session_epochs
        now = time.time()
        if conn.execute(t.update().where(t.c.user == name).values(epoch=t.c.epoch + 1, changed_at=now)).rowcount == 0:
            conn.execute(t.insert().values(user=name, epoch=1, changed_at=now))

    def session_epoch_changed_at(self, conn: Connection, name: str) -> float | None:
        """When the account's epoch last moved (Unix time); None when it never did."""
        t = schema.session_epochs
        row = conn.execute(select(t.c.changed_at).where(t.c.user == name)).first()
        return float(row[0]) if row and row[0] is not None else None
