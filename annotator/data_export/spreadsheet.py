"""Spreadsheet export (SPEC §7): one ``.xlsx`` per language for translators who curate offline, as in DiBiMT.

The sheet is made to come back: a ``lang`` column on every row says whose curation the row is (it survives
"save as CSV" and a deleted or edited ``about`` sheet, so a sheet can never be applied to another language), a
``version`` column lets the import refuse rows changed in the database since the export, a hidden
``fingerprint`` column tells untouched rows from edited ones, and every text cell is written as a string (a
candidate such as ``=HYPERLINK(...)`` must never become a live formula). A cell longer than a spreadsheet holds
is refused, never cut (a cut cell would come back as an edit that deletes data).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell, MergedCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from annotator import __version__
from annotator.atomic_files import atomic_file, cannot_write, unique_path
from annotator.context import ProjectContext
from annotator.data_export.sheet_names import sheet_file_name
from annotator.domain.limits import SPREADSHEET_CELL_LIMIT
from annotator.domain.model import DiscardReason, Item, ItemLanguage, Status
from annotator.domain.output_text import is_formula_like
from annotator.errors import UserError
from annotator.private_files import make_private_folder

SHEET_FORMAT = "annotator-curation-sheet"
#: 2: every row carries its language (``lang``); version-1 sheets are refused on import (re-export them).
SHEET_FORMAT_VERSION = 2
DATA_SHEET = "items"
ABOUT_SHEET = "about"
STATUS_VALUES = tuple(s.value for s in Status)
REASON_VALUES = tuple(r.value for r in DiscardReason)


@dataclass(frozen=True)
class SheetColumn:
    key: str
    header: str
    width: float
    editable: bool = False
    hidden: bool = False


COLUMNS: tuple[SheetColumn, ...] = (
    SheetColumn("id", "id", 22),
    SheetColumn("sentence", "sentence", 60),
    SheetColumn("target", "target", 14),
    SheetColumn("lemma", "lemma", 14),
    SheetColumn("pos", "pos", 7),
    SheetColumn("gloss", "gloss", 45),
    SheetColumn("synset", "synset", 15),
    SheetColumn("good", "GOOD", 32, editable=True),
    SheetColumn("bad", "BAD", 32, editable=True),
    SheetColumn("status", "status", 13, editable=True),
    SheetColumn("reason", "reason", 20, editable=True),
    SheetColumn("note", "note", 36, editable=True),
    SheetColumn("lang", "lang", 6),
    SheetColumn("version", "version", 9),
    SheetColumn("fingerprint", "fingerprint", 12, hidden=True),
)
COLUMN_INDEX = {column.key: index for index, column in enumerate(COLUMNS, start=1)}

_WRAP = Alignment(wrap_text=True, vertical="top")
_HEADER_FONT = Font(bold=True)
_HEADER_FILL = PatternFill("solid", fgColor="D9D9D9")
_READ_ONLY_FILL = PatternFill("solid", fgColor="F2F2F2")
_EDITABLE_HEADER_FILL = PatternFill("solid", fgColor="FFF2CC")


def put_text(cell: Cell | MergedCell, text: str) -> None:
    """Store ``text`` as a string cell whatever it starts with (openpyxl would store ``=…`` as a formula)."""
    if not text:
        return  # an empty cell, not an empty string
    cell.value = ILLEGAL_CHARACTERS_RE.sub("", text)
    cell.data_type = "s"
    if is_formula_like(text):
        cell.quotePrefix = True  # spreadsheet programs keep showing (and re-saving) it as text


def note_of(state: ItemLanguage) -> str:
    if state.status is Status.DISCUSS:
        return state.discuss_note
    if state.status is Status.DISCARDED:
        return state.discard_note
    return ""


def reason_of(state: ItemLanguage) -> str:
    return state.discard_reason.value if state.status is Status.DISCARDED and state.discard_reason else ""


def normalise_note(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def row_fingerprint(good: Sequence[str], bad: Sequence[str], status: str, reason: str, note: str) -> str:
    """What the row said when exported, in normalised form: an import skips rows whose content still matches."""
    payload = json.dumps([list(good), list(bad), status, reason, normalise_note(note)], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def sheet_values(item: Item, state: ItemLanguage) -> dict[str, Any]:
    good = [entry.format() for entry in state.good]
    bad = [entry.format() for entry in state.bad]
    status, reason, note = state.status.value, reason_of(state), ILLEGAL_CHARACTERS_RE.sub("", note_of(state))
    return {
        "id": item.id,
        "sentence": item.sentence,
        "target": item.target.text,
        "lemma": item.target.lemma,
        "pos": item.target.pos,
        "gloss": item.gloss,
        "synset": item.synset,
        "good": "\n".join(good),
        "bad": "\n".join(bad),
        "status": status,
        "reason": reason,
        "note": note,
        "lang": state.lang,
        "version": state.version,
        "fingerprint": row_fingerprint(good, bad, status, reason, note),
    }


def check_language(project: ProjectContext, lang: str) -> str:
    lang = lang.strip().upper()
    languages = project.settings().languages
    if lang not in languages:
        raise UserError(f"{lang!r} is not a language of this project ({', '.join(languages)}).")
    return lang


def _rows(project: ProjectContext, lang: str) -> list[tuple[Item, ItemLanguage]]:
    """Every included item in import order (the translator's queue order) with its state in ``lang``."""
    with project.db.read() as conn:
        items = [item for item in project.repo.list_items(conn) if not item.excluded]
        states = {state.item_id: state for state in project.repo.iter_item_languages(conn, lang)}
    return [(item, states.get(item.id) or ItemLanguage(item.id, lang)) for item in items]


class SheetCellTooLongError(UserError):
    """Some cells would exceed what a spreadsheet cell holds; nothing was written (a cut cell would lose data)."""

    def __init__(self, lang: str, cells: list[tuple[str, str, int]]) -> None:
        self.cells = cells
        listed = "\n".join(
            f"  item {item_id!r}, column {column}: {length:,} characters" for item_id, column, length in cells
        )
        super().__init__(
            f"The {lang} sheet was not written: {len(cells)} cell(s) hold more than the {SPREADSHEET_CELL_LIMIT:,} "
            f"characters a spreadsheet cell can, and would come back cut:\n{listed}\n"
            "Shorten them in the app (remove candidates, shorten the note), then export again."
        )


def _too_long(table: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """(item id, column header, length) of every cell the sheet cannot hold whole."""
    found = []
    for values in table:
        for column in COLUMNS:
            value = values[column.key]
            if isinstance(value, str) and len(ILLEGAL_CHARACTERS_RE.sub("", value)) > SPREADSHEET_CELL_LIMIT:
                found.append((values["id"], column.header, len(value)))
    return found


def _write_about(workbook: Workbook, project: ProjectContext, lang: str, rows: int, created: datetime) -> None:
    about = workbook.create_sheet(ABOUT_SHEET)
    entries = [
        ("format", SHEET_FORMAT),
        ("format_version", str(SHEET_FORMAT_VERSION)),
        ("language", lang),
        ("project", project.settings().name),
        ("exported_at", created.isoformat().replace("+00:00", "Z")),
        ("tool_version", __version__),
        ("rows", str(rows)),
        ("", ""),
        ("how to edit", "Edit GOOD and BAD (one candidate per line in the cell), status, reason and note only."),
        ("", "Cross-PoS candidates are written [text]_TAG, e.g. [sparare]_VERB; '*' stands for any words."),
        ("", "status: pending, in_progress, done, discuss (note required), discarded (reason required)."),
        ("", "reason: idiom, proper_noun, insufficient_context, other (note required)."),
        ("", "Do not edit id, lang or version; rows changed by someone else since this export are refused."),
        ("", "Every row names its language (lang): a sheet is only ever applied to that language."),
        ("", "Import: annotator sheet import FILE --user NAME (all rows are checked first; nothing is applied if "),
        ("", "any row is wrong, and every wrong row is listed)."),
    ]
    for index, (key, value) in enumerate(entries, start=1):
        put_text(about.cell(index, 1), key)
        put_text(about.cell(index, 2), value)
    about.column_dimensions["A"].width = 16
    about.column_dimensions["B"].width = 110
    about["A1"].font = _HEADER_FONT


def build_workbook(project: ProjectContext, lang: str) -> Workbook:
    """The workbook for ``lang``: data sheet first (so any reader finds it), then an ``about`` sheet."""
    lang = check_language(project, lang)
    table = [sheet_values(item, state) for item, state in _rows(project, lang)]
    too_long = _too_long(table)
    if too_long:
        raise SheetCellTooLongError(lang, too_long)
    created = datetime.now(UTC).replace(microsecond=0)
    workbook = Workbook()
    sheet = workbook.active
    if not isinstance(sheet, Worksheet):  # a new workbook's one sheet is a worksheet; openpyxl types it loosely
        raise TypeError("a new workbook without a worksheet")
    sheet.title = DATA_SHEET
    for index, column in enumerate(COLUMNS, start=1):
        cell = sheet.cell(1, index)
        put_text(cell, column.header)
        cell.font = _HEADER_FONT
        cell.fill = _EDITABLE_HEADER_FILL if column.editable else _HEADER_FILL
        dimension = sheet.column_dimensions[get_column_letter(index)]
        dimension.width = column.width
        dimension.hidden = column.hidden
    for row_number, values in enumerate(table, start=2):
        for index, column in enumerate(COLUMNS, start=1):
            cell = sheet.cell(row_number, index)
            value = values[column.key]
            if isinstance(value, str):
                put_text(cell, value)
            else:
                cell.value = value
            cell.alignment = _WRAP
            if not column.editable:
                cell.fill = _READ_ONLY_FILL
    last = len(table) + 1
    sheet.freeze_panes = "B2"
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{last}"
    if table:
        _add_list_validation(sheet, "status", STATUS_VALUES, last, allow_blank=False)
        _add_list_validation(sheet, "reason", REASON_VALUES, last, allow_blank=True)
    _write_about(workbook, project, lang, len(table), created)
    return workbook


def _add_list_validation(sheet: Worksheet, key: str, values: Sequence[str], last: int, allow_blank: bool) -> None:
    letter = get_column_letter(COLUMN_INDEX[key])
    validation = DataValidation(
        type="list",
        formula1='"' + ",".join(values) + '"',
        allow_blank=allow_blank,
        showErrorMessage=True,
        errorTitle=f"Invalid {key}",
        error=f"Choose one of: {', '.join(values)}",
    )
    sheet.add_data_validation(validation)
    validation.add(f"{letter}2:{letter}{last}")


def sheet_bytes(project: ProjectContext, lang: str) -> tuple[str, bytes]:
    """(file name, workbook bytes) for a download button."""
    workbook = build_workbook(project, lang)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return sheet_file_name(lang), buffer.getvalue()


def export_sheet(project: ProjectContext, lang: str, out_dir: Path | str | None = None) -> Path:
    """Write ``sheet-<LANG>-<time>.xlsx`` into ``out_dir`` (default ``DATA/exports/``, beside the project)
    atomically; returns its path."""
    workbook = build_workbook(project, lang)
    folder = Path(out_dir) if out_dir is not None else project.data_dir / "exports"
    name = sheet_file_name(lang)
    try:
        make_private_folder(folder)
        path = unique_path(folder, name.removesuffix(".xlsx"), ".xlsx")
        with atomic_file(path) as temporary:
            workbook.save(temporary)
    except OSError as error:  # the folder is a file, cannot be created, is read-only, the disk is full…
        raise cannot_write(folder, error) from error
    return path
