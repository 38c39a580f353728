"""Read tabular files (CSV, TSV, XLSX, JSONL) into numbered rows, refusing what is not what it claims to be.

Every importer (items, spreadsheets, translations) shares this so a bad file always gets the same kind of
message: the file, the row, and what is wrong with it.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.errors import UserError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".jsonl": "jsonl", ".ndjson": "jsonl"}


class FileFormatError(UserError):
    """The file as a whole cannot be read (encoding, not a workbook, empty, no header)."""


@dataclass(frozen=True)
class Row:
    """One data row: ``number`` is what the user sees (spreadsheet row, or JSONL line)."""

    number: int
    values: dict[str, Any]


def detect_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise FileFormatError(f"{path.name}: unknown file type {path.suffix!r}; use .csv, .tsv, .xlsx or .jsonl.")
    return fmt


def _decode(path: Path, data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise FileFormatError(f"{path.name}: this is a binary file, not UTF-8 text.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise FileFormatError(
            f"{path.name}: line {line}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}). "
            "Save the file as UTF-8."
        ) from None


def _normalise_header(name: Any) -> str:
    return str(name or "").strip().lower().replace(" ", "_")


def _read_delimited(path: Path, text: str, delimiter: str) -> tuple[list[str], list[Row]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise FileFormatError(f"{path.name}: the file is empty.") from None
    except csv.Error as error:
        raise FileFormatError(f"{path.name}: row 1: {error}") from None
    columns = [_normalise_header(h) for h in header]
    rows: list[Row] = []
    try:
        for number, record in enumerate(reader, start=2):
            if not any(cell.strip() for cell in record):
                continue
            if len(record) > len(columns):
                rows.append(Row(number, {"__error__": f"{len(record)} cells but the header has {len(columns)}"}))
                continue
            rows.append(Row(number, dict(zip(columns, record + [""] * (len(columns) - len(record)), strict=True))))
    except csv.Error as error:
        raise FileFormatError(f"{path.name}: row {reader.line_num}: {error}") from None
    return columns, rows


def _read_jsonl(path: Path, text: str) -> tuple[list[str], list[Row]]:
    rows: list[Row] = []
    columns: dict[str, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            rows.append(Row(number, {"__error__": f"invalid JSON ({error.msg}, column {error.colno})"}))
            continue
        if not isinstance(value, dict):
            rows.append(Row(number, {"__error__": "each line must be a JSON object"}))
            continue
        value = {_normalise_header(k): v for k, v in value.items()}
        columns.update(dict.fromkeys(value))
        rows.append(Row(number, value))
    return list(columns), rows


def _read_xlsx(path: Path, data: bytes, sheet: str | None = None) -> tuple[list[str], list[Row]]:
    from openpyxl import load_workbook

    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise FileFormatError(f"{path.name}: not a valid .xlsx workbook (it is not a zip archive).")
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as error:  # openpyxl raises many types for corrupt files
        raise FileFormatError(f"{path.name}: not a valid .xlsx workbook ({type(error).__name__}: {error}).") from None
    try:
        worksheet = workbook[sheet] if sheet else workbook.worksheets[0]
        iterator: Iterator[tuple[Any, ...]] = worksheet.iter_rows(values_only=True)
        header = next(iterator, None)
        if header is None:
            raise FileFormatError(f"{path.name}: the workbook's first sheet is empty.")
        columns = [_normalise_header(h) for h in header]
        rows: list[Row] = []
        for number, record in enumerate(iterator, start=2):
            cells = ["" if v is None else v for v in record]
            if not any(str(c).strip() for c in cells):
                continue
            rows.append(Row(number, dict(zip(columns, cells, strict=False))))
        return columns, rows
    finally:
        workbook.close()


def read_table(path: Path | str, sheet: str | None = None) -> tuple[list[str], list[Row]]:
    """The header (normalised names) and the non-empty data rows of a CSV/TSV/XLSX/JSONL file."""
    path = Path(path)
    fmt = detect_format(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FileFormatError(f"{path}: cannot read the file ({error.strerror}).") from None
    if not data.strip():
        raise FileFormatError(f"{path.name}: the file is empty.")
    if fmt == "xlsx":
        columns, rows = _read_xlsx(path, data, sheet)
    else:
        text = _decode(path, data)
        columns, rows = (
            _read_jsonl(path, text) if fmt == "jsonl" else _read_delimited(path, text, "," if fmt == "csv" else "\t")
        )
    if not rows:
        raise FileFormatError(f"{path.name}: the file has a header but no data rows.")
    return columns, rows
