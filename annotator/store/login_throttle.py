"""The ``login_throttle`` table: failed log-ins per key (an address, a user name, or the pair), shared by every
app server of a project. What the keys and counts mean is ``services.accounts.throttle``'s policy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import ColumnElement, Connection, select

from annotator.store import schema


class ThrottleRow(NamedTuple):
    """A key's failures, the time of the last one and the time its attempts are refused until (Unix times)."""

    failures: int
    last_failure_at: float
    blocked_until: float


class LoginThrottleRecords:
    """Failed log-ins per key; part of ``Repository``."""

    def read_throttle(self, conn: Connection, key: str) -> ThrottleRow | None:
        """The key's row, or None when it has none."""
        t = schema.login_throttle
        row = conn.execute(select(t.c.failures, t.c.last_failure_at, t.c.blocked_until).where(t.c.key == key)).first()
        return None if row is None else ThrottleRow(int(row[0]), float(row[1]), float(row[2]))

    def write_throttle(self, conn: Connection, key: str, row: ThrottleRow) -> None:
        """Write the key's row (an update, else an insert)."""
        t = schema.login_throttle
        values = row._asdict()
        if conn.execute(t.update().where(t.c.key == key).values(**values)).rowcount == 0:
            conn.execute(t.insert().values(key=key, **values))

    def delete_throttles(self, conn: Connection, keys: Sequence[str], prefix: str = "", suffix: str = "") -> None:
        """Delete the rows of ``keys``, and with ``suffix`` every row whose key starts with ``prefix`` and ends with
        ``suffix`` (taken literally: no wildcard)."""
        t = schema.login_throttle
        where: ColumnElement[bool] = t.c.key.in_(list(keys))
        if suffix:
            where = where | (t.c.key.startswith(prefix, autoescape=True) & t.c.key.endswith(suffix, autoescape=True))
        conn.execute(t.delete().where(where))
