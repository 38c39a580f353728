"""The checks a dataset line goes through before it is read: JSON decoding, nesting depth, the shipped schema."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.evaluation.inputs.problems import Problem, _problem


@functools.cache
def _line_schema() -> dict[str, Any]:
    # the file ``data_export.dataset.schema_path()`` names, read without importing the exporter (and the database
    # layer it brings): the evaluation's start-up is most of a small run
    path = Path(__file__).resolve().parents[2] / "schema" / "dataset.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


@functools.cache
def _line_validator() -> Any:
    """The shipped ``dataset.schema.json`` validator: one contract for the file the exporter writes."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_line_schema())


@functools.cache
def line_checker() -> Callable[[Any], Any]:
    """The same schema compiled to Python by fastjsonschema: far faster than ``_line_validator`` on a
    valid line, which is nearly every line. It only says valid or not (raising ``JsonSchemaException``); a line it
    refuses goes to ``_line_validator``, whose messages name every fault. The schema uses nothing that differs
    between draft 2020-12 and draft 7 (fastjsonschema's newest), and tests hold the two to the same verdicts."""
    import fastjsonschema

    schema = {**_line_schema(), "$schema": "http://json-schema.org/draft-07/schema#"}
    checker: Callable[[Any], Any] = fastjsonschema.compile(schema)
    return checker


def _field_path(error: Any) -> str:
    """``languages.IT.good[0].text`` for a JSON Schema error's location (``(line)`` for the whole line)."""
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(line)"


def _passes_compiled_check(record: Any) -> bool:
    """The compiled schema's verdict (``line_checker``): True means the line is valid."""
    from fastjsonschema import JsonSchemaException

    try:
        line_checker()(record)
    except (JsonSchemaException, RecursionError):
        return False
    return True


def _schema_problems(record: Any, source: str, line: int, problems: list[Problem]) -> bool:
    """Validate one line against the schema; add one problem per violation, naming the line and the field."""
    if _passes_compiled_check(record):
        return False
    errors = sorted(_line_validator().iter_errors(record), key=lambda e: [str(p) for p in e.absolute_path])
    seen: set[tuple[str, str]] = set()
    for error in errors:
        rule = f"schema_{error.validator}"
        found = []
        if error.validator == "required" and isinstance(error.instance, dict):
            parent = _field_path(error)
            for name in error.validator_value:
                if name not in error.instance:
                    found.append(f"missing field '{name if parent == '(line)' else f'{parent}.{name}'}'")
        else:
            found.append(f"field '{_field_path(error)}': {_short(error.message)}")
        for message in found:
            if (rule, message) not in seen:  # jsonschema reports each missing name once per ``required`` error
                seen.add((rule, message))
                _problem(problems, source, line, rule, message)
    return bool(errors)


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


#: How deeply a line's JSON may nest: a dataset line needs 6 levels (languages → IT → good → candidate → synsets),
#: a translation line 1. Deeper input is refused with a line message before anything walks it.
MAX_DEPTH = 16


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether the decoded JSON value nests deeper than ``limit`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        children = current.values() if isinstance(current, dict) else current if isinstance(current, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _decode(line: str, source: str, number: int, problems: list[Problem]) -> tuple[bool, Any]:
    """``json.loads(line)``, or a problem naming the line: invalid JSON, or nested too deeply to read."""
    try:
        return True, json.loads(line)
    except json.JSONDecodeError as error:
        _problem(problems, source, number, "invalid_json", f"not valid JSON ({error.msg})")
    except RecursionError:  # the decoder's own guard, far below a recursion a line could cause
        _problem(problems, source, number, "too_deep", f"the JSON nests deeper than {MAX_DEPTH} levels")
    return False, None
