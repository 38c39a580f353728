"""Streaming a JSONL file of objects line by line (our own outputs: analysed.jsonl, dataset.jsonl), with errors
that name the file and the line: bounded memory however long the file is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from annotator.errors import UserError


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a missing, non-UTF-8 or malformed file is a user error."""
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise UserError(f"{path}, line {number}: not valid JSON ({error}).") from error
                except RecursionError as error:  # the decoder's own guard: a line nested thousands deep
                    raise UserError(f"{path}, line {number}: the JSON nests too deeply to read [too_deep].") from error
                if not isinstance(record, dict):
                    raise UserError(f"{path}, line {number}: expected a JSON object.")
                yield number, record
    except FileNotFoundError as error:
        raise UserError(f"{path}: not found.") from error
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text ({error}).") from error
