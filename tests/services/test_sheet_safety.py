"""Issue 14 items 1 and 3 on the spreadsheet round trip: a sheet is only ever applied to its own language (every
row says which), and nothing a spreadsheet cannot hold is cut: the export refuses it, the import refuses a cut
cell. Refusals leave the database byte-identical (``dump``)."""

from __future__ import annotations

import csv
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from openpyxl import load_workbook
from project_helpers import dump
from sheet_helpers import Sheet, states, user

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.spreadsheet import ABOUT_SHEET, DATA_SHEET, SheetCellTooLongError, export_sheet
from annotator.data_import.table_rows import FileFormatError
from annotator.domain.limits import SPREADSHEET_CELL_LIMIT
from annotator.domain.model import CandidateEntry, Origin, Status
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.sheet_import import SheetImportError, import_sheet


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sheet-safety-demo") / "data"
    create_demo(str(path), quiet=True)
    return path


@pytest.fixture
def demo(demo_data: Path, tmp_path: Path) -> Project:
    data = tmp_path / "data"
    shutil.copytree(demo_data, data)
    return Project.open(data)


def lead(project: Project) -> CurationService:
    return CurationService(project, user(project, "lead"))


def edited_it_sheet(demo: Project, tmp_path: Path) -> Sheet:
    """An IT sheet with one real edit, as a translator would send it back."""
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path / "out"))
    sheet.set("shot-whiskey", "GOOD", "goccio\ncicchetto")
    return sheet


def save_as_csv(sheet: Sheet, name: str) -> Path:
    """What "save as CSV" in a spreadsheet program keeps: the first (data) sheet's values, nothing else."""
    path = sheet.path.with_name(name)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        for row in sheet.workbook[DATA_SHEET].iter_rows(values_only=True):
            writer.writerow(["" if value is None else value for value in row])
    return path


# --- item 1: the sheet's language ------------------------------------------------------------------------


def test_an_it_sheet_saved_as_csv_and_imported_as_de_is_refused_with_every_row(
    demo: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = edited_it_sheet(demo, tmp_path)
    path = save_as_csv(sheet, "it-edited.csv")
    before, german = dump(demo), states(demo, "DE")
    assert main(["--data", str(demo.data_dir), "sheet", "import", str(path), "--lang", "DE", "--user", "lead"]) == 2
    err = capsys.readouterr().err
    assert "it-edited.csv" in err and "nothing was applied" in err and "Traceback" not in err
    assert f"row {sheet.rows['shot-whiskey']}, column 'lang'" in err and "[wrong_language]" in err
    assert "this row belongs to IT, but the sheet is being imported as DE" in err
    assert dump(demo) == before

    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead(demo), path, "DE")
    assert {(p.row, p.column, p.rule) for p in caught.value.problems} == {
        (row, "lang", "wrong_language") for row in sheet.rows.values()
    }
    assert dump(demo) == before

    # The same CSV as what it is (said, or read from its rows) applies exactly the one edit.
    report = import_sheet(lead(demo), path)
    assert [(c.item_id, c.actions) for c in report.changed] == [("shot-whiskey", ("edit",))]
    assert [e.format() for e in states(demo, "IT")["shot-whiskey"].good] == ["goccio", "cicchetto"]
    assert states(demo, "DE") == german


def test_an_xlsx_with_its_about_sheet_deleted_is_checked_row_by_row(demo: Project, tmp_path: Path) -> None:
    sheet = edited_it_sheet(demo, tmp_path)
    del sheet.workbook[ABOUT_SHEET]
    path = sheet.save("no-about.xlsx")
    before = dump(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead(demo), path, "DE")
    assert {p.rule for p in caught.value.problems} == {"wrong_language"}
    assert len(caught.value.problems) == len(sheet.rows)
    assert dump(demo) == before


def test_an_xlsx_whose_about_sheet_was_edited_to_another_language_is_refused(demo: Project, tmp_path: Path) -> None:
    sheet = edited_it_sheet(demo, tmp_path)
    about = sheet.workbook[ABOUT_SHEET]
    [language_row] = [row for row in about.iter_rows() if row[0].value == "language"]
    language_row[1].value = "DE"
    path = sheet.save("about-says-de.xlsx")
    before = dump(demo)
    for lang in (None, "DE"):
        with pytest.raises(SheetImportError) as caught:
            import_sheet(lead(demo), path, lang)
        assert {(p.column, p.rule) for p in caught.value.problems} == {("lang", "wrong_language")}
    assert dump(demo) == before


def test_a_row_whose_language_was_blanked_or_changed_is_refused(demo: Project, tmp_path: Path) -> None:
    sheet = edited_it_sheet(demo, tmp_path)
    sheet.set("head-stream", "lang", None)
    sheet.set("bank-river", "lang", "DE")
    path = sheet.save("rows.xlsx")
    before = dump(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead(demo), path)
    assert {(p.row, p.rule) for p in caught.value.problems} == {
        (sheet.rows["head-stream"], "missing_language"),
        (sheet.rows["bank-river"], "wrong_language"),
    }
    assert dump(demo) == before


@pytest.mark.parametrize("old_format", [True, False], ids=["format-1 sheet", "lang column deleted"])
def test_a_sheet_without_row_languages_must_be_re_exported(demo: Project, tmp_path: Path, old_format: bool) -> None:
    sheet = edited_it_sheet(demo, tmp_path)
    sheet.sheet.delete_cols(sheet.columns["lang"])
    if old_format:
        about = sheet.workbook[ABOUT_SHEET]
        [version_row] = [row for row in about.iter_rows() if row[0].value == "format_version"]
        version_row[1].value = "1"
    path = sheet.save("old.xlsx")
    before = dump(demo)
    with pytest.raises(FileFormatError, match=r"old\.xlsx: row 1: no 'lang' column") as caught:
        import_sheet(lead(demo), path, "IT")
    assert "Re-export the sheet" in str(caught.value) and "nothing was applied" in str(caught.value)
    assert ("format-1 sheet" in str(caught.value)) is old_format
    assert dump(demo) == before


# --- item 3: nothing cut ---------------------------------------------------------------------------------


def store_good(project: Project, item_id: str, lang: str, texts: list[str]) -> None:
    """Store a GOOD set the way pre-population does (from the lexicon, past the service's limits)."""
    with project.db.write() as conn:
        state = project.repo.get_item_language(conn, item_id, lang)
        good = tuple(CandidateEntry(text, None, Origin.LEXICON, ("bn:00057755n",)) for text in texts)
        project.repo.save_item_language(conn, replace(state, good=good), state.version, "cli:test", "prepopulate")


def test_a_402_candidate_good_set_that_fits_a_cell_round_trips_whole(demo: Project, tmp_path: Path) -> None:
    texts = [f"goccio numero {n:03d}" for n in range(402)]
    store_good(demo, "shot-whiskey", "IT", texts)
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path / "out"))
    assert sheet.cell("shot-whiskey", "GOOD").value == "\n".join(texts)
    before = dump(demo)
    assert import_sheet(lead(demo), sheet.save("untouched.xlsx")).changed == []
    assert dump(demo) == before

    sheet.set("shot-whiskey", "GOOD", "\n".join([*texts, "cicchetto"]))
    import_sheet(lead(demo), sheet.save("one-more.xlsx"))
    good = states(demo, "IT")["shot-whiskey"].good
    assert [e.text for e in good] == [*texts, "cicchetto"]
    assert {e.origin for e in good[:402]} == {Origin.LEXICON} and good[402].origin is Origin.TRANSLATOR


def test_a_402_candidate_good_set_too_long_for_a_cell_is_refused_by_the_export(demo: Project, tmp_path: Path) -> None:
    texts = [f"bicchierino da liquore numero {n:03d} " + "x" * 60 for n in range(402)]  # 94 chars each
    store_good(demo, "shot-whiskey", "IT", texts)
    out = tmp_path / "out"
    before = dump(demo)
    with pytest.raises(SheetCellTooLongError) as caught:
        export_sheet(demo, "IT", out)
    assert caught.value.cells == [("shot-whiskey", "GOOD", 402 * 94 + 401)]
    assert "item 'shot-whiskey', column GOOD: 38,189 characters" in str(caught.value)
    assert not out.exists() or not list(out.iterdir())  # nothing written, not even a temporary file
    assert dump(demo) == before
    assert states(demo, "IT")["shot-whiskey"].good[-1].text == texts[-1]


def test_a_cell_cut_at_the_spreadsheet_limit_is_never_applied(demo: Project, tmp_path: Path) -> None:
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path / "out"))
    long_good = "\n".join(f"bicchierino numero {n:03d} " + "x" * 70 for n in range(402))
    sheet.set("shot-whiskey", "GOOD", long_good)  # openpyxl cuts it to 32,767, as a spreadsheet program does
    flagged = lead(demo).flag_discuss("head-stream", "IT", "Short note.", states(demo, "IT")["head-stream"].version)
    assert flagged.status is Status.DISCUSS
    sheet.set("head-stream", "status", "discuss")
    sheet.set("head-stream", "note", "n" * 49_999)
    path = sheet.save("cut.xlsx")
    assert len(load_workbook(path)[DATA_SHEET].cell(sheet.rows["shot-whiskey"], sheet.columns["GOOD"]).value) == (
        SPREADSHEET_CELL_LIMIT
    )
    before = dump(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead(demo), path)
    assert {(p.row, p.column, p.rule) for p in caught.value.problems} == {
        (sheet.rows["shot-whiskey"], "GOOD", "cell_full"),
        (sheet.rows["head-stream"], "note", "cell_full"),
    }
    assert "probably cut off" in str(caught.value)
    assert dump(demo) == before


def test_a_sheet_note_over_the_note_limit_is_refused(demo: Project, tmp_path: Path) -> None:
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path / "out"))
    sheet.set("head-stream", "status", "discuss")
    sheet.set("head-stream", "note", "n" * 6_000)
    before = dump(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead(demo), sheet.save("long-note.xlsx"))
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [
        (sheet.rows["head-stream"], "note", "note_too_long")
    ]
    assert dump(demo) == before
