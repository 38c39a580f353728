"""``annotator serve`` checks its configuration (secrets, project) before the port; a busy port is a clear error
that builds no demo and serves nothing."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.project import project_exists


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A free port that this test then holds with a listening socket, as another server would."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield int(server.getsockname()[1])


def test_configuration_mistakes_are_reported_even_while_the_port_is_busy(
    tmp_path: Path, busy_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANNOTATOR_SECRETS", raising=False)
    port = ["--port", str(busy_port)]
    assert main(["serve", "--data", str(tmp_path / "none"), *port]) == 2
    assert "No project in" in capsys.readouterr().err
    data = str(tmp_path / "p")
    assert main(["init", "--data", data]) == 0
    missing = tmp_path / "nowhere" / "secrets.toml"
    assert main(["serve", "--data", data, *port, "--secrets", str(missing)]) == 2
    assert f"Secrets file '{missing}' not found" in capsys.readouterr().err
    weak = tmp_path / "secrets.toml"
    weak.write_text('session_secret = "short"\n', encoding="utf-8")
    assert main(["serve", "--data", data, *port, "--secrets", str(weak)]) == 2
    err = capsys.readouterr().err
    assert "is only 5 characters long" in err and "already in use" not in err


def test_a_busy_port_is_refused_before_the_demo_is_built(
    tmp_path: Path, busy_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANNOTATOR_SECRETS", raising=False)
    demo = tmp_path / "demo"
    assert main(["serve", "--demo", "--data", str(demo), "--port", str(busy_port)]) == 2
    captured = capsys.readouterr()
    assert f"Port {busy_port} on 127.0.0.1 is already in use" in captured.err
    assert f"--port {busy_port + 1}" in captured.err and "serving" not in captured.out
    assert not project_exists(demo)
