"""The tests' own layout (tests/README.md): every test module in its layer's folder, names unique across folders
(modules are imported by their bare name), and no test module importing another — shared helpers live in
tests/support, shared fixtures in conftest.py files."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = {"domain", "store", "adapters", "services", "app", "cli", "e2e", "architecture"}


def all_test_modules() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_module_sits_in_a_layer_folder_under_a_unique_name() -> None:
    modules = all_test_modules()
    misplaced = [str(path.relative_to(TESTS)) for path in modules if path.parent.name not in LAYERS]
    assert not misplaced, f"place these in one of {sorted(LAYERS)} (tests/README.md): {misplaced}"
    repeated = [name for name, count in Counter(path.name for path in modules).items() if count > 1]
    assert not repeated, f"test module names must be unique across folders: {repeated}"
    assert not [path.name for path in TESTS.glob("*.py") if path.name != "conftest.py"], "helpers go to support/"


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    found = []
    for path in [*all_test_modules(), *TESTS.glob("support/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                top = name.split(".")[0]
                if top == "conftest" or (top.startswith("test_") and top != path.stem):
                    found.append(f"{path.relative_to(TESTS)} imports {name}")
    assert not found, found
