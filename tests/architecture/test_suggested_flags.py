"""Every ``--flag`` a message suggests exists: globally (any flag named in the package's text is an option of some
command) and per command (a command's refusal names only that command's own options: ``publish`` with nothing done
used to suggest ``--allow-empty``, which only ``export`` has)."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import annotator
from annotator.cli import build_parser, main

FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?!\.\w|[\w-])")
PACKAGE = Path(annotator.__file__).parent
#: Flags of other programs the package's messages name on purpose (the Hugging Face uploader).
OTHER_PROGRAMS = {"--repo-type"}


def command_flags() -> dict[str, set[str]]:
    """Each command (``export``, ``lexicon prepopulate``…) → its option strings (the global ones included)."""
    found: dict[str, set[str]] = {}

    def walk(parser: argparse.ArgumentParser, path: str, inherited: set[str]) -> None:
        own = {option for action in parser._actions for option in action.option_strings}
        found[path] = own | inherited
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}".strip(), own | inherited)

    walk(build_parser(), "", set())
    return found


def flags_in(text: str) -> set[str]:
    return {"--" + name for name in FLAG.findall(text)}


def test_every_flag_the_packages_text_names_is_an_option_of_some_command() -> None:
    every = set().union(*command_flags().values())
    named: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {  # a docstring may cite a benchmark script's options; messages are the other strings
            id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        }  # fmt: skip
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                for flag in flags_in(node.value):
                    named.setdefault(flag, set()).add(path.relative_to(PACKAGE).as_posix())
    assert named, "no flag found: the scan is broken"
    unknown = {flag: sorted(where) for flag, where in named.items() if flag not in every | OTHER_PROGRAMS}
    assert not unknown, f"flags named in messages that no command has: {unknown}"


def test_the_scan_sees_a_flag_that_does_not_exist() -> None:  # the check above can fail
    assert flags_in("Add --no-such-flag, or -x, or --include-incomplete.") == {"--no-such-flag", "--include-incomplete"}
    assert "--no-such-flag" not in set().union(*command_flags().values())


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("publish", ["publish", "--out", "{tmp}/published"]),
        ("export", ["export", "--out", "{tmp}/exported"]),
        ("prepopulate", ["prepopulate", "--items", "a1"]),
    ],
)
def test_a_refusal_suggests_only_its_own_commands_flags(
    command: str, argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    if command == "publish":  # items pre-populated, none done: the refusal says which option publishes them
        from annotator.commands.project import create_demo

        create_demo(data, quiet=True)
    else:
        assert main(["init", "--data", data, "--languages", "IT"]) == 0
    capsys.readouterr()
    assert main([*(part.replace("{tmp}", str(tmp_path)) for part in argv), "--data", data]) == 2
    said = capsys.readouterr().err
    suggested = flags_in(said)
    assert suggested, said  # each of these refusals offers a flag
    assert suggested <= command_flags()[command], (said, suggested - command_flags()[command])
