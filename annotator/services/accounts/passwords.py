"""Passwords: salted scrypt hashes, the rules a new password follows, and one-time passwords.

scrypt is memory-hard, so a stolen database does not give the translators' passwords away cheaply. The same rules
apply wherever a password is chosen: ``annotator users add|passwd`` and the browser's change-password forms.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSWORD_LENGTH = 8
#: Bytes of randomness in a one-time password (``token_urlsafe``: 16 characters, about 96 bits).
ONE_TIME_BYTES = 12


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


def check_password(password: str) -> None:
    """The rules every new password follows, on the command line and in the browser alike."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"A password needs at least {MIN_PASSWORD_LENGTH} characters.")
    check_storable("password", password)  # a lone surrogate cannot even be hashed (UTF-8 cannot encode it)


def one_time_password() -> str:
    """A random password well over the minimum length, typed once by its owner (or pasted from the lead's note)."""
    return secrets.token_urlsafe(ONE_TIME_BYTES)


@functools.cache
def dummy_hash() -> str:
    """Checked against when the user does not exist (see ``login.authenticate``); made once, on first use."""
    return hash_password("not-a-real-password")
