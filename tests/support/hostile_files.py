"""Builders of the hostile and sloppy input files of issue 12, shared by the tests and bench_hostile_files.py.

Each writes a real file of the shape the issue describes (streamed, so building a 300 MB file costs no memory).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from openpyxl import Workbook

HEADER = ["id", "sentence", "target", "lemma", "pos", "synset"]
GOOD_ROW = ["shot-whiskey", "He poured a shot of whiskey.", "shot", "shot", "NOUN", "bn:00057755n"]
SHEET = "xl/worksheets/sheet1.xml"
REPO = Path(__file__).resolve().parents[2]
CHUNK = 1 << 20
#: A row of spaces and an empty string: nothing to import, but cells a spreadsheet program writes.
EMPTYISH_ROW = (
    b'<row r="%d" spans="1:6"><c r="B%d" t="inlineStr"><is><t xml:space="preserve"> </t></is></c>'
    b'<c r="C%d" t="inlineStr"><is><t xml:space="preserve">  </t></is></c><c r="F%d" t="str"><v></v></c></row>'
)


def _rewrite_sheet(source: Path, target: Path, parts: Iterable[bytes]) -> Path:
    """Copy the workbook ``source`` to ``target`` with its first sheet's XML replaced by ``parts`` (streamed)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
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


def snapshot_long_gloss(folder: Path, chars: int, name: str = "snapshot.jsonl") -> Path:
    """A snapshot (JSONL, or JSON for a ``.json`` name) whose one synset's English gloss holds ``chars`` chars."""
    path = folder / name
    header = {"format": "annotator-lexicon-snapshot", "format_version": 1, "label": "hostile", "version": "1"}
    lemma = {"lemma": "shot", "lang": "EN", "pos": "NOUN", "synsets": ["bn:00057755n"]}
    senses = [{"lemma": "shot", "lang": "EN", "source": "WN", "wordnet_sense_number": 1}]
    synset = {"id": "bn:00057755n", "pos": "NOUN", "glosses": {"EN": "\x00"}, "senses": senses}
    jsonl = name.endswith(".jsonl")
    if jsonl:
        lines = [{"type": "header", **header}, {"type": "lemma", **lemma}]
        head = "".join(json.dumps(line) + "\n" for line in lines) + json.dumps({"type": "synset", **synset})
    else:
        head = json.dumps({**header, "lemmas": [lemma], "synsets": [synset]})
    before, after = head.split('"\\u0000"')
    with path.open("w", encoding="utf-8") as handle:
        handle.write(before + '"')
        for part in _long_sentence(chars):
            handle.write(part)
        handle.write('"' + after + "\n")
    return path


def translations_long(folder: Path, chars: int, name: str = "translations.jsonl") -> Path:
    """A translations file whose one translation holds ``chars`` characters."""
    path = folder / name
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"id": "shot-whiskey", "lang": "IT", "system": "mt", "translation": "')
        for part in _long_sentence(chars):
            handle.write(part)
        handle.write('"}\n')
    return path


#: Run the command line in a fresh interpreter and report its own peak RSS on stderr's last line. VmHWM (this
#: process image's high-water mark) rather than ru_maxrss: on Linux ru_maxrss survives exec, so a child forked
#: from a big test process would report its parent's size.
_CHILD = (
    "import sys\n"
    "from annotator.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open('/proc/self/status') as status:\n"
    "    peak = next(line.split()[1] for line in status if line.startswith('VmHWM:'))\n"
    "print(f'peak_rss_kb={peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass(frozen=True)
class Measured:
    returncode: int
    stderr: str
    seconds: float
    peak_rss_mb: float


def run_cli_measured(args: list[str], timeout: float = 120) -> Measured:
    """``annotator ARGS`` in a subprocess (this checkout on PYTHONPATH): exit code, message, time, peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    seconds = time.perf_counter() - started
    lines = done.stderr.strip().splitlines()
    rss = next((int(line.split("=", 1)[1]) for line in reversed(lines) if line.startswith("peak_rss_kb=")), 0)
    message = "\n".join(line for line in lines if not line.startswith("peak_rss_kb="))
    return Measured(done.returncode, message, seconds, rss / 1024)


def xlsx_empty_cells(folder: Path, rows: int, cells_per_row: int, name: str = "empty-cells.xlsx") -> Path:
    """A header, one good row, then ``rows`` rows of ``cells_per_row`` empty cells each (no value at all)."""
    base = _base_workbook(folder, [HEADER, GOOD_ROW])

    def body() -> Iterator[bytes]:
        yield _row(1, HEADER) + _row(2, GOOD_ROW)
        for number in range(3, rows + 3):
            cells = b"".join(b'<c r="%s%d" s="1"/>' % (letter.encode(), number) for letter in _letters(cells_per_row))
            yield b'<row r="%d">' % number + cells + b"</row>"

    return _rewrite_sheet(base, folder / name, _sheet_xml(f"A1:F{rows + 2}", body()))


def _letters(count: int) -> Iterator[str]:
    for index in range(count):
        yield (chr(65 + index // 26 - 1) if index >= 26 else "") + chr(65 + index % 26)


def _append_rows(source: Path, target: Path, member: str, extra: Iterable[bytes]) -> Path:
    """Copy a workbook, adding ``extra`` row XML at the end of the sheet part ``member`` (streamed)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename != member:
                zout.writestr(info, data)
                continue
            head, tail = data.rsplit(b"</sheetData>", 1)
            with zout.open(member, "w", force_zip64=True) as out:
                out.write(head)
                for part in extra:
                    out.write(part)
                out.write(b"</sheetData>" + tail)
    return target


def sheet_shapes(exported: Path, folder: Path, data_member: str) -> dict[str, Path]:
    """The hostile shapes applied to a real exported curation sheet (its data sheet is ``data_member``):
    a million empty-ish rows, a 40 MB cell, a value in column XFD — each named like the sheet, in its own folder."""
    shapes: dict[str, Path] = {}

    def million() -> Iterator[bytes]:
        for start in range(1_000, 1_001_000, 10_000):
            yield b"".join(EMPTYISH_ROW % (n, n, n, n) for n in range(start, start + 10_000))

    def long_cell() -> Iterator[bytes]:
        yield b'<row r="1000">' + _cell("A1000", "shot-whiskey") + b'<c r="L1000" t="inlineStr"><is><t>'
        for part in _long_sentence(40 * CHUNK):
            yield part.encode()
        yield b"</t></is></c></row>"

    far = [b'<row r="1000">' + _cell("XFD1000", "x") + b"</row>"]
    for shape, extra in (("million", million()), ("long-cell", long_cell()), ("far-column", iter(far))):
        (folder / shape).mkdir(exist_ok=True)
        shapes[shape] = _append_rows(exported, folder / shape / exported.name, data_member, extra)
    return shapes


#: One valid exported dataset line, for the evaluation's inputs (the tests' and the benchmark's).
DATASET_LINE = {
    "id": "shot-whiskey",
    "sentence": "He poured a shot of whiskey.",
    "target": {"text": "shot", "start": 12, "end": 16, "lemma": "shot", "pos": "NOUN"},
    "synset": "bn:00057755n",
    "gloss": "",
    "source": "",
    "polysemy_degree": 2,
    "sense_rank": 1,
    "senses": [{"synset": "bn:00057755n", "rank": 1}],
    "languages": {"IT": {"good": [{"text": "goccio", "pos": None, "origin": "lexicon", "synsets": []}], "bad": []}},
}
