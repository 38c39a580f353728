"""Session tokens: signed, expiring, bound to the session epoch and to one project; the signing secret is private to
the owner, written whole, and never empty or short (issue 20, points 1, 2 and 9)."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer

from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import accounts
from annotator.services.accounts import (
    MIN_SECRET_LENGTH,
    Session,
    WeakSecretError,
    add_user,
    check_secret,
    cookie_name,
    end_sessions,
    log_in,
    project_id,
    secret_from_folder,
    session_from_token,
    session_token,
    session_user,
)

DAY = 24 * 3600.0


def test_a_token_brings_the_session_back_until_it_expires_or_is_forged(project: Project, translator_it) -> None:
    secret = secret_from_folder(project.data_dir)
    assert secret == secret_from_folder(project.data_dir)  # generated once, then read
    assert len(secret) >= MIN_SECRET_LENGTH
    assert stat.S_IMODE((project.data_dir / "session_secret").stat().st_mode) == 0o600
    key = project_id(project)
    session = log_in(project, "ivo", "translator-password")
    assert session is not None
    token = session_token(secret, key, session)
    assert "translator-password" not in token
    assert session_from_token(secret, key, token, 3600) == session
    assert session_from_token("another-secret-" + "x" * 40, key, token, 3600) is None  # forged / other server
    assert session_from_token(secret, key, token[:-2] + "xx", 3600) is None  # damaged
    assert session_from_token(secret, key, token, -1) is None  # expired
    forged = session_token(secret, key, Session("mallory", 0))  # a valid signature does not make a user up
    restored = session_from_token(secret, key, forged, 3600)
    assert restored is not None and session_user(project, restored) is None


def test_a_logout_elsewhere_refuses_the_token(project: Project, translator_it) -> None:
    secret = secret_from_folder(project.data_dir)
    key = project_id(project)
    session = log_in(project, "ivo", "translator-password")
    assert session is not None
    restored = session_from_token(secret, key, session_token(secret, key, session), 3600)
    assert restored is not None and session_user(project, restored) == translator_it
    end_sessions(project, "ivo")
    assert session_user(project, restored) is None


# --- point 1: the signing secret ----------------------------------------------------------------------------------


@pytest.mark.parametrize("left_behind", ["", "\n", "short-secret", "\xff\xfe not text"])
def test_an_empty_or_short_secret_file_is_replaced_never_used(tmp_path: Path, left_behind: str) -> None:
    """A file left empty (disk full at the first log-in, a crash, two servers starting at once) or short."""
    path = tmp_path / "session_secret"
    path.write_bytes(left_behind.encode("latin-1"))
    os.chmod(path, 0o644)
    secret = secret_from_folder(tmp_path)
    assert len(secret) >= MIN_SECRET_LENGTH and secret != left_behind.strip()
    assert path.read_text(encoding="ascii").strip() == secret
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret_from_folder(tmp_path) == secret
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session_secret"]  # no temporary file left behind


def test_a_token_signed_with_the_empty_key_opens_nothing(project: Project, lead) -> None:
    """The attack of issue 20, point 1: ``{"u": "lead", "e": 0}`` signed with "" (old and new token layouts)."""
    (project.data_dir / "session_secret").write_text("", encoding="ascii")
    key = project_id(project)
    old_layout = URLSafeTimedSerializer("", salt="annotator-session-v1").dumps({"u": "lena", "e": 0})
    new_layout = URLSafeTimedSerializer("", salt=f"{accounts.TOKEN_SALT}:{key}").dumps(
        {"u": "lena", "e": 0, "p": key, "t": time.time()}
    )
    secret = secret_from_folder(project.data_dir)
    for token in (old_layout, new_layout):
        assert session_from_token(secret, key, token, 3600) is None
        assert session_from_token("", key, token, 3600) is None  # even a caller passing the empty key gets nothing
    with pytest.raises(WeakSecretError):
        session_token("", key, Session("lena", 0))  # nothing is ever signed with it either


def test_two_servers_creating_the_secret_at_once_agree(tmp_path: Path) -> None:
    found: list[str] = []
    barrier = threading.Barrier(8)

    def start() -> None:
        barrier.wait()
        found.append(secret_from_folder(tmp_path))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and len(found[0]) >= MIN_SECRET_LENGTH
    assert (tmp_path / "session_secret").read_text(encoding="ascii").strip() == found[0]


@pytest.mark.parametrize("configured", ["", "   ", "too-short-for-a-key"])
def test_a_configured_secret_that_is_empty_or_short_is_refused_loudly(configured: str) -> None:
    with pytest.raises(WeakSecretError, match=r"session_secret in the secrets file is .*at least 32"):
        check_secret(configured, "the secrets file")
    assert check_secret("k" * MIN_SECRET_LENGTH, "x") == "k" * MIN_SECRET_LENGTH


# --- point 2: tokens are bound to one project ---------------------------------------------------------------------


def _second_project(tmp_path: Path) -> Project:
    other = Project.open(tmp_path / "project-2", create=True)
    add_user(other, "rev1", Role.LEAD, (), "lead-password-2")
    return other


def test_a_translator_token_of_one_project_is_not_accepted_by_another_with_the_same_secret(tmp_path: Path) -> None:
    first = Project.open(tmp_path / "project-1", create=True)
    add_user(first, "lead1", Role.LEAD, (), "lead-password-1")
    add_user(first, "rev1", Role.TRANSLATOR, ("IT",), "translator-password")
    second = _second_project(tmp_path)
    shared = "one-secret-for-every-server-" + "s" * 20
    session = log_in(first, "rev1", "translator-password")
    assert session is not None
    token = session_token(shared, project_id(first), session)
    # project 2 has a lead of the same name, at the same epoch: the token must still open nothing there
    assert session_user(second, Session("rev1", session.epoch)) is not None
    assert session_from_token(shared, project_id(second), token, 3600) is None
    assert session_from_token(shared, project_id(first), token, 3600) == session
    # and the two projects' cookies have different names, so one never overwrites (logs out) the other's
    assert project_id(first) != project_id(second)
    assert cookie_name(project_id(first)) != cookie_name(project_id(second))


# --- point 9: a session ends with its lifetime, whatever the cookie says ------------------------------------------


def test_a_session_older_than_its_lifetime_is_refused(
    project: Project, translator_it, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANNOTATOR_SESSION_HOURS", "12")
    session = log_in(project, "ivo", "translator-password")
    assert session is not None
    now = session.issued_at
    assert session_user(project, session, now=now + 11.9 * 3600) == translator_it
    assert session_user(project, session, now=now + 12.1 * 3600) is None
    monkeypatch.setenv("ANNOTATOR_SESSION_HOURS", "1")  # a shorter lifetime applies to open sessions too
    assert session_user(project, session, now=now + 1.1 * 3600) is None
    # a token keeps its original issue time: resuming from a cookie does not start the lifetime again
    secret = secret_from_folder(project.data_dir)
    key = project_id(project)
    restored = session_from_token(secret, key, session_token(secret, key, session), DAY)
    assert restored is not None and restored.issued_at == session.issued_at
    future = Session("ivo", 0, time.time() + DAY)  # a token "issued" tomorrow is not believed
    assert session_from_token(secret, key, session_token(secret, key, future), DAY) is None


@pytest.mark.parametrize(
    ("secrets_toml", "said"),
    [
        ('session_secret = ""\n', "is empty"),
        ('session_secret = "short"\n', "is only 5 characters long"),
        ('session_secret = "' + "k" * 48 + '"\ntrusted_proxies = ["10.0.0.1", "proxy"]\n', "trusted proxy 'proxy'"),
    ],
)
def test_serve_refuses_a_weak_secret_or_bad_proxies_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], secrets_toml: str, said: str
) -> None:
    from annotator.cli import main

    data = str(tmp_path / "p")
    main(["init", "--data", data])
    capsys.readouterr()
    secrets_file = tmp_path / "secrets.toml"
    secrets_file.write_text(secrets_toml, encoding="utf-8")
    monkeypatch.delenv("ANNOTATOR_TRUSTED_PROXIES", raising=False)
    assert main(["serve", "--data", data, "--secrets", str(secrets_file)]) == 2
    err = capsys.readouterr().err
    assert said in err and str(secrets_file) in err


def test_serve_refuses_malformed_trusted_proxies_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from annotator.cli import main

    data = str(tmp_path / "p")
    main(["init", "--data", data])
    capsys.readouterr()
    secrets_file = tmp_path / "secrets.toml"
    secrets_file.write_text('session_secret = "' + "k" * 48 + '"\n', encoding="utf-8")
    monkeypatch.setenv("ANNOTATOR_TRUSTED_PROXIES", "10.0.0.0/33")
    assert main(["serve", "--data", data, "--secrets", str(secrets_file)]) == 2
    assert "ANNOTATOR_TRUSTED_PROXIES: trusted proxy '10.0.0.0/33'" in capsys.readouterr().err
