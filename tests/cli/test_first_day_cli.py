"""Issue 34 on the command line: what a newcomer met on a first day, checked again the way it was found."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.commands.project import create_demo

STDIN_READY = Path(__file__).resolve().parents[1] / "support" / "stdin_ready.py"


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
    # no forced full collection after every run: it held each Curate event's answer back 100-170 ms
    assert options[options.index("--runner.postScriptGC") + 1] == "false"


def test_evaluate_with_the_files_swapped_hints_at_the_order(
    demo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from annotator.project import builtin_path

    assert main(["--data", str(demo_dir), "export", "--include-incomplete", "--out", str(tmp_path / "x")]) == 0
    (dataset,) = (tmp_path / "x").rglob("dataset.jsonl")
    translations = builtin_path("demo/translations.jsonl")
    capsys.readouterr()
    assert main(["evaluate", str(translations), str(dataset), "--out", str(tmp_path / "e")]) == 2
    error = capsys.readouterr().err
    assert "the two files look swapped: the exported dataset comes first, then the translations" in error
    assert f"annotator evaluate {dataset} {translations}" in error
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "e")]) == 0


def test_importing_an_unknown_file_type_lists_every_accepted_one(
    demo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "items.txt"
    notes.write_text("sentence\ttarget\n", encoding="utf-8")
    assert main(["import", str(notes), "--data", str(demo_dir)]) == 2
    error = capsys.readouterr().err
    assert "unknown file type '.txt'" in error
    for suffix in (".csv", ".tsv", ".xlsx", ".jsonl", ".xml"):
        assert suffix in error


def test_stats_help_and_plain_stats_when_nothing_is_done(demo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "also export" not in help_text
    assert "count items not yet done in every language too, as export --include-incomplete would write them" in (
        help_text
    )
    assert main(["--data", str(demo_dir), "stats"]) == 0
    out = capsys.readouterr().out
    assert "over the 0 item(s) an export with these options holds" in out
    assert "annotator stats --include-incomplete` counts the 18 unfinished item(s)" in out
    assert main(["--data", str(demo_dir), "stats", "--include-incomplete"]) == 0
    assert "over the 18 item(s)" in capsys.readouterr().out


def test_the_prepopulation_summary_explains_overlaps_and_the_outcome(demo_dir: Path) -> None:
    from annotator.project import Project
    from annotator.services.prepopulate import prepopulate

    summary = prepopulate(Project.open(demo_dir)).summary()
    assert "overlap(s) to decide (a GOOD word the lexicon also gives for another sense of the lemma" in summary
    assert summary.endswith("(clean run: every item-language done, none skipped)")


def test_ctrl_c_says_work_was_kept_only_when_something_was_saved(demo_dir: Path, tmp_path: Path) -> None:
    """Interrupted while waiting for a password on stdin: nothing was written, and the message says so."""
    import signal
    import time

    ready = tmp_path / "reading-stdin"
    process = subprocess.Popen(
        [sys.executable, str(STDIN_READY), str(ready), "users", "add", "maria", "--role", "lead", "--password-stdin",
         "--data", str(demo_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(STDIN_READY.parents[2])},
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the child creates the file when it starts reading the password
    assert ready.exists(), process.communicate(timeout=30)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted; nothing was changed" in err and "work saved so far is kept" not in err


def test_an_evaluation_job_on_the_current_curation_writes_into_the_project(tmp_path: Path) -> None:
    """``jobs start evaluate --current --translations FILE``: results in DATA/evaluations, nothing beside FILE."""
    from annotator.project import builtin_path

    data = tmp_path / "demo"
    create_demo(str(data), quiet=True)
    files = tmp_path / "mt"
    files.mkdir()
    translations = files / "translations.jsonl"
    translations.write_bytes(builtin_path("demo/translations.jsonl").read_bytes())
    command = ["--data", str(data), "jobs", "start", "evaluate", "--current", "--translations", str(translations)]
    assert main([*command, "--wait"]) == 0
    assert sorted(p.name for p in files.iterdir()) == ["translations.jsonl"]
    results = data / "evaluations" / "translations-evaluation"
    assert (results / "metrics.json").is_file() and (results / "analysed.jsonl").is_file()
