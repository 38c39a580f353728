"""Read tabular files (CSV, TSV, XLSX, JSONL) into numbered rows, refusing what is not what it claims to be.

Every importer (items, spreadsheets, translations) shares this so a bad file always gets the same kind of
message: the file, the row, and what is wrong with it. Reading streams and checks the ``InputLimits`` as it
goes (file size first, then rows, columns and characters per cell), so a hostile file is refused in bounded
time and memory, never after loading it whole. Sloppy-but-common files get help instead of a misleading answer:
a UTF-16 or UTF-8-BOM file is read and said to be one; a ``;``- or tab-separated ``.csv`` is read with the
separator it uses, and the notes say so.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

from annotator.data_import.limits import (
    InputLimitError,
    InputLimits,
    JsonTooDeepError,
    check_file_size,
    find_surrogate,
    may_hold_surrogate,
    megabytes,
    parse_json,
)
from annotator.errors import UserError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


class FileFormatError(UserError):
    """The file as a whole cannot be read (encoding, not a workbook, empty, no header)."""


@dataclass(frozen=True)
class Row:
    """One data row: ``number`` is what the user sees (spreadsheet row, or JSONL line)."""

    number: int
    values: dict[str, Any]


@dataclass
class Table:
    """A file read within its limits: normalised header, non-empty rows, and what was guessed to read it."""

    name: str
    columns: list[str]
    rows: list[Row]
    #: e.g. "read as UTF-16 (Excel 'Unicode text')", "separator: semicolon (;)" — shown to the user as notes.
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FormulaCell:
    """An ``.xlsx`` cell holding a formula (read with ``typed_cells``): ``cached`` is the value Excel last computed,
    None when the file has none (written by a program that doesn't compute)."""

    formula: str
    cached: Any

    def __str__(self) -> str:
        return self.formula


@dataclass(frozen=True)
class DateCell:
    """An ``.xlsx`` number cell formatted as a date or time (read with ``typed_cells``): Excel keeps the day count
    (``45356``), which would silently become the text "45356"."""

    serial: float

    @property
    def shown(self) -> str:
        """The date as Excel shows it (1900 date system), or the serial when it is out of range."""
        try:
            moment = _EXCEL_EPOCH + timedelta(days=self.serial)
        except (OverflowError, ValueError):
            return str(self.serial)
        return moment.strftime("%Y-%m-%d" if float(self.serial).is_integer() else "%Y-%m-%d %H:%M")

    def __str__(self) -> str:
        return self.shown


_EXCEL_EPOCH = datetime(1899, 12, 30)


def detect_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise FileFormatError(f"{path.name}: unknown file type {path.suffix!r}; use .csv, .tsv, .xlsx or .jsonl.")
    return fmt


def _normalise_header(name: Any) -> str:
    return str(name or "").strip().lower().replace(" ", "_")


def _header_name(cache: dict[str, str], key: str) -> str:
    """``_normalise_header`` remembered per JSON key (every line repeats the same keys)."""
    name = _normalise_header(key)
    if len(cache) < 1_000:
        cache[key] = name
    return name


def check_unique_columns(name: str, columns: list[str], row: int = 1) -> None:
    """Refuse a header that names one column twice: a dict keeps only the last, so the first column's values would
    vanish and the row be refused for a reason that isn't the real one."""
    first: dict[str, int] = {}
    for index, column in enumerate(columns, start=1):
        if not column:
            continue
        if column in first:
            raise FileFormatError(
                f"{name}: row {row}: the column {column!r} appears twice (columns {first[column]} and {index}); "
                "rename or delete one [duplicate_column]"
            )
        first[column] = index


def _plural(count: int) -> str:
    return f"{count:,}"


def _too_many_rows(name: str, number: int, limits: InputLimits) -> InputLimitError:
    return InputLimitError(
        f"{name}: row {_plural(number)}: more than {_plural(limits.max_rows)} rows (input limit max_rows; empty rows "
        "count too); nothing was read. Split the file, or delete the empty rows after the data.",
        "too_many_rows",
    )


def _cell_too_long(name: str, row: int, column: str, limits: InputLimits) -> InputLimitError:
    where = f"row {_plural(row)}" + (f", column '{column}'" if column else "")
    return InputLimitError(
        f"{name}: {where}: more than {_plural(limits.max_cell_chars)} characters in one cell "
        "(input limit max_cell_chars); nothing was read.",
        "cell_too_long",
    )


def _too_many_columns(name: str, row: int, used: int, limits: InputLimits) -> InputLimitError:
    return InputLimitError(
        f"{name}: row {_plural(row)}: {used:,} columns used, more "
        f"than {limits.max_columns} (input limit max_columns); nothing was read.",
        "too_many_columns",
    )


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
            f"{self.name}: line {_plural(self.line)}: longer than {_plural(self.max_line_chars)} characters "
            f"(input limit max_cell_chars: {_plural(self.limits.max_cell_chars)} per cell); nothing was read.",
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
            raise _too_many_columns(name, 1, len(header), limits)
        columns = [_normalise_header(h) for h in header]
        check_unique_columns(name, columns)
        rows: list[Row] = []
        number = 1
        consumed.clear()
        try:
            for record in reader:
                number += 1
                if number - 1 > limits.max_rows:
                    raise _too_many_rows(name, number, limits)
                spanned = len(consumed)
                if spanned > 1 or len(record) < len(columns):
                    stray = _stray_quote(consumed, record, separator, len(columns))
                    if stray:
                        rows.append(Row(number, {"__error__": stray, "__rule__": "unbalanced_quote"}))
                        consumed.clear()
                        continue
                consumed.clear()
                while record and not record[-1].strip():
                    record.pop()
                if not record:
                    continue
                for index, cell in enumerate(record):
                    if len(cell) > limits.max_cell_chars:
                        raise _cell_too_long(name, number, columns[index] if index < len(columns) else "", limits)
                if len(record) > len(columns):
                    if len(record) > limits.max_columns:
                        raise _too_many_columns(name, number, len(record), limits)
                    rows.append(Row(number, {"__error__": f"{len(record)} cells but the header has {len(columns)}"}))
                    continue
                rows.append(Row(number, dict(zip(columns, record + [""] * (len(columns) - len(record)), strict=True))))
        except csv.Error as error:
            if "field larger than field limit" in str(error):
                raise _cell_too_long(name, number, "", limits) from None
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
                    f"{path.name}: line {_plural(lines.line)}: more than {_plural(limits.max_rows)} {what}s "
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

    With the line's ``raw`` text the record is only walked when the text could hold either (an escaped surrogate,
    or more characters than one cell may have): the common line costs two C-speed checks.
    """
    if raw is not None and len(raw) <= limits.max_cell_chars and not may_hold_surrogate(raw):
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
            f"more than {_plural(limits.max_cell_chars)} characters (input limit max_cell_chars)",
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
    rows: list[Row] = []
    columns: dict[str, None] = {}
    headers: dict[str, str] = {}

    def on_line(number: int, value: Any, raw: str) -> None:
        if isinstance(value, JsonTooDeepError):
            rows.append(Row(number, {"__error__": f"the JSON is {value.reason}", "__rule__": value.rule}))
            return
        if isinstance(value, json.JSONDecodeError):
            rows.append(Row(number, {"__error__": f"invalid JSON ({value.msg}, column {value.colno})"}))
            return
        if not isinstance(value, dict):
            rows.append(Row(number, {"__error__": "each line must be a JSON object"}))
            return
        problem = json_value_problem(value, limits, raw)
        if problem is not None:
            rule, where, message = problem
            if rule == "cell_too_long":
                raise _cell_too_long(path.name, number, where, limits)
            rows.append(Row(number, {"__error__": f"field '{where}': {message}", "__rule__": rule}))
            return
        if len(value) > limits.max_columns:
            raise _too_many_columns(path.name, number, len(value), limits)
        value = {headers.get(k) or _header_name(headers, k): v for k, v in value.items()}
        if len(columns) < limits.max_columns * 4:
            columns.update(dict.fromkeys(value))
        rows.append(Row(number, value))

    notes = read_json_lines(path, limits, on_line, what="row")
    return Table(path.name, list(columns), rows, notes)


# --- XLSX: a streaming reader ------------------------------------------------------------------------------

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
#: ``<row`` and ``<c`` start tags (any namespace prefix), counted before parsing: a sheet of a million rows is
#: refused after a byte scan instead of a million parser callbacks.
_COUNTED_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]{0,20}:)?(row|c|si)[\s/>]")
_DIGITS = "0123456789"
#: The small parts (workbook, relationships) are parsed whole; no real one comes near this.
_SMALL_PART_BYTES = 4 * 1024 * 1024


_LOCAL_NAMES: dict[str, str] = {}
_COLUMNS: dict[str, int] = {}


def _local_name(tag: str) -> str:
    """``{namespace}row`` → ``row``, cached (the parser calls this for every element)."""
    local = tag.rsplit("}", 1)[-1]
    if len(_LOCAL_NAMES) < 256:
        _LOCAL_NAMES[tag] = local
    return local


def _column_number(ref: str) -> int:
    """``B12`` → 2; 0 when the reference is not a cell reference."""
    letters = ref.rstrip(_DIGITS)
    number = _COLUMNS.get(letters)
    if number is not None:
        return number
    if not (letters.isascii() and letters.isalpha() and len(letters) <= 3):
        return 0
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    if len(_COLUMNS) < 4096:
        _COLUMNS[letters] = number
    return number


def _parser() -> expat.XMLParserType:
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.buffer_size = 65536
    return parser


def _feed(parser: expat.XMLParserType, stream: IO[bytes], name: str, part: str) -> None:
    try:
        while chunk := stream.read(1 << 16):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except expat.ExpatError as error:
        raise FileFormatError(
            f"{name}: not a valid .xlsx workbook ({part}: {expat.errors.messages[error.code]})."
        ) from None


#: A workbook is a few dozen parts; a zip directory listing more is not one (and would cost memory to list).
_MOST_PARTS = 1_000
_EOCD = b"PK\x05\x06"


def _check_zip_directory(path: Path) -> None:
    """Refuse an archive whose directory lists more parts than a workbook has, before ``zipfile`` reads it all.

    The end-of-central-directory record (the last 22 bytes, before a comment of at most 64 KB) gives the count.
    """
    with path.open("rb") as handle:
        handle.seek(0, io.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 65_557))
        tail = handle.read()
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) < at + 22:
        return  # zipfile will say what is wrong
    entries = int.from_bytes(tail[at + 10 : at + 12], "little")
    directory_size = int.from_bytes(tail[at + 12 : at + 16], "little")
    if entries > _MOST_PARTS or directory_size > _MOST_PARTS * 1_024:
        parts = "more than 65,535" if entries == 0xFFFF else f"{entries:,}"
        raise InputLimitError(
            f"{path.name}: the archive lists {parts} parts; a workbook has a few dozen, so this is not one this tool "
            "reads; nothing was read.",
            "too_many_parts",
        )


class Workbook:
    """An ``.xlsx`` opened for bounded reading: sheet names, shared strings (capped), rows streamed."""

    def __init__(self, path: Path, limits: InputLimits) -> None:
        self.path = path
        self.name = path.name
        self.limits = limits
        if not zipfile.is_zipfile(path):
            raise FileFormatError(f"{self.name}: not a valid .xlsx workbook (it is not a zip archive).")
        _check_zip_directory(path)
        try:
            self._zip = zipfile.ZipFile(path)
            self._members = {info.filename: info for info in self._zip.infolist()}
            self.sheets = self._read_sheet_index()
        except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
            raise FileFormatError(
                f"{self.name}: not a valid .xlsx workbook ({type(error).__name__}: {error})."
            ) from None
        self._strings: list[str] | None = None
        self._date_styles: frozenset[int] | None = None

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> Workbook:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _small_part(self, member: str) -> bytes:
        info = self._members.get(member)
        if info is None:
            raise FileFormatError(f"{self.name}: not a valid .xlsx workbook (no {member}).")
        if info.file_size > _SMALL_PART_BYTES:
            raise InputLimitError(
                f"{self.name}: {member} unpacks to {info.file_size:,} bytes; not a workbook this tool reads.",
                "file_too_large",
            )
        return self._zip.read(member)

    def _read_sheet_index(self) -> dict[str, str]:
        """Sheet name → part path, in workbook order."""
        sheets: list[tuple[str, str]] = []
        targets: dict[str, str] = {}

        def workbook_start(tag: str, attrs: dict[str, str]) -> None:
            if tag == f"{_MAIN_NS}}}sheet":
                sheets.append((attrs.get("name", ""), attrs.get(f"{_REL_NS}}}id", "")))

        def rels_start(tag: str, attrs: dict[str, str]) -> None:
            if tag == f"{_PKG_REL_NS}}}Relationship":
                targets[attrs.get("Id", "")] = attrs.get("Target", "")

        for member, handler in (("xl/workbook.xml", workbook_start), ("xl/_rels/workbook.xml.rels", rels_start)):
            parser = _parser()
            parser.StartElementHandler = handler
            _feed(parser, io.BytesIO(self._small_part(member)), self.name, member)
        index: dict[str, str] = {}
        for sheet, rel in sheets:
            target = targets.get(rel, "")
            path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join("xl", target))
            index[sheet] = path
        if not index:
            raise FileFormatError(f"{self.name}: not a valid .xlsx workbook (it has no worksheets).")
        return index

    def _shared_strings(self) -> list[str]:
        """The workbook's shared-string table, each string checked against the cell limit as it streams."""
        if self._strings is not None:
            return self._strings
        strings: list[str] = []
        self._strings = strings
        info = self._members.get("xl/sharedStrings.xml")
        if info is None:
            return strings
        self._count_tags(info.filename)
        limit = self.limits.max_cell_chars
        most = (self.limits.max_rows + 1) * 10
        state = {"depth": 0, "skip": 0, "text": False, "length": 0}
        parts: list[str] = []

        def start(tag: str, _attrs: dict[str, str]) -> None:
            local = _LOCAL_NAMES.get(tag) or _local_name(tag)
            if local == "si":
                parts.clear()
                state["length"] = 0
            elif local in ("rPh", "phoneticPr"):
                state["skip"] += 1
            elif local == "t" and not state["skip"]:
                state["text"] = True

        def end(tag: str) -> None:
            local = _LOCAL_NAMES.get(tag) or _local_name(tag)
            if local == "si":
                if len(strings) >= most:
                    raise InputLimitError(
                        f"{self.name}: the workbook has more than {_plural(most)} distinct texts (input limits: "
                        "10 × max_rows); nothing was read.",
                        "too_many_rows",
                    )
                strings.append("".join(parts))
            elif local in ("rPh", "phoneticPr"):
                state["skip"] -= 1
            elif local == "t":
                state["text"] = False

        def data(text: str) -> None:
            if state["text"]:
                state["length"] += len(text)
                if state["length"] > limit:
                    raise InputLimitError(
                        f"{self.name}: the workbook holds a text of more than {_plural(limit)} characters "
                        "(input limit max_cell_chars); nothing was read.",
                        "cell_too_long",
                    )
                parts.append(text)

        parser = _parser()
        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = data
        with self._zip.open(info) as stream:
            _feed(parser, stream, self.name, "xl/sharedStrings.xml")
        return strings

    def _count_tags(self, member: str) -> None:
        """Refuse a part with more rows, cells (empty ones included) or shared strings than the limits allow, by
        a byte scan, before parsing it.

        Parsing costs a few microseconds per element; counting start tags in the unpacked bytes costs almost
        nothing, so a sheet of a million empty rows is refused at once. A match never holds a second ``<``, so
        a chunk is scanned up to its last ``<`` and the rest carried over. The unpacked size is bounded too
        (a zip's declared size caps what it unpacks to), and so is a run of text with no tag in it: a 300 MB
        cell is refused after its first megabytes.
        """
        limits = self.limits
        info = self._members[member]
        if info.file_size > 4 * limits.max_file_bytes:
            raise InputLimitError(
                f"{self.name}: {member} unpacks to {megabytes(info.file_size)}, more than 4 × the file limit "
                f"(input limit max_file_mb: {limits.max_file_mb} MB); nothing was read.",
                "file_too_large",
            )
        most_rows, most_cells = limits.max_rows + 1, (limits.max_rows + 1) * 10
        counts = {b"row": 0, b"c": 0, b"si": 0}
        carry = b""
        most_text_bytes, text_run = 4 * limits.max_cell_chars + 1_024, 0  # bytes since the last "<"
        with self._zip.open(info) as stream:
            while True:
                chunk = stream.read(1 << 20)
                first = chunk.find(b"<")
                text_run += len(chunk) if first < 0 else first
                if text_run > most_text_bytes:
                    raise InputLimitError(
                        f"{self.name}: the {'sheet' if 'sheet' in member else 'workbook'} holds a text of more than "
                        f"{_plural(limits.max_cell_chars)} characters (input limit max_cell_chars); nothing was read.",
                        "cell_too_long",
                    )
                if first >= 0:
                    text_run = len(chunk) - chunk.rfind(b"<") - 1
                data = carry + chunk
                cut = data.rfind(b"<", max(0, len(data) - 64)) if chunk else -1
                scan, carry = (data[:cut], data[cut:]) if cut >= 0 else (data, b"")
                for kind in _COUNTED_TAG.findall(scan):
                    counts[kind] += 1
                if counts[b"row"] > most_rows:
                    raise InputLimitError(
                        f"{self.name}: the sheet has more than {_plural(limits.max_rows)} rows (input limit max_rows; "
                        "empty rows count too); nothing was read. Split the file, or delete the empty rows after "
                        "the data.",
                        "too_many_rows",
                    )
                if counts[b"c"] > most_cells or counts[b"si"] > most_cells:
                    what = "cells, empty ones included" if counts[b"c"] > most_cells else "distinct texts"
                    raise InputLimitError(
                        f"{self.name}: the {'sheet' if counts[b'c'] else 'workbook'} has more than "
                        f"{_plural(most_cells)} {what} (input limits: 10 × max_rows); nothing was read.",
                        "too_many_rows",
                    )
                if not chunk:
                    return

    def date_styles(self) -> frozenset[int]:
        """The cell style indexes (``s="3"``) whose number format shows a date or time (from ``xl/styles.xml``)."""
        if self._date_styles is not None:
            return self._date_styles
        formats: dict[int, str] = {}
        styles: list[int] = []
        state = {"xfs": False}

        def start(tag: str, attrs: dict[str, str]) -> None:
            local = _local_name(tag)
            if local == "numFmt" and attrs.get("numFmtId", "").isdigit():
                formats[int(attrs["numFmtId"])] = attrs.get("formatCode", "")
            elif local == "cellXfs":
                state["xfs"] = True
            elif local == "xf" and state["xfs"]:
                number = attrs.get("numFmtId", "0")
                styles.append(int(number) if number.isdigit() else 0)

        def end(tag: str) -> None:
            if _local_name(tag) == "cellXfs":
                state["xfs"] = False

        if "xl/styles.xml" in self._members:
            parser = _parser()
            parser.StartElementHandler = start
            parser.EndElementHandler = end
            _feed(parser, io.BytesIO(self._small_part("xl/styles.xml")), self.name, "xl/styles.xml")
        self._date_styles = frozenset(
            index for index, number in enumerate(styles) if _is_date_format(number, formats.get(number))
        )
        return self._date_styles

    def iter_rows(self, sheet: str | None = None, typed_cells: bool = False) -> Iterator[tuple[int, list[Any]]]:
        """(row number, values up to the last non-empty cell) of every row the sheet's XML holds.

        The declared dimension (``A1:XFD1048576``) is never consulted; rows and columns are counted as they
        stream and refused past the limits. Formulas read as their text (``=A1``), as a lead would see them;
        with ``typed_cells`` a formula is a ``FormulaCell`` and a date-formatted number a ``DateCell``, so a
        reader can refuse them by name.
        """
        if sheet is None:
            sheet = next(iter(self.sheets))
        member = self.sheets.get(sheet)
        if member is None or member not in self._members:
            raise FileFormatError(f"{self.name}: the workbook has no sheet {sheet!r}.")
        self._count_tags(member)
        strings = self._shared_strings()
        dates = self.date_styles() if typed_cells else frozenset()
        limits = self.limits
        rows: list[tuple[int, list[Any]]] = []
        state: dict[str, Any] = {"row": 0, "rows": 0, "col": 0, "type": "", "in": "", "length": 0, "formula": None,
                                 "date": False}  # fmt: skip
        state["phonetic"] = False
        cells: dict[int, Any] = {}
        text: list[str] = []
        formula: list[str] = []

        local_names = _LOCAL_NAMES

        def start(tag: str, attrs: dict[str, str]) -> None:
            local = local_names.get(tag) or _local_name(tag)
            if local == "c":
                state["col"] = _column_number(attrs.get("r", "")) or max(cells, default=0) + 1
                state["type"] = attrs.get("t", "n")
                style = attrs.get("s", "")
                state["date"] = typed_cells and (
                    state["type"] == "d" or (state["type"] == "n" and style.isdigit() and int(style) in dates)
                )
                state["formula"] = None
                text.clear()
                state["length"] = 0
            elif local == "row":
                state["rows"] += 1
                number = attrs.get("r")
                state["row"] = int(number) if number and number.isdigit() else state["row"] + 1
                if state["rows"] > limits.max_rows + 1 or state["row"] > limits.max_rows + 1:
                    raise _too_many_rows(self.name, state["row"], limits)
                cells.clear()
            elif local in ("v", "t") and state["col"] and not state["phonetic"]:
                state["in"] = local
            elif local == "f" and state["col"]:
                state["in"] = "f"
                formula.clear()
            elif local == "rPh":
                state["phonetic"] = True

        def end(tag: str) -> None:
            local = local_names.get(tag) or _local_name(tag)
            if local == "f":
                state["formula"] = "=" + "".join(formula)
                state["in"] = ""
            elif local in ("v", "t"):
                state["in"] = ""
            elif local == "rPh":
                state["phonetic"] = False
            elif local == "c":
                value = _cell_value(state["type"], "".join(text), state["formula"], strings)
                if typed_cells:
                    value = _typed(value, state, "".join(text), strings)
                column = state["col"]
                if value is not None and value != "":
                    if column > limits.max_columns:
                        raise _too_many_columns(self.name, state["row"], column, limits)
                    cells[column] = value
                state["col"] = 0
                text.clear()
            elif local == "row":
                if cells:
                    last = max(cells)
                    rows.append((state["row"], [cells.get(i, "") for i in range(1, last + 1)]))
                cells.clear()

        def data(chunk: str) -> None:
            if state["in"]:
                state["length"] += len(chunk)
                if state["length"] > limits.max_cell_chars:
                    raise _cell_too_long(self.name, state["row"], "", limits)
                (formula if state["in"] == "f" else text).append(chunk)

        parser = _parser()
        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = data
        with self._zip.open(member) as stream:
            try:
                while chunk := stream.read(1 << 16):
                    parser.Parse(chunk, False)
                    yield from rows
                    rows.clear()
                parser.Parse(b"", True)
            except expat.ExpatError as error:
                message = expat.errors.messages[error.code]
                raise FileFormatError(f"{self.name}: not a valid .xlsx workbook ({member}: {message}).") from None
            except (zipfile.BadZipFile, EOFError, OSError) as error:
                raise FileFormatError(f"{self.name}: not a valid .xlsx workbook ({error}).") from None
        yield from rows


#: Excel's built-in number formats that show a date or time (ECMA-376 §18.8.30, and the CJK locale ones).
_BUILTIN_DATE_FORMATS = frozenset({*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59), *range(71, 82)})
_FORMAT_LITERALS = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|_.|\*.')


def _is_date_format(number: int, code: str | None) -> bool:
    """Whether a number format shows a date or time: a built-in date id, or a code with d, m, y, h or s outside
    quoted text, escapes and [colour]/[$-409] sections."""
    if code is None:
        return number in _BUILTIN_DATE_FORMATS
    bare = _FORMAT_LITERALS.sub("", code).lower()
    return any(letter in bare for letter in "dmyhs") and "general" not in bare


def _typed(value: Any, state: dict[str, Any], raw: str, strings: list[str]) -> Any:
    """The cell as a ``FormulaCell`` or ``DateCell`` when it is one, else its value."""
    if state["formula"] is not None:
        cached = _cell_value(state["type"], raw, None, strings) if raw else None
        return FormulaCell(state["formula"], cached)
    if state["date"] and value not in (None, ""):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return DateCell(value)
        try:  # t="d": an ISO 8601 date kept as text
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return value
        return DateCell((moment - _EXCEL_EPOCH).total_seconds() / 86_400)
    return value


def _cell_value(kind: str, raw: str, formula: str | None, strings: list[str]) -> Any:
    if formula is not None:
        return formula
    if kind == "s":
        try:
            return strings[int(raw)]
        except (ValueError, IndexError):
            return ""
    if kind in ("inlineStr", "str"):
        return raw
    if kind == "b":
        return raw.strip() == "1"
    if kind == "e":
        return raw
    if not raw:
        return None
    try:
        number = float(raw)
    except ValueError:
        return raw
    return int(number) if number.is_integer() and "." not in raw and "E" not in raw.upper() else number


def sheet_names(path: Path | str, limits: InputLimits | None = None) -> tuple[str, ...]:
    """The worksheet names of an ``.xlsx``, in order (reading nothing else)."""
    path = Path(path)
    limits = limits or InputLimits()
    check_file_size(path.name, path.stat().st_size, limits.max_file_bytes)
    with Workbook(path, limits) as workbook:
        return tuple(workbook.sheets)


def iter_sheet_rows(
    path: Path | str, sheet: str | None = None, limits: InputLimits | None = None
) -> Iterator[tuple[int, list[Any]]]:
    """The non-empty rows of one worksheet, streamed within the limits (for small sheets like ``about``)."""
    path = Path(path)
    limits = limits or InputLimits()
    check_file_size(path.name, path.stat().st_size, limits.max_file_bytes)
    with Workbook(path, limits) as workbook:
        yield from workbook.iter_rows(sheet)


def _read_xlsx(path: Path, sheet: str | None, limits: InputLimits, typed_cells: bool = False) -> Table:
    with Workbook(path, limits) as workbook:
        iterator = workbook.iter_rows(sheet, typed_cells)
        first = next(iterator, None)
        if first is None:
            raise FileFormatError(
                f"{path.name}: the workbook's {'sheet ' + repr(sheet) if sheet else 'first sheet'} is empty."
            )
        header_row, header = first
        columns = [_normalise_header(h) for h in header]
        check_unique_columns(path.name, columns, header_row)
        rows: list[Row] = []
        for number, cells in iterator:
            if not any(str(c).strip() for c in cells):
                continue
            if len(cells) > len(columns):
                rows.append(Row(number, {"__error__": f"{len(cells)} cells but the header has {len(columns)}"}))
                continue
            rows.append(Row(number, dict(zip(columns, cells, strict=False))))
    del header_row
    return Table(path.name, columns, rows, [])


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
            table = _read_xlsx(path, sheet, limits, typed_cells)
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


def read_table(
    path: Path | str, sheet: str | None = None, limits: InputLimits | None = None
) -> tuple[list[str], list[Row]]:
    """The header (normalised names) and the non-empty data rows of a CSV/TSV/XLSX/JSONL file."""
    table = load_table(path, sheet, limits)
    return table.columns, table.rows
