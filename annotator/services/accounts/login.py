"""Log-in: checking a password under the throttle, and the session a successful log-in starts."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

from annotator.context import ProjectContext
from annotator.domain.model import User
from annotator.services.accounts.passwords import dummy_hash, verify_password
from annotator.services.accounts.sessions import Session, current_session
from annotator.services.accounts.throttle import (
    ADDRESS_FREE_FAILURES,
    ADDRESS_MAX_DELAY_S,
    NAME_FREE_FAILURES,
    NAME_MAX_DELAY_S,
    USER_FREE_FAILURES,
    LoginThrottled,
    address_key,
    delay_after,
    pair_key,
    save_throttle,
    throttle_row,
    user_key,
    wait_after,
)


def authenticate(
    project: ProjectContext,
    name: str,
    password: str,
    address: str | None = None,
    now: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> User | None:
    """The user if the password is right and the account is enabled; None otherwise (never says which).

    Raises ``LoginThrottled`` without checking the password while this address must wait for this user name.
    Failures of the name from anywhere, or of the address with any name, only hold the check back (``sleep``,
    at most a few seconds): they never refuse a right password. The attempt is counted as a failure *before*
    the (slow) password check, so parallel guesses cannot slip past the limit; a successful check then forgets
    the failures of the name and takes this one back from the address.
    """
    name = name.strip()[:64]
    now = time.time() if now is None else now
    pair = pair_key(address, name)
    counted = [(user_key(name), NAME_FREE_FAILURES, NAME_MAX_DELAY_S)]
    if address is not None:
        counted.append((address_key(address), ADDRESS_FREE_FAILURES, ADDRESS_MAX_DELAY_S))
    with project.db.write() as conn:
        failures, _last, blocked_until = throttle_row(project.repo, conn, pair, now)
        if blocked_until > now:
            raise LoginThrottled(blocked_until - now)
        failures += 1
        save_throttle(project.repo, conn, pair, failures, now, now + wait_after(failures, USER_FREE_FAILURES))
        delay = 0.0
        for key, free, cap in counted:
            before = throttle_row(project.repo, conn, key, now)[0]
            delay = max(delay, delay_after(before, free, cap))
            save_throttle(project.repo, conn, key, before + 1, now, 0.0)
        user = project.repo.get_user(conn, name)
        stored = project.repo.get_password_hash(conn, name) if user else None
    if delay > 0:
        sleep(delay)  # outside the transaction: a held-back attempt blocks nobody else's write
    # Always pay for one scrypt, so the answer time does not tell which user names exist.
    valid = verify_password(password, stored or dummy_hash())
    if user is None or user.disabled or not valid:
        return None
    with project.db.write() as conn:
        project.repo.delete_throttles(conn, (pair, user_key(name)))
        if address is not None:  # this attempt was not a failure after all
            key = address_key(address)
            failures, last, _blocked = throttle_row(project.repo, conn, key, now)
            save_throttle(project.repo, conn, key, max(failures - 1, 0), last, 0.0)
    return user


def log_in(
    project: ProjectContext,
    name: str,
    password: str,
    address: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Session | None:
    """``authenticate``, then the session to remember; None for a wrong password or a disabled account.

    An account whose password must be changed gets its session too: it serves only the change-password form
    (``sessions.password_change_due``).
    """
    user = authenticate(project, name, password, address, sleep=sleep)
    if user is None:
        return None
    return current_session(project, user.name)


def still_logs_in_with(project: ProjectContext, name: str, password: str) -> bool:
    """Whether the enabled account ``name`` still has ``password`` (not counted as a log-in attempt): the demo's
    log-in page names its accounts' passwords only while they work (a reset or change makes them secret again)."""
    with project.db.read() as conn:
        user = project.repo.get_user(conn, name)
        stored = project.repo.get_password_hash(conn, name)
    return user is not None and not user.disabled and stored is not None and _verifies(password, stored)


@functools.lru_cache(maxsize=32)
def _verifies(password: str, stored: str) -> bool:
    """A slow hash checked once per (password, stored hash): every anonymous view of the log-in page asks."""
    return verify_password(password, stored)
