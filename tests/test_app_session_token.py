"""Session tokens: signed, expiring, bound to the session epoch; the signing secret is private to the owner."""

from __future__ import annotations

import stat

from annotator.project import Project
from annotator.services.accounts import (
    Session,
    end_sessions,
    log_in,
    secret_from_folder,
    session_from_token,
    session_token,
    session_user,
)


def test_a_token_brings_the_session_back_until_it_expires_or_is_forged(project: Project, translator_it) -> None:
    secret = secret_from_folder(project.data_dir)
    assert secret == secret_from_folder(project.data_dir)  # generated once, then read
    assert stat.S_IMODE((project.data_dir / "session_secret").stat().st_mode) == 0o600
    session = log_in(project, "ivo", "translator-password")
    assert session is not None
    token = session_token(secret, session)
    assert "translator-password" not in token
    assert session_from_token(secret, token, 3600) == session
    assert session_from_token("another-secret", token, 3600) is None  # forged / other server
    assert session_from_token(secret, token[:-2] + "xx", 3600) is None  # damaged
    assert session_from_token(secret, token, -1) is None  # expired
    forged = session_token(secret, Session("lena", 0))  # a valid signature does not make a user up
    assert session_user(project, session_from_token(secret, forged, 3600)) is None


def test_a_logout_elsewhere_refuses_the_token(project: Project, translator_it) -> None:
    secret = secret_from_folder(project.data_dir)
    session = log_in(project, "ivo", "translator-password")
    assert session is not None
    restored = session_from_token(secret, session_token(secret, session), 3600)
    assert restored is not None and session_user(project, restored) == translator_it
    end_sessions(project, "ivo")
    assert session_user(project, restored) is None
