"""Issue 34 on the command line: what a newcomer met on a first day, checked again the way it was found."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.commands.project import create_demo


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("first-day") / "demo"
    create_demo(str(data), quiet=True)
    return data


def test_serve_on_a_busy_port_says_so_first_and_names_port_option(demo_dir: Path, tmp_path: Path) -> None:
    """Another program listens on the port: exit 2 with a word of --port, and never "serving …" before it."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "annotator.cli", "serve", "--data", str(demo_dir), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    assert result.returncode == 2, result
    assert "serving" not in result.stdout + result.stderr
    assert f"Port {port}" in result.stderr and f"--port {port + 1}" in result.stderr


def test_serve_passes_the_package_theme_whatever_the_folder() -> None:
    """The theme comes from the package's settings file, as command-line options (they win over a folder's)."""
    from annotator.commands.serve import STREAMLIT_CONFIG, streamlit_options

    assert STREAMLIT_CONFIG.is_file() and STREAMLIT_CONFIG.is_relative_to(Path(main.__code__.co_filename).parent)
    options = streamlit_options({"server.port": 9999})
    assert options[options.index("--theme.primaryColor") + 1] == "#3b5b7a"
    assert options[options.index("--server.port") + 1] == "9999"
    assert options.count("--server.port") == 1
