"""Log-in throttling: failed log-ins counted in the database, so every app server of a project shares them.

Per client address and user name the attempt is *refused* for a while (one browser guessing one account); per user
name and per address alone it is only *delayed*, a few seconds at most, so nobody can lock an account, or everyone
behind one proxy, out.
"""

from __future__ import annotations

import math

from sqlalchemy import Connection

from annotator.errors import UserError
from annotator.store.login_throttle import ThrottleRow
from annotator.store.repository import Repository

#: Throttling policy (docs/DEPLOYMENT.md, "Sessions, secrets and log-in throttling"):
#: - one client address guessing one user name: ``USER_FREE_FAILURES`` free failures, then each further attempt
#:   from that address for that name is *refused* (not checked) until a wait that doubles with every failure
#:   (1, 2, 4 … ``MAX_WAIT_S``) is over. With trusted proxies configured, only the guesser's own address waits.
#: - one user name from all addresses (``NAME_FREE_FAILURES``) and one address for all names
#:   (``ADDRESS_FREE_FAILURES``): never refused, only *delayed* before the password is checked, doubling from
#:   ``FIRST_DELAY_S`` up to ``NAME_MAX_DELAY_S`` / ``ADDRESS_MAX_DELAY_S``. So the right password always gets in
#:   within a few seconds, whatever anyone else does from other addresses or with other names.
USER_FREE_FAILURES = 5
NAME_FREE_FAILURES = 10
ADDRESS_FREE_FAILURES = 20
MAX_WAIT_S = 15 * 60
FIRST_DELAY_S = 0.125
NAME_MAX_DELAY_S = 3.0
ADDRESS_MAX_DELAY_S = 1.0
#: Failures older than this are forgotten: a translator's typos last week do not slow them down today.
FORGET_AFTER_S = 24 * 3600


class LoginThrottled(UserError):
    """Too many failed log-ins for this user name from this address: the attempt was not even checked."""

    def __init__(self, wait_s: float) -> None:
        self.wait_s = wait_s
        super().__init__(
            "Too many failed log-ins for this user name from this address: "
            f"try again in {format_wait(wait_s)}. Ask a lead if you have forgotten your password."
        )


def format_wait(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    minutes, secs = divmod(whole, 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def wait_after(failures: int, free: int) -> float:
    """Seconds to wait after ``failures`` failed attempts: none up to ``free``, then 1, 2, 4 … ``MAX_WAIT_S``."""
    if failures < free:
        return 0.0
    return float(min(2 ** min(failures - free, 20), MAX_WAIT_S))


def delay_after(failures: int, free: int, cap: float) -> float:
    """Seconds an attempt is held back after ``failures`` failures: none up to ``free``, then doubling to ``cap``."""
    if failures < free:
        return 0.0
    return float(min(FIRST_DELAY_S * 2 ** min(failures - free, 20), cap))


def user_key(name: str) -> str:
    return f"user:{name}"


def address_key(address: str) -> str:
    return f"addr:{address[:120]}"


def pair_key(address: str | None, name: str) -> str:
    return f"pair:{(address or '-')[:120]}\x1f{name}"


def throttle_row(repo: Repository, conn: Connection, key: str, now: float) -> tuple[int, float, float]:
    """(failures, last failure time, blocked until) of ``key``; failures older than a day are forgotten."""
    row = repo.read_throttle(conn, key)
    if row is None or now - row.last_failure_at > FORGET_AFTER_S:
        return 0, 0.0, 0.0
    return row.failures, row.last_failure_at, row.blocked_until


def save_throttle(
    repo: Repository, conn: Connection, key: str, failures: int, last: float, blocked_until: float
) -> None:
    """Write ``key``'s failures, last failure time and the time it is refused until."""
    repo.write_throttle(conn, key, ThrottleRow(failures, last, blocked_until))


def forget_failures(repo: Repository, conn: Connection, name: str) -> None:
    """Clear the waits of an account (its own and those of every address guessing it): a new password starts afresh."""
    repo.delete_throttles(conn, [user_key(name)], prefix="pair:", suffix=f"\x1f{name}")
