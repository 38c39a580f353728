"""A streaming ``.xlsx`` reader (expat over the zip's parts): sheet names, shared strings and rows within the input
limits, never trusting the workbook's declared dimension; formulas and dates kept typed when asked."""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

from annotator.data_import.limits import InputLimitError, InputLimits, megabytes
from annotator.data_import.table_rows import (
    FileFormatError,
    Row,
    Rows,
    Table,
    bad_row,
    cell_too_long,
    check_unique_columns,
    normalise_header,
    plural,
    too_many_columns,
    too_many_rows,
)


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
                        f"{self.name}: the workbook has more than {plural(most)} distinct texts (input limits: "
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
                        f"{self.name}: the workbook holds a text of more than {plural(limit)} characters "
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
                        f"{plural(limits.max_cell_chars)} characters (input limit max_cell_chars); nothing was read.",
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
                        f"{self.name}: the sheet has more than {plural(limits.max_rows)} rows (input limit max_rows; "
                        "empty rows count too); nothing was read. Split the file, or delete the empty rows after "
                        "the data.",
                        "too_many_rows",
                    )
                if counts[b"c"] > most_cells or counts[b"si"] > most_cells:
                    what = "cells, empty ones included" if counts[b"c"] > most_cells else "distinct texts"
                    raise InputLimitError(
                        f"{self.name}: the {'sheet' if counts[b'c'] else 'workbook'} has more than "
                        f"{plural(most_cells)} {what} (input limits: 10 × max_rows); nothing was read.",
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
                    raise too_many_rows(self.name, state["row"], limits)
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
                        raise too_many_columns(self.name, state["row"], column, limits)
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
                    raise cell_too_long(self.name, state["row"], "", limits)
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


def read_xlsx(path: Path, sheet: str | None, limits: InputLimits, typed_cells: bool = False) -> Table:
    with Workbook(path, limits) as workbook:
        iterator = workbook.iter_rows(sheet, typed_cells)
        first = next(iterator, None)
        if first is None:
            raise FileFormatError(
                f"{path.name}: the workbook's {'sheet ' + repr(sheet) if sheet else 'first sheet'} is empty."
            )
        header_row, header = first
        columns = [normalise_header(h) for h in header]
        check_unique_columns(path.name, columns, header_row)
        rows = Rows()
        for number, cells in iterator:
            if not any(str(c).strip() for c in cells):
                continue
            if len(cells) > len(columns):
                rows.append(bad_row(number, f"{len(cells)} cells but the header has {len(columns)}"))
                continue
            rows.append(Row(number, dict(zip(columns, cells, strict=False))))
    del header_row
    return Table(path.name, columns, rows, [])
