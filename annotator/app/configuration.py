"""The server's configuration read from Streamlit's secrets: the session secret, the trusted proxies and the
single sign-on providers.

Read at every script run (cheap: no file or database access beyond Streamlit's parsed secrets), so a bad value is
refused with a message before the app draws anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from annotator.project import Project
from annotator.services import accounts

#: Where the trusted proxies come from (a comma-separated list of addresses or networks); else ``trusted_proxies``
#: in the secrets file.
TRUSTED_PROXIES_ENV = "ANNOTATOR_TRUSTED_PROXIES"


def from_secrets(key: str) -> object:
    """A top-level entry of Streamlit's secrets (``.streamlit/secrets.toml``, ``annotator serve --secrets``)."""
    try:
        return st.secrets.get(key)
    except FileNotFoundError:  # no (or an unparsable) secrets file: Streamlit's StreamlitSecretNotFoundError
        return None


def session_secret(project: Project) -> str:
    """``session_secret`` from the secrets file (needed when several servers share a database), else a secret
    generated into the project folder (0600). A configured secret that is empty or short is refused
    (``accounts.WeakSecretError``), never used: ``check_configuration`` shows it instead of the app."""
    configured = from_secrets("session_secret")
    if configured is not None:
        return accounts.check_secret(str(configured), "the secrets file")
    return accounts.secret_from_folder(project.data_dir)


def trusted_proxies() -> tuple[accounts.Network, ...]:
    """The proxies whose ``X-Forwarded-For`` is believed: ``ANNOTATOR_TRUSTED_PROXIES``, else ``trusted_proxies``
    of the secrets file; none by default (the connection's own address counts)."""
    configured = os.environ.get(TRUSTED_PROXIES_ENV)
    if configured is not None:
        return accounts.parse_trusted_proxies(configured, TRUSTED_PROXIES_ENV)
    return accounts.parse_trusted_proxies(from_secrets("trusted_proxies"), "the secrets file")


def check_configuration() -> None:
    """Refuse a weak configured ``session_secret`` or a malformed trusted proxy list (a ``UserError`` to show).

    The project folder's own secret is checked (and replaced when damaged) where it is read
    (``accounts.secret_from_folder``)."""
    configured = from_secrets("session_secret")
    if configured is not None:
        accounts.check_secret(str(configured), "the secrets file")
    trusted_proxies()


# --- single sign-on (Streamlit's st.login, OpenID Connect) -----------------------------------------------------


@dataclass(frozen=True)
class SsoProvider:
    """One ``[auth]`` provider: ``name`` for ``st.login`` (None: the settings directly in ``[auth]``)."""

    name: str | None
    label: str


def sso_providers() -> list[SsoProvider]:
    """The providers configured in ``[auth]`` of Streamlit's secrets; none when single sign-on is off.

    ``[auth]`` itself is one provider when it has a ``client_id`` (its button says ``sso_label``, a top-level
    secret, default "single sign-on"); each ``[auth.NAME]`` table is one more ("Sign in with NAME", or its
    ``sso_label`` entry in ``[sso_labels]``).
    """
    auth = from_secrets("auth")
    if not isinstance(auth, Mapping):
        return []
    labels = from_secrets("sso_labels")
    labels = labels if isinstance(labels, Mapping) else {}
    providers = []
    if "client_id" in auth:
        providers.append(SsoProvider(None, str(from_secrets("sso_label") or "single sign-on")))
    for name, section in auth.items():
        if isinstance(section, Mapping) and name != "client_kwargs" and "client_id" in section:
            providers.append(SsoProvider(str(name), str(labels.get(name) or name)))
    return providers


def local_login_allowed() -> bool:
    """The user-name-and-password form is offered unless single sign-on is on and ``local_login = false``."""
    return not sso_providers() or from_secrets("local_login") is not False


def sso_identity() -> dict[str, object] | None:
    """The provider's identity (``st.user``) when this browser signed in with single sign-on, else None."""
    if not sso_providers():
        return None
    identity = st.user.to_dict()  # empty without a browser session; no is_logged_in outside one (AppTest)
    if not identity.get("is_logged_in"):
        return None
    return dict(identity)
