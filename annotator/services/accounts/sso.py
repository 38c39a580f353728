"""E-mail addresses and single sign-on: an OpenID Connect login (Streamlit's ``st.login``) is matched to an account
by its verified address; roles and languages stay in this database."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.services.accounts.sessions import Session, session_hours
from annotator.store.repository import Repository

#: One '@', no spaces or control characters, a dot in the domain: enough to catch typos; the provider vouches
#: for the rest.
_EMAIL = re.compile(r"^[^@\s\x00-\x1f\x7f]{1,64}@[^@\s.\x00-\x1f\x7f]+(\.[^@\s.\x00-\x1f\x7f]+)+$")
MAX_EMAIL_LENGTH = 254


def normalize_email(email: str) -> str:
    """The address as stored and matched: trimmed and lower-cased; a ``UserError`` naming it when malformed."""
    check_storable("e-mail address", email)  # said by name, before the database's own refusal
    address = email.strip().lower()
    if len(address) > MAX_EMAIL_LENGTH or not _EMAIL.match(address):
        raise UserError(f"E-mail address {email.strip()!r} is not valid: write it as name@example.org.")
    return address


def check_email_free(repo: Repository, conn: Connection, address: str, name: str) -> None:
    """Refuse an address another account already has (addresses identify accounts at single sign-on)."""
    other = repo.get_user_by_email(conn, address)
    if other is not None and other.name != name:
        raise UserError(f"E-mail address {address!r} is already used by the account {other.name!r}.")


def set_email(project: ProjectContext, name: str, email: str | None) -> str | None:
    """Give the account an e-mail address (or none, with ``None`` or ""); returns the address as stored.

    Changing it ends the account's open sessions: a single sign-on session was opened for the old address.
    """
    address = normalize_email(email) if email else None
    with project.db.write() as conn:
        if address is not None:
            check_email_free(project.repo, conn, address, name)
        project.repo.update_user(conn, name, email=address)
        project.repo.bump_session_epoch(conn, name)
    return address


def verified_email(claims: Mapping[str, object]) -> str | None:
    """The e-mail address an OpenID Connect identity (``st.user``) vouches for, lower-cased, or None.

    None when there is no address, or when the provider says ``email_verified`` is anything but true (a provider
    that does not send the claim is trusted to have checked the address itself).
    """
    email = claims.get("email")
    if not isinstance(email, str) or not email.strip():
        return None
    if "email_verified" in claims:
        verified = claims["email_verified"]
        if isinstance(verified, str):  # some providers send the JSON boolean as a string
            verified = verified.strip().lower() == "true"
        if verified is not True:
            return None
    try:
        return normalize_email(email)
    except UserError:
        return None


class SignInAgain(UserError):
    """The provider's identity is older than the account's last logout (or than a session may last)."""

    def __init__(self) -> None:
        super().__init__("Your session has ended. Please sign in again.")


def sso_log_in(
    project: ProjectContext, email: str, issued_at: object = None, now: float | None = None
) -> Session | None:
    """The session for the enabled account whose e-mail address is ``email`` (any case), or None.

    ``email`` must be one the provider verified (``verified_email``). A disabled account is refused like an
    unknown address: the person has to ask a lead either way. ``issued_at`` is the identity token's ``iat``
    (Unix time, when the provider signed the person in): an identity from before the account's last logout,
    password change or e-mail change, or older than a session lasts (``session_hours``), raises ``SignInAgain``
    (Streamlit keeps the identity in a cookie for 30 days; a logout here must not be undone by it).
    """
    try:
        address = normalize_email(email)
    except UserError:
        return None
    now = time.time() if now is None else now
    with project.db.read() as conn:
        user = project.repo.get_user_by_email(conn, address)
        if user is None or user.disabled:
            return None
        changed_at = project.repo.session_epoch_changed_at(conn, user.name)
        epoch_now = project.repo.session_epoch(conn, user.name)
    # ``iat`` is whole seconds: one issued in the very second of the logout is taken as from before it
    if isinstance(issued_at, int | float) and not isinstance(issued_at, bool):
        too_old = now - issued_at > session_hours() * 3600
        if too_old or (changed_at is not None and issued_at <= math.floor(changed_at)):
            raise SignInAgain()
    issued = float(issued_at) if isinstance(issued_at, int | float) and not isinstance(issued_at, bool) else now
    return Session(user.name, epoch_now, min(issued, now))
