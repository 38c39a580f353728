"""Builders of the hostile and sloppy input files of issue 12, shared by the tests and bench_hostile_files.py.

Each writes a real file of the shape the issue describes (streamed, so building a 300 MB file costs no memory).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from openpyxl import Workbook

HEADER = ["id", "sentence", "target", "lemma", "pos", "synset"]
GOOD_ROW = ["shot-whiskey", "He poured a shot of whiskey.", "shot", "shot", "NOUN", "bn:00057755n"]
SHEET = "xl/worksheets/sheet1.xml"
CHUNK = 1 << 20
#: A row of spaces and an empty string: nothing to import, but cells a spreadsheet program writes.
EMPTYISH_ROW = (
    b'<row r="%d" spans="1:6"><c r="B%d" t="inlineStr"><is><t xml:space="preserve"> </t></is></c>'
    b'<c r="C%d" t="inlineStr"><is><t xml:space="preserve">  </t></is></c><c r="F%d" t="str"><v></v></c></row>'
)


def _rewrite_sheet(source: Path, target: Path, parts: Iterable[bytes]) -> Path:
    """Copy the workbook ``source`` to ``target`` with its first sheet's XML replaced by ``parts`` (streamed)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename == SHEET:
                with zout.open(SHEET, "w", force_zip64=True) as out:
                    for part in parts:
                        out.write(part)
            else:
                zout.writestr(info, zin.read(info.filename))
    return target


def _base_workbook(folder: Path, rows: list[list[str]]) -> Path:
    workbook = Workbook()
    sheet = workbook.active
    for row in rows:
        sheet.append(row)
    path = folder / "_base.xlsx"
    workbook.save(path)
    return path


def _cell(ref: str, text: str) -> bytes:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<c r="{ref}" t="inlineStr"><is><t>{escaped}</t></is></c>'.encode()


def _row(number: int, values: list[str]) -> bytes:
    cells = b"".join(_cell(f"{chr(65 + i)}{number}", v) for i, v in enumerate(values))
    return f'<row r="{number}">'.encode() + cells + b"</row>"


def _sheet_xml(dimension: str, body: Iterable[bytes]) -> Iterator[bytes]:
    yield (
        b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        + f'<dimension ref="{dimension}"/>'.encode()
        + b"<sheetData>"
    )
    yield from body
    yield b"</sheetData></worksheet>"


def xlsx_declared_dimension(folder: Path, name: str = "dimension.xlsx", far_cell: bool = False) -> Path:
    """A ~5 KB workbook whose sheet declares ``A1:XFD1048576`` around two real rows (and, if asked, a real
    value in the last column XFD, which is more columns than any item file uses)."""
    base = _base_workbook(folder, [HEADER, GOOD_ROW])
    rows = [_row(1, HEADER), _row(2, GOOD_ROW)]
    if far_cell:
        rows[1] = rows[1].replace(b"</row>", _cell("XFD2", "x") + b"</row>")
    return _rewrite_sheet(base, folder / name, _sheet_xml("A1:XFD1048576", rows))


def xlsx_million_rows(folder: Path, name: str = "million.xlsx", rows: int = 1_000_000) -> Path:
    """A workbook of a header, one good row and a million empty-ish rows (a cell holding one space)."""
    base = _base_workbook(folder, [HEADER, GOOD_ROW])

    def body() -> Iterator[bytes]:
        yield _row(1, HEADER) + _row(2, GOOD_ROW)
        batch: list[bytes] = []
        for number in range(3, rows + 3):
            batch.append(EMPTYISH_ROW % (number, number, number, number))
            if len(batch) == 10_000:
                yield b"".join(batch)
                batch.clear()
        yield b"".join(batch)

    return _rewrite_sheet(base, folder / name, _sheet_xml(f"A1:F{rows + 2}", body()))


def _long_sentence(chars: int) -> Iterator[str]:
    """The sentence "He poured a shot of whiskey..." repeated: ``chars`` characters of real text, yielded in chunks."""
    unit = "He poured a shot of whiskey and then another one. "
    block = unit * (CHUNK // len(unit))
    left = chars
    while left > 0:
        part = block[: min(left, len(block))]
        left -= len(part)
        yield part


def xlsx_long_sentence(folder: Path, chars: int, name: str = "long-sentence.xlsx") -> Path:
    """A workbook whose one sentence cell holds ``chars`` characters (it compresses to almost nothing)."""
    base = _base_workbook(folder, [HEADER, GOOD_ROW])

    def body() -> Iterator[bytes]:
        yield _row(1, HEADER)
        yield b'<row r="2">' + _cell("A2", "long") + b'<c r="B2" t="inlineStr"><is><t>'
        for part in _long_sentence(chars):
            yield part.encode()
        yield b"</t></is></c>" + b"".join(_cell(f"{chr(67 + i)}2", v) for i, v in enumerate(GOOD_ROW[2:])) + b"</row>"

    return _rewrite_sheet(base, folder / name, _sheet_xml("A1:F2", body()))


def csv_long_sentence(folder: Path, chars: int, name: str = "long-sentence.csv") -> Path:
    """A CSV whose one sentence cell holds ``chars`` characters (the file is that big)."""
    path = folder / name
    separator = "\t" if name.endswith(".tsv") else ","
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(separator.join(HEADER) + "\n")
        handle.write("long" + separator)
        for part in _long_sentence(chars):
            handle.write(part)
        handle.write(separator + separator.join(GOOD_ROW[2:]) + "\n")
    return path


def jsonl_long_string(folder: Path, chars: int, name: str = "long-sentence.jsonl", field: str = "sentence") -> Path:
    """A JSONL file whose first record's ``field`` holds ``chars`` characters."""
    path = folder / name
    record = dict(zip(HEADER, GOOD_ROW, strict=True))
    head, tail = json.dumps({**record, field: "\x00"}).split('"\\u0000"')
    with path.open("w", encoding="utf-8") as handle:
        handle.write(head + '"')
        for part in _long_sentence(chars):
            handle.write(part)
        handle.write('"' + tail + "\n")
    return path


def items_jsonl(folder: Path, rows: list[dict], name: str = "items.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(row, ensure_ascii=True) + "\n" for row in rows), encoding="utf-8")
    return path


def item(item_id: str, **changes: object) -> dict:
    """A good item row (the DiBiMT figure-1 sentence) with ``changes``."""
    return {**dict(zip(HEADER, GOOD_ROW, strict=True)), "id": item_id, **changes}
