"""Find every place a Python source opens a file for writing other than through the atomic writer.

Shared by tests/test_writers_scan.py: it walks the syntax tree (``ast``) so a comment or a string holding
``open(path, "w")`` is not a write, and a write hidden on a continuation line is still one.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

#: A mode string as ``open`` and its relatives take it; writing when it holds w, a, x or +.
_MODE = re.compile(r"^[rwxabtU+]{1,4}$")
_WRITE_LETTERS = set("wax+")
#: ``os.open`` flags that write.
_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
#: Calls that always write a file: the raw primitives the atomic writer is built on, copies, and writers that
#: take a path (openpyxl's ``save``, pyarrow's ``ParquetWriter``).
_WRITING_NAMES = {
    "open_private",
    "write_private_bytes",
    "write_bytes_synced",
    "create_private_file",
    "write_text",
    "write_bytes",
    "copy",
    "copy2",
    "copyfile",
    "copytree",
    "move",
    "save",
    "ParquetWriter",
    "write_table",
}
#: Receivers whose ``copy``/``move``/``save``/``write_table`` are writes (``dict.copy()`` is not).
_WRITING_RECEIVERS = {"shutil", "workbook", "pq", "self._writer", "book", "wb"}


class Finding(NamedTuple):
    """One write that does not go through the atomic writer: where (function) and what (the call's text)."""

    function: str
    line: int
    call: str


def _callee(call: ast.Call) -> tuple[str, str]:
    """(receiver text, called name): ``("os", "open")``, ``("", "open")``, ``("path", "write_text")``."""
    func = call.func
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute):
        return ast.unparse(func.value), func.attr
    return "", ""


def _writes_by_mode(call: ast.Call) -> bool:
    """A literal mode among the first two positional arguments or ``mode=`` that writes."""
    candidates = [arg for arg in call.args[:2]] + [kw.value for kw in call.keywords if kw.arg == "mode"]
    for node in candidates:
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
        if _MODE.match(text) and _WRITE_LETTERS & set(text):
            return True
    return False


def _writes_by_flags(call: ast.Call) -> bool:
    if len(call.args) < 2:
        return False
    names = {node.attr for node in ast.walk(call.args[1]) if isinstance(node, ast.Attribute)}
    names |= {node.id for node in ast.walk(call.args[1]) if isinstance(node, ast.Name)}
    return bool(names & _WRITE_FLAGS)


def is_write(call: ast.Call) -> bool:
    receiver, name = _callee(call)
    if name == "open" and receiver == "os":
        return _writes_by_flags(call)
    if name in {"open", "fdopen"}:
        return _writes_by_mode(call)
    if name in {"write_text", "write_bytes"}:
        return True
    if name in {"copy", "copy2", "copyfile", "copytree", "move", "save", "write_table"}:
        return receiver in _WRITING_RECEIVERS or receiver.endswith(("workbook", "_writer"))
    return name in _WRITING_NAMES - {"copy", "copy2", "copyfile", "copytree", "move", "save", "write_table"}


class _Scanner(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scope: list[str] = []
        self.found: list[Finding] = []

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = _enter
    visit_AsyncFunctionDef = _enter
    visit_ClassDef = _enter

    def visit_Call(self, node: ast.Call) -> None:
        if is_write(node):
            self.found.append(Finding(".".join(self.scope) or "<module>", node.lineno, ast.unparse(node.func)))
        self.generic_visit(node)


def raw_writes(source: str) -> list[Finding]:
    """Every call in ``source`` that opens or writes a file other than through ``annotator.atomic_files``."""
    scanner = _Scanner()
    scanner.visit(ast.parse(source))
    return scanner.found
