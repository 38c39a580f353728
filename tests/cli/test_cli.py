"""The command line (issue 2): --help everywhere, clear errors with non-zero exits, the demo and its filters."""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from annotator.cli import build_parser, main
from annotator.project import Project


def all_subcommands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((*prefix, name))
                found.extend(all_subcommands(sub, (*prefix, name)))
    return found


def test_every_command_has_help(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "prepopulate" in capsys.readouterr().out
    commands = all_subcommands(build_parser())
    for expected in ("init", "import", "prepopulate", "filter", "users", "demo", "serve"):
        assert (expected,) in commands
    for command in commands:
        with pytest.raises(SystemExit) as exit_info:
            main([*command, "--help"])
        assert exit_info.value.code == 0
        assert "usage: annotator" in capsys.readouterr().out


def test_errors_are_clear_and_non_zero(tmp_path: Path, capsys) -> None:
    assert main(["info", "--data", str(tmp_path / "nothing")]) == 2
    assert "No project in" in capsys.readouterr().err
    assert main(["init", "--data", str(tmp_path / "p"), "--languages", "IT,DE"]) == 0
    assert main(["init", "--data", str(tmp_path / "p")]) == 2
    assert "already holds a project" in capsys.readouterr().err
    (tmp_path / "bad.csv").write_text("sentence,target,lemma,pos,synset\nA bank.,bank,bank,XX,bn:00008364n\n")
    assert main(["import", str(tmp_path / "bad.csv"), "--data", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 2" in err and "bad_pos" in err


def test_bad_snapshot_is_a_clear_error_not_a_traceback(tmp_path: Path, capsys) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["init", "--data", str(tmp_path / "p"), "--snapshot", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "Traceback" not in err
    assert not (tmp_path / "p" / "annotator.sqlite").exists()
    assert main(["init", "--data", str(tmp_path / "p")]) == 0
    assert main(["lexicon", "use-snapshot", str(tmp_path / "bad.json"), "--data", str(tmp_path / "p")]) == 2
    assert "bad.json" in capsys.readouterr().err


@pytest.mark.parametrize("fault", ["unknown synset", "synset twice"])
def test_init_refuses_a_snapshot_whose_records_disagree(tmp_path: Path, capsys, fault: str) -> None:
    """Every record valid on its own, but a lemma entry names a synset the file lacks, or a synset comes twice."""
    from annotator.project import builtin_path

    data = json.loads(builtin_path("demo/snapshot.json").read_text(encoding="utf-8"))
    if fault == "unknown synset":
        data["lemmas"][0]["synsets"].append("bn:09999999n")
    else:
        data["synsets"].append(data["synsets"][0])
    (tmp_path / "odd.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["init", "--data", str(tmp_path / "p"), "--snapshot", str(tmp_path / "odd.json")]) == 2
    err = capsys.readouterr().err
    assert "odd.json" in err and ("bn:09999999n" if fault == "unknown synset" else "already defined") in err
    assert not (tmp_path / "p" / "annotator.sqlite").exists()


def test_relative_snapshot_path_is_resolved_at_init(tmp_path: Path, monkeypatch, write_jsonl) -> None:
    from annotator.project import builtin_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "lexicon.json").write_bytes(builtin_path("demo/snapshot.json").read_bytes())
    assert main(["init", "--data", "ps", "--snapshot", "lexicon.json"]) == 0
    rows = [json.loads(line) for line in builtin_path("demo/items.jsonl").read_text().splitlines()[:3]]
    assert main(["import", str(write_jsonl("items.jsonl", rows)), "--data", "ps"]) == 0
    assert main(["prepopulate", "--data", "ps"]) == 0


def test_demo_filter_reports_each_rule(tmp_path: Path, capsys) -> None:
    data = str(tmp_path / "demo")
    assert main(["demo", "--data", data]) == 0
    capsys.readouterr()
    assert main(["filter", "--data", data]) == 0
    out = capsys.readouterr().out
    for rule in ("polysemy", "one_per_sense", "target_language"):
        line = next(line for line in out.splitlines() if line.startswith(rule))
        assert int(line.split()[-1]) >= 1, line
    assert main(["filter", "--data", data, "--exclude"]) == 0
    with Project.open(data).db.read() as conn:
        excluded = [i.id for i in Project.open(data).repo.list_items(conn) if i.excluded]
    assert len(excluded) >= 3
    assert main(["demo", "--data", data]) == 2  # never silently replaces a project


def test_users_commands(tmp_path: Path, monkeypatch, capsys) -> None:
    data = str(tmp_path / "p")
    main(["init", "--data", data])
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["users", "add", "lena", "--role", "lead", "--password-stdin", "--data", data]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["users", "add", "maria", "--languages", "it,es", "--password-stdin", "--data", data]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["users", "add", "bob", "--role", "lead", "--password-stdin", "--data", data]) == 2
    assert main(["users", "disable", "maria", "--data", data]) == 0
    capsys.readouterr()
    assert main(["users", "list", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "maria" in out and "IT,ES" in out and "disabled" in out and "bob" not in out


def test_users_email_for_single_sign_on(tmp_path: Path, monkeypatch, capsys) -> None:
    data = str(tmp_path / "p")
    main(["init", "--data", data])
    monkeypatch.setenv("ANNOTATOR_PASSWORD", "a-long-password")
    assert main(["users", "add", "lena", "--role", "lead", "--data", data]) == 0
    assert main(["users", "add", "maria", "--languages", "it", "--email", " Maria@Example.ORG ", "--data", data]) == 0
    assert "Added translator maria (IT) <maria@example.org>" in capsys.readouterr().out
    # the same address (any case) on another account, and a malformed one, are refused with a clear message
    assert main(["users", "add", "bob", "--role", "lead", "--email", "MARIA@example.org", "--data", data]) == 2
    assert "already used by the account 'maria'" in capsys.readouterr().err
    assert main(["users", "add", "bob", "--role", "lead", "--email", "bob-at-example", "--data", data]) == 2
    assert "'bob-at-example' is not valid" in capsys.readouterr().err
    assert main(["users", "add", "bob", "--role", "lead", "--data", data]) == 0
    assert main(["users", "email", "bob", "maria@example.org", "--data", data]) == 2
    assert "already used by the account 'maria'" in capsys.readouterr().err
    assert main(["users", "email", "bob", "Bob@Example.org", "--data", data]) == 0
    assert "E-mail address of bob: bob@example.org" in capsys.readouterr().out
    assert main(["users", "email", "maria", "--data", data]) == 2  # neither an address nor --clear
    assert main(["users", "email", "maria", "--clear", "--data", data]) == 0
    assert main(["users", "email", "nobody", "x@example.org", "--data", data]) == 2
    capsys.readouterr()
    assert main(["users", "list", "--data", data]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "e-mail" in lines[0]
    assert any(line.startswith("bob") and "bob@example.org" in line for line in lines)
    assert any(line.startswith("maria") and "@" not in line for line in lines)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_readme_first_command_serves_the_demo_on_localhost(tmp_path: Path) -> None:
    """``annotator serve --demo`` builds the demo and the app answers on 127.0.0.1."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "annotator.cli",
            "serve",
            "--demo",
            "--data",
            str(tmp_path / "demo"),
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        body = b""
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    body = response.read()
                    break
            except OSError:
                time.sleep(0.5)
        assert body == b"ok"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert response.status == 200 and b"<html" in response.read().lower()
        assert (tmp_path / "demo" / "annotator.sqlite").exists()
        # the server is the serve process itself (exec), not watching the installed code for changes
        arguments = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
        assert b"streamlit" in arguments and arguments[arguments.index(b"--server.fileWatcherType") + 1] == b"none"
        assert arguments[arguments.index(b"--client.showErrorDetails") + 1] == b"none"  # no traceback in a browser
    finally:
        process.terminate()
        process.wait(timeout=20)
    with pytest.raises(OSError):  # stopping `annotator serve` stopped the server itself (no orphan)
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)


def test_serve_refuses_a_missing_secrets_file(tmp_path: Path, monkeypatch, capsys) -> None:
    data = str(tmp_path / "p")
    main(["init", "--data", data])
    capsys.readouterr()
    missing = tmp_path / "nowhere" / "secrets.toml"
    assert main(["serve", "--data", data, "--secrets", str(missing)]) == 2
    assert f"Secrets file '{missing}' not found" in capsys.readouterr().err
    monkeypatch.setenv("ANNOTATOR_SECRETS", str(missing))  # the same through the environment
    assert main(["serve", "--data", data]) == 2
    assert "not found (--secrets / ANNOTATOR_SECRETS)" in capsys.readouterr().err


def test_every_command_module_is_registered_and_none_is_listed_that_does_not_exist() -> None:
    """Issue 32: the list named a ``commands.curation`` that did not exist and skipped it silently; now the modules
    are imported by name, so a missing or broken one fails at start-up instead of dropping its commands."""
    import importlib
    import pkgutil

    import annotator.commands
    from annotator.cli import COMMAND_MODULE_NAMES

    folder = annotator.commands.__path__
    with_register = {
        info.name
        for info in pkgutil.iter_modules(folder)
        if hasattr(importlib.import_module(f"annotator.commands.{info.name}"), "register")
    }
    listed = set(COMMAND_MODULE_NAMES)
    assert listed <= with_register
    assert with_register - listed == {"limits"}  # registered by ``items``, beside the import it concerns


def test_the_command_table_names_what_each_module_registers() -> None:
    """``annotator X`` imports only the module the table gives for X: the table must be what the modules register."""
    from annotator.cli import COMMAND_MODULE_NAMES, COMMANDS, CommandParser, command_modules

    registered: dict[str, str] = {}
    for name, module in zip(COMMAND_MODULE_NAMES, command_modules(), strict=True):
        parser = CommandParser(prog="annotator")
        subparsers = parser.add_subparsers(dest="command")
        module.register(subparsers)
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        registered.update(dict.fromkeys(action.choices, name))
    assert registered == COMMANDS


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    heavy = ("sqlalchemy", "numpy", "streamlit", "pandas", "alembic", "pyarrow", "jsonschema", "altair")
    probe = (
        "import sys\n"
        "from annotator.cli import build_parser\n"
        "build_parser(sys.argv[1:])\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(heavy)!r}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def loaded(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe, *argv], env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert loaded("--data", str(tmp_path), "evaluate", "dataset.jsonl", "mt.jsonl") == "[]"
    assert "sqlalchemy" in loaded("export")  # the table's other commands still bring what they use
    assert "sqlalchemy" in loaded("--help")  # no command named: every module, for the full list


def test_opening_a_project_does_not_load_the_language_registry(tmp_path: Path) -> None:
    """Stored codes were checked when they were given: only checking a new one outside the table of usual codes
    loads ``langcodes``."""
    assert main(["init", "--data", str(tmp_path), "--name", "p", "--languages", "DE,IT"]) == 0
    probe = (
        "import sys\n"
        "from annotator.project import Project\n"
        "from annotator.domain.languages import check_language\n"
        "project = Project.open(sys.argv[1])\n"
        "print(project.settings().languages, 'langcodes' in sys.modules)\n"
        "print(check_language('fr'), 'langcodes' in sys.modules)\n"
        "print(check_language('yue'), 'langcodes' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.stdout.split("\n")[:3] == ["('DE', 'IT') False", "FR False", "YUE True"], done.stderr
