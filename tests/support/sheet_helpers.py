"""Reading and writing the curation spreadsheet in the sheet tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from annotator.data_export.spreadsheet import DATA_SHEET
from annotator.domain.model import ItemLanguage, User
from annotator.project import Project


def user(project: Project, name: str) -> User:
    with project.db.read() as conn:
        found = project.repo.get_user(conn, name)
    assert found is not None
    return found


def states(project: Project, lang: str) -> dict[str, ItemLanguage]:
    with project.db.read() as conn:
        return {s.item_id: s for s in project.repo.iter_item_languages(conn, lang)}


@dataclass
class Sheet:
    """An exported sheet opened for editing, addressed by item id and header."""

    path: Path
    workbook: Workbook
    sheet: Worksheet
    rows: dict[str, int]
    columns: dict[str, int]

    @classmethod
    def open(cls, path: Path) -> Sheet:
        workbook = load_workbook(path)
        sheet = workbook[DATA_SHEET]
        columns = {sheet.cell(1, c).value: c for c in range(1, sheet.max_column + 1)}
        rows = {sheet.cell(r, 1).value: r for r in range(2, sheet.max_row + 1)}
        return cls(path, workbook, sheet, rows, columns)

    def cell(self, item: str, header: str):  # an openpyxl cell
        return self.sheet.cell(self.rows[item], self.columns[header])

    def set(self, item: str, header: str, value: object) -> None:
        self.cell(item, header).value = value  # as typed into a spreadsheet: '=…' becomes a formula cell

    def save(self, name: str) -> Path:
        path = self.path.with_name(name)
        self.workbook.save(path)
        return path
