"""Read tabular files (CSV, TSV, XLSX, JSONL) into numbered rows, refusing what is not what it claims to be.

Every importer (items, spreadsheets, translations) shares this so a bad file always gets the same kind of
message: the file, the row, and what is wrong with it. Reading streams and checks the ``InputLimits`` as it
goes (file size first, then rows, columns and characters per cell), so a hostile file is refused in bounded
time and memory, never after loading it whole. Sloppy-but-common files get help instead of a misleading answer:
a UTF-16 or UTF-8-BOM file is read and said to be one; a ``;``- or tab-separated ``.csv`` is read with the
separator it uses, and the notes say so. The text formats are read here; ``.xlsx`` by ``xlsx.py``; the rows, the
header rules and the limit messages they share are in ``table_rows.py``.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotator.data_import.limits import (
    InputLimitError,
    InputLimits,
    JsonTooDeepError,
    check_file_size,
    find_surrogate,
    may_hold_long_string,
    may_hold_surrogate,
    parse_json,
)
from annotator.data_import.table_rows import (
    FileFormatError,
    Row,
    Rows,
    Table,
    bad_row,
    cell_too_long,
    check_unique_columns,
    header_name,
    normalise_header,
    plural,
    too_many_columns,
    too_many_rows,
)
from annotator.data_import.xlsx import read_xlsx

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


def detect_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise FileFormatError(f"{path.name}: unknown file type {path.suffix!r}; use .csv, .tsv, .xlsx or .jsonl.")
    return fmt


# --- text files: encoding, lines ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoding:
    codec: str
    note: str | None


def sniff_encoding(name: str, head: bytes) -> Encoding:
    """What the first bytes say: UTF-8 (with or without BOM), UTF-16 (BOM or NUL pattern), or a binary file."""
    if head.startswith(codecs.BOM_UTF8):
        return Encoding("utf-8-sig", "read as UTF-8 with a byte-order mark (BOM)")
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Encoding("utf-16", "read as UTF-16 (Excel 'Unicode text'); UTF-8 is the usual form")
    sample = head[:4096]
    if b"\x00" in sample:
        pairs = len(sample) // 2
        if pairs:
            odd_nuls = sum(1 for i in range(1, 2 * pairs, 2) if sample[i] == 0)
            even_nuls = sum(1 for i in range(0, 2 * pairs, 2) if sample[i] == 0)
            if odd_nuls >= 0.9 * pairs and even_nuls == 0:
                return Encoding("utf-16-le", "read as UTF-16 little-endian without a BOM (Excel 'Unicode text')")
            if even_nuls >= 0.9 * pairs and odd_nuls == 0:
                return Encoding("utf-16-be", "read as UTF-16 big-endian without a BOM")
        raise FileFormatError(f"{name}: this is a binary file, not text (UTF-8 or UTF-16).")
    return Encoding("utf-8", None)


class TextLines:
    """The lines of a text file, decoded as they are read, each at most ``max_line_chars`` long.

    ``line`` is the number of the last line returned, for messages. A line longer than the limit is refused
    after reading only the limit, so a 300 MB one-line file costs no more memory than a normal line.
    """

    def __init__(self, path: Path, limits: InputLimits, max_line_chars: int | None = None) -> None:
        self.name = path.name
        self.limits = limits
        self.max_line_chars = max_line_chars or limits.max_line_chars
        self._raw: IO[bytes] = path.open("rb")
        head = self._raw.read(4096)
        self._raw.seek(0)
        self.encoding = sniff_encoding(self.name, head)
        #: Excel's "CSV (Macintosh)" ends lines with CR alone: read as lines (the text reader splits on any newline).
        self.cr_only = self.encoding.codec.startswith("utf-8") and b"\r" in head and b"\n" not in head
        self.newline_note = "lines end with CR only (Excel 'CSV (Macintosh)'): read as lines" if self.cr_only else None
        self._text = io.TextIOWrapper(self._raw, encoding=self.encoding.codec, errors="strict", newline="")
        self.line = 0

    def close(self) -> None:
        self._text.close()

    def __enter__(self) -> TextLines:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[str]:
        if self.encoding.codec.startswith("utf-8") and not self.cr_only:
            yield from self._utf8_lines()
            return
        what = "UTF-8" if self.cr_only else "UTF-16"
        while True:
            try:
                line = self._text.readline(self.max_line_chars + 1)
            except UnicodeDecodeError as error:
                raise FileFormatError(
                    f"{self.name}: line {self.line + 1}: not {what} text ({error.reason}). Save the file as UTF-8"
                    + (" ('CSV UTF-8' in Excel)." if self.cr_only else ".")
                ) from None
            if not line:
                return
            self.line += 1
            self._check_length(line)
            yield line

    def _utf8_lines(self) -> Iterator[str]:
        """UTF-8 is read line by line as bytes, so a bad byte is reported on its own line, at its offset."""
        max_bytes = 4 * self.max_line_chars
        offset = 0
        while True:
            raw = self._raw.readline(max_bytes + 1)
            if not raw:
                return
            self.line += 1
            if len(raw) > max_bytes:  # refused before decoding: the cut may fall inside a character
                raise self._too_long()
            start = 3 if offset == 0 and raw.startswith(codecs.BOM_UTF8) else 0
            try:
                line = raw[start:].decode("utf-8")
            except UnicodeDecodeError as error:
                at = offset + start + error.start
                raise FileFormatError(
                    f"{self.name}: line {self.line}: not UTF-8 text (byte 0x{raw[start + error.start]:02x} at offset "
                    f"{at}). Save the file as UTF-8."
                ) from None
            offset += len(raw)
            self._check_length(line)
            yield line

    def _check_length(self, line: str) -> None:
        if len(line) > self.max_line_chars:
            raise self._too_long()

    def _too_long(self) -> InputLimitError:
        return InputLimitError(
            f"{self.name}: line {plural(self.line)}: longer than {plural(self.max_line_chars)} characters "
            f"(input limit max_cell_chars: {plural(self.limits.max_cell_chars)} per cell); nothing was read.",
            "cell_too_long",
        )


def _detect_separator(name: str, header_line: str, declared: str) -> tuple[str, str | None]:
    """The declared separator, unless the header has none of it but clearly uses ``;``, tab or ``,``."""
    if declared in header_line:
        return declared, None
    for other in (";", "\t", ","):
        if other != declared and other in header_line:
            what = _SEPARATOR_NAMES[other]
            return other, (
                f"the header has no {_SEPARATOR_NAMES[declared]} but {what}s: read with {what} ({other!r}) as the "
                "separator"
            )
    return declared, None


def _read_delimited(path: Path, declared: str, limits: InputLimits) -> Table:
    name = path.name
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_cell_chars + 1))
    with TextLines(path, limits) as lines:
        notes = [note for note in (lines.encoding.note, lines.newline_note) if note]
        iterator = iter(lines)
        first = next(iterator, None)
        while first is not None and not first.strip():
            first = next(iterator, None)
        if first is None:
            raise FileFormatError(f"{name}: the file is empty.")
        separator, note = _detect_separator(name, first, declared)
        if note:
            notes.append(note)

        consumed: list[str] = []  # the physical lines of the record being read, to explain a stray quote

        def physical() -> Iterator[str]:
            consumed.append(first)
            yield first
            for line in iterator:
                consumed.append(line)
                yield line

        reader = csv.reader(physical(), delimiter=separator)
        try:
            header = next(reader)
        except csv.Error as error:
            raise FileFormatError(f"{name}: row 1: {error}") from None
        while header and not header[-1].strip():
            header.pop()
        if len(header) > limits.max_columns:
            raise too_many_columns(name, 1, len(header), limits)
        columns = [normalise_header(h) for h in header]
        check_unique_columns(name, columns)
        rows = Rows()
        number = 1
        consumed.clear()
        try:
            for record in reader:
                number += 1
                if number - 1 > limits.max_rows:
                    raise too_many_rows(name, number, limits)
                spanned = len(consumed)
                if spanned > 1 or len(record) < len(columns):
                    stray = _stray_quote(consumed, record, separator, len(columns))
                    if stray:
                        rows.append(bad_row(number, stray, "unbalanced_quote"))
                        consumed.clear()
                        continue
                consumed.clear()
                while record and not record[-1].strip():
                    record.pop()
                if not record:
                    continue
                for index, cell in enumerate(record):
                    if len(cell) > limits.max_cell_chars:
                        raise cell_too_long(name, number, columns[index] if index < len(columns) else "", limits)
                if len(record) > len(columns):
                    if len(record) > limits.max_columns:
                        raise too_many_columns(name, number, len(record), limits)
                    rows.append(bad_row(number, f"{len(record)} cells but the header has {len(columns)}"))
                    continue
                rows.append(Row(number, dict(zip(columns, record + [""] * (len(columns) - len(record)), strict=True))))
        except csv.Error as error:
            if "field larger than field limit" in str(error):
                raise cell_too_long(name, number, "", limits) from None
            raise FileFormatError(f"{name}: row {number}: {error}") from None
    return Table(name, columns, rows, notes)


def _stray_quote(lines: list[str], record: list[str], separator: str, columns: int) -> str | None:
    """Why a record is a quote gone wrong, or None: a quote that is never closed swallows the rest of the file, and
    one closed by a stray quote rows later swallows the rows between; either way the real rows vanish into one cell."""
    text = "".join(lines)
    if text.count('"') % 2:
        return (
            'a quote (") opens a cell here and is never closed, so the rest of the file was read as one cell; '
            'close it, or write a quote that is part of the text as two ("")'
        )
    if len(lines) > 1:
        enough = max(1, columns - 1)
        for cell in record:
            if any(line.count(separator) >= enough for line in cell.split("\n")[1:]):
                return (
                    f'a quote (") opens a cell here that runs over {len(lines)} lines, swallowing what look like '
                    'rows; close it, or write a quote that is part of the text as two ("")'
                )
    return None


def read_json_lines(
    path: Path, limits: InputLimits, on_line: Callable[[int, Any, str], None], *, what: str = "line"
) -> list[str]:
    """Feed each non-empty line's number, parsed JSON (or a ``JSONDecodeError``) and text to ``on_line``; return
    the notes.

    Shared by item, translation, dataset and snapshot JSONL files so each gets the same limits: line count,
    line length (a line holds one record), nesting depth, longest string, lone surrogates.
    """
    notes: list[str] = []
    with TextLines(path, limits) as lines:
        if lines.encoding.note:
            notes.append(lines.encoding.note)
        for text in lines:
            if lines.line > limits.max_rows:
                raise InputLimitError(
                    f"{path.name}: line {plural(lines.line)}: more than {plural(limits.max_rows)} {what}s "
                    "(input limit max_rows); nothing was read.",
                    "too_many_rows",
                )
            if not text.strip():
                continue
            try:
                value: Any = parse_json(text)
            except json.JSONDecodeError as error:  # JsonTooDeepError too: a 100,000-level line is refused unparsed
                value = error
            on_line(lines.line, value, text)
    return notes


def json_value_problem(value: Any, limits: InputLimits, raw: str | None = None) -> tuple[str, str, str] | None:
    """(rule, field, message) when a parsed JSON record holds a lone surrogate or a string over the cell limit.

    With the ``raw`` text (a line, or a whole snapshot file) the record is only walked when the text could hold
    either (an escaped surrogate, or a string longer than one cell may be): the common case costs C-speed checks.
    """
    if raw is not None and not may_hold_surrogate(raw) and not may_hold_long_string(raw, limits.max_cell_chars):
        return None
    found = find_surrogate(value)
    if found:
        where, code = found
        return "surrogate", where, f"a lone surrogate {code} (an unpaired \\ud8xx escape) is not text"
    too_long = _first_long_field(value, limits.max_cell_chars)
    if too_long is not None:
        return (
            "cell_too_long",
            too_long,
            f"more than {plural(limits.max_cell_chars)} characters (input limit max_cell_chars)",
        )
    return None


def _first_long_field(value: Any, limit: int, path: str = "") -> str | None:
    if isinstance(value, str):
        return path if len(value) > limit else None
    if isinstance(value, dict):
        for key, inner in value.items():
            found = _first_long_field(inner, limit, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found = _first_long_field(inner, limit, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _read_jsonl(path: Path, limits: InputLimits) -> Table:
    rows = Rows()
    columns: dict[str, None] = {}
    headers: dict[str, str] = {}

    def on_line(number: int, value: Any, raw: str) -> None:
        if isinstance(value, JsonTooDeepError):
            rows.append(bad_row(number, f"the JSON is {value.reason}", value.rule))
            return
        if isinstance(value, json.JSONDecodeError):
            rows.append(bad_row(number, f"invalid JSON ({value.msg}, column {value.colno})"))
            return
        if not isinstance(value, dict):
            rows.append(bad_row(number, "each line must be a JSON object"))
            return
        problem = json_value_problem(value, limits, raw)
        if problem is not None:
            rule, where, message = problem
            if rule == "cell_too_long":
                raise cell_too_long(path.name, number, where, limits)
            rows.append(bad_row(number, f"field '{where}': {message}", rule))
            return
        if len(value) > limits.max_columns:
            raise too_many_columns(path.name, number, len(value), limits)
        value = {headers.get(k) or header_name(headers, k): v for k, v in value.items()}
        if len(columns) < limits.max_columns * 4:
            columns.update(dict.fromkeys(value))
        rows.append(Row(number, value))

    notes = read_json_lines(path, limits, on_line, what="row")
    return Table(path.name, list(columns), rows, notes)


def load_table(
    path: Path | str, sheet: str | None = None, limits: InputLimits | None = None, *, typed_cells: bool = False
) -> Table:
    """Read a CSV/TSV/XLSX/JSONL file within ``limits``: the header (normalised names), the non-empty data rows,
    and notes on how it was read. Refuses (``FileFormatError``, ``InputLimitError``) naming the file and rule.
    ``typed_cells``: ``.xlsx`` formulas and dates arrive as ``FormulaCell`` / ``DateCell`` (see ``iter_rows``)."""
    path = Path(path)
    limits = limits or InputLimits()
    fmt = detect_format(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise FileFormatError(f"{path}: cannot read the file ({error.strerror}).") from None
    check_file_size(path.name, size, limits.max_file_bytes)
    try:
        if fmt == "xlsx":
            table = read_xlsx(path, sheet, limits, typed_cells)
        elif fmt == "jsonl":
            table = _read_jsonl(path, limits)
        else:
            table = _read_delimited(path, "," if fmt == "csv" else "\t", limits)
    except OSError as error:
        raise FileFormatError(f"{path}: cannot read the file ({error.strerror}).") from None
    if not table.rows:
        if not table.columns and fmt != "xlsx":
            raise FileFormatError(f"{path.name}: the file is empty.")
        raise FileFormatError(f"{path.name}: the file has a header but no data rows.")
    return table


def read_table(path: Path | str, sheet: str | None = None, limits: InputLimits | None = None) -> tuple[list[str], Rows]:
    """The header (normalised names) and the non-empty data rows of a CSV/TSV/XLSX/JSONL file."""
    table = load_table(path, sheet, limits)
    return table.columns, table.rows
