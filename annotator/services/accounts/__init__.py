"""Accounts: passwords, log-in and its throttle, sessions and their tokens, single sign-on, the team's accounts.

One module per job; this package gathers their public names, so callers keep ``from annotator.services import
accounts`` / ``from annotator.services.accounts import add_user``:

- ``passwords``: scrypt hashes, the password rules, one-time passwords;
- ``password_changes``: set (server), reset (one-time, must be replaced), the owner's own change;
- ``throttle``: failed log-ins counted per address and name (refused) and per name or address (only delayed);
- ``login``: checking a password under the throttle, the session it starts;
- ``sessions``: session epochs (a password change, a disabled account or a logout ends the other sessions), the
  session lifetime, the check made at every request;
- ``tokens``: the signing secret, the project id, signed session tokens and the cookie name;
- ``addresses``: the client's address behind trusted proxies;
- ``sso``: e-mail addresses and the single sign-on log-in;
- ``admin``: adding accounts, role, languages, disabling; a project with accounts always keeps an enabled lead.
"""

from __future__ import annotations

from annotator.services.accounts.addresses import Network, client_address, parse_trusted_proxies
from annotator.services.accounts.admin import (
    FirstAccountNotLead,
    LastLead,
    MissingLanguages,
    add_user,
    find_user,
    has_users,
    list_users,
    set_disabled,
    set_role,
)
from annotator.services.accounts.login import authenticate, log_in, still_logs_in_with
from annotator.services.accounts.password_changes import (
    SessionEnded,
    change_password,
    replace_one_time_password,
    reset_password,
    set_password,
)
from annotator.services.accounts.passwords import (
    MIN_PASSWORD_LENGTH,
    SCRYPT_N,
    SCRYPT_P,
    SCRYPT_R,
    hash_password,
    one_time_password,
    verify_password,
)
from annotator.services.accounts.sessions import (
    SESSION_HOURS,
    Session,
    end_sessions,
    password_change_due,
    session_account,
    session_expired,
    session_hours,
    session_user,
)
from annotator.services.accounts.sso import (
    MAX_EMAIL_LENGTH,
    SignInAgain,
    normalize_email,
    set_email,
    sso_log_in,
    verified_email,
)
from annotator.services.accounts.throttle import (
    ADDRESS_FREE_FAILURES,
    ADDRESS_MAX_DELAY_S,
    FIRST_DELAY_S,
    FORGET_AFTER_S,
    MAX_WAIT_S,
    NAME_FREE_FAILURES,
    NAME_MAX_DELAY_S,
    USER_FREE_FAILURES,
    LoginThrottled,
    delay_after,
    format_wait,
    wait_after,
)
from annotator.services.accounts.tokens import (
    CLOCK_SKEW_S,
    MIN_SECRET_LENGTH,
    SECRET_FILE,
    TOKEN_SALT,
    WeakSecretError,
    check_secret,
    cookie_name,
    project_id,
    secret_from_folder,
    session_from_token,
    session_token,
)

__all__ = [
    "ADDRESS_FREE_FAILURES",
    "ADDRESS_MAX_DELAY_S",
    "CLOCK_SKEW_S",
    "FIRST_DELAY_S",
    "FORGET_AFTER_S",
    "MAX_EMAIL_LENGTH",
    "MAX_WAIT_S",
    "MIN_PASSWORD_LENGTH",
    "MIN_SECRET_LENGTH",
    "NAME_FREE_FAILURES",
    "NAME_MAX_DELAY_S",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "SECRET_FILE",
    "SESSION_HOURS",
    "TOKEN_SALT",
    "USER_FREE_FAILURES",
    "FirstAccountNotLead",
    "LastLead",
    "LoginThrottled",
    "MissingLanguages",
    "Network",
    "Session",
    "SessionEnded",
    "SignInAgain",
    "WeakSecretError",
    "add_user",
    "authenticate",
    "change_password",
    "check_secret",
    "client_address",
    "cookie_name",
    "delay_after",
    "end_sessions",
    "find_user",
    "format_wait",
    "has_users",
    "hash_password",
    "list_users",
    "log_in",
    "normalize_email",
    "one_time_password",
    "parse_trusted_proxies",
    "password_change_due",
    "project_id",
    "replace_one_time_password",
    "reset_password",
    "secret_from_folder",
    "session_account",
    "session_expired",
    "session_from_token",
    "session_hours",
    "session_token",
    "session_user",
    "set_disabled",
    "set_email",
    "set_password",
    "set_role",
    "sso_log_in",
    "still_logs_in_with",
    "verified_email",
    "verify_password",
    "wait_after",
]
