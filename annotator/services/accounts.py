"""Accounts: salted scrypt password hashes, user management, and login checks.

scrypt is memory-hard, so a stolen database does not give the translators' passwords away cheaply.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import secrets

from annotator.domain.model import Role, User
from annotator.errors import UserError
from annotator.project import Project

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSWORD_LENGTH = 8
_USERNAME = re.compile(r"^[A-Za-z0-9_.-]{2,64}$")


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    encode = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


def verify_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    try:
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except ValueError:  # a damaged stored hash locks the account instead of crashing the login page
        return False
    return hmac.compare_digest(actual, expected)


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"A password needs at least {MIN_PASSWORD_LENGTH} characters.")


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the user does not exist (see ``authenticate``); made once, on first use."""
    return hash_password("not-a-real-password")


def add_user(
    project: Project, name: str, role: Role | str, languages: tuple[str, ...], password: str, display_name: str = ""
) -> User:
    if not _USERNAME.match(name):
        raise UserError(f"User name {name!r}: use 2-64 letters, digits, '.', '_' or '-'.")
    role = Role(role)
    _check_password(password)
    langs = tuple(lang.upper() for lang in languages)
    if role is Role.TRANSLATOR and not langs:
        raise UserError("A translator needs at least one language (--languages IT,DE).")
    user = User(name=name, role=role, languages=langs, display_name=display_name or name)
    with project.db.write() as conn:
        project.repo.add_user(conn, user, hash_password(password))
    return user


def set_password(project: Project, name: str, password: str) -> None:
    _check_password(password)
    with project.db.write() as conn:
        project.repo.update_user(conn, name, password_hash=hash_password(password))


def set_disabled(project: Project, name: str, disabled: bool) -> None:
    with project.db.write() as conn:
        project.repo.update_user(conn, name, disabled=disabled)


def list_users(project: Project) -> list[User]:
    with project.db.read() as conn:
        return project.repo.list_users(conn)


def authenticate(project: Project, name: str, password: str) -> User | None:
    """The user if the password is right and the account is enabled; None otherwise (never says which)."""
    with project.db.read() as conn:
        user = project.repo.get_user(conn, name.strip())
        stored = project.repo.get_password_hash(conn, name.strip()) if user else None
    # Always pay for one scrypt, so the answer time does not tell which user names exist.
    valid = verify_password(password, stored or _dummy_hash())
    if user is None or user.disabled or not valid:
        return None
    return user


def has_users(project: Project) -> bool:
    with project.db.read() as conn:
        return project.repo.count_users(conn) > 0
