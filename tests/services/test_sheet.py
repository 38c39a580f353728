"""Spreadsheet round trip (SPEC §7): export a language's sheet, edit it with openpyxl as a translator would,
import it back — validated, all or nothing, stale rows refused, formula-like text kept as text."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook
from sheet_helpers import Sheet, states, user

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.spreadsheet import ABOUT_SHEET, DATA_SHEET, export_sheet
from annotator.domain.model import DiscardReason, Origin, Status
from annotator.errors import PermissionDenied, UserError
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.sheet_import import SheetImportError, import_sheet

HYPERLINK = '=HYPERLINK("https://example.org/goccio","goccio")'


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sheet-demo") / "data"
    create_demo(str(path), quiet=True)
    return path


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path) -> Project:
    data = tmp_path / "data"
    shutil.copytree(demo_template, data)
    return Project.open(data)


def table_counts(project: Project) -> dict[str, int]:
    with project.db.read() as conn:
        return project.repo.table_counts(conn)


def test_round_trip_reports_the_invalid_row_then_applies_exactly_the_edits(demo: Project, tmp_path: Path) -> None:
    translator = CurationService(demo, user(demo, "translator"))
    sheet = Sheet.open(export_sheet(demo, "it", tmp_path))
    assert sheet.cell("shot-whiskey", "GOOD").value == "goccio\nbicchierino"
    sheet.set("shot-whiskey", "GOOD", "goccio\ncicchetto")  # remove bicchierino, add cicchetto
    sheet.set("head-stream", "GOOD", f"{HYPERLINK}\nfonte\nsorgente")  # formula-like text, typed as a formula
    sheet.set("bank-river", "GOOD", "riva\nsponda\nprend*")  # invalid: '*' inside a word
    sheet.set("match-pipe", "status", "done")
    edited = sheet.save("edited.xlsx")
    before_it, before_counts = states(demo, "IT"), table_counts(demo)

    with pytest.raises(SheetImportError) as caught:
        import_sheet(translator, edited)
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [
        (sheet.rows["bank-river"], "GOOD", "wildcard_token")
    ]
    assert "prend*" in str(caught.value) and "nothing was applied" in str(caught.value)
    assert states(demo, "IT") == before_it and table_counts(demo) == before_counts

    sheet.set("bank-river", "GOOD", "riva\nsponda")  # fixed: back to what it was
    report = import_sheet(translator, sheet.save("fixed.xlsx"))
    assert {c.item_id: c.actions for c in report.changed} == {
        "shot-whiskey": ("edit",),
        "head-stream": ("edit",),
        "match-pipe": ("done",),
    }
    assert report.unchanged == len(sheet.rows) - 3
    after = states(demo, "IT")
    shot = after["shot-whiskey"]
    assert [(e.format(), e.origin) for e in shot.good] == [("goccio", Origin.LEXICON), ("cicchetto", Origin.TRANSLATOR)]
    assert shot.good[0].synsets == before_it["shot-whiskey"].good[0].synsets  # provenance kept
    assert shot.bad == before_it["shot-whiskey"].bad and shot.status is Status.IN_PROGRESS
    assert [e.format() for e in after["head-stream"].good] == [HYPERLINK, "fonte", "sorgente"]
    assert after["match-pipe"].status is Status.DONE
    changed = {"shot-whiskey", "head-stream", "match-pipe"}
    assert all(after[i].version == before_it[i].version for i in after if i not in changed)
    with demo.db.read() as conn:
        history = demo.repo.history(conn, "shot-whiskey", "IT")
    assert (history[-1].user, history[-1].action) == ("translator", "sheet_edit")

    # Re-exported, the formula-like candidate is a string cell, not a formula.
    again = export_sheet(demo, "IT", tmp_path)
    cell = Sheet.open(again).cell("head-stream", "GOOD")
    assert cell.data_type == "s" and cell.value == f"{HYPERLINK}\nfonte\nsorgente"
    with zipfile.ZipFile(again) as archive:
        xml = archive.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in xml and "HYPERLINK" in xml

    # The same sheet imported again changes nothing: its rows now equal the database.
    assert import_sheet(translator, sheet.path.with_name("fixed.xlsx")).changed == []


def test_a_row_changed_in_the_database_since_the_export_is_refused_as_stale(demo: Project, tmp_path: Path) -> None:
    translator = CurationService(demo, user(demo, "translator"))
    lead = CurationService(demo, user(demo, "lead"))
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path))
    current = states(demo, "IT")["shot-whiskey"]
    lead.replace_candidates("shot-whiskey", "IT", ["goccio", "bicchierino", "sorso"], [], current.version)

    sheet.set("shot-whiskey", "GOOD", "goccio")
    sheet.set("head-stream", "GOOD", "fonte")
    before = states(demo, "IT")
    with pytest.raises(SheetImportError) as caught:
        import_sheet(translator, sheet.save("stale.xlsx"))
    [problem] = caught.value.problems
    assert (problem.row, problem.rule) == (sheet.rows["shot-whiskey"], "stale")
    v = current.version
    assert "lead" in problem.message and f"sheet version {v}, now {v + 1}" in problem.message
    assert states(demo, "IT") == before  # head-stream was fine but is not applied either

    # Untouched, the stale row is a no-op: the lead's later change is not undone.
    sheet.set("shot-whiskey", "GOOD", "goccio\nbicchierino")
    report = import_sheet(translator, sheet.save("only-head.xlsx"))
    assert [c.item_id for c in report.changed] == ["head-stream"]
    assert [e.format() for e in states(demo, "IT")["shot-whiskey"].good] == ["goccio", "bicchierino", "sorso"]


def test_every_bad_row_is_listed_with_its_rule(demo: Project, tmp_path: Path) -> None:
    lead = CurationService(demo, user(demo, "lead"))
    sheet = Sheet.open(export_sheet(demo, "DE", tmp_path))
    sheet.set("shot-whiskey", "BAD", "Schlag\nschlückchen")  # also in GOOD (case-insensitive identity)
    sheet.set("head-stream", "status", "discarded")  # no reason
    sheet.set("take-off-thanksgiving", "status", "discuss")  # no note
    sheet.set("shot-flu", "status", "finished")
    sheet.set("head-department", "version", "three")
    sheet.set("bank-river", "status", "discarded")
    sheet.set("bank-river", "reason", "other")  # other needs a note
    sheet.set("spring-water", "GOOD", "[Quelle]_NOUN")  # not cross-PoS for a NOUN target
    sheet.set("plant-automobiles", "reason", "idiom")  # ignored: the status is not discarded
    last = sheet.sheet.max_row + 1
    sheet.sheet.cell(last, 1).value = "no-such-item"
    sheet.sheet.cell(last + 1, 1).value = "match-pipe"  # a second row for the same item
    for added in (last, last + 1):
        sheet.sheet.cell(added, sheet.columns["lang"]).value = "DE"
    sheet.sheet.cell(last + 1, sheet.columns["version"]).value = 0
    before = table_counts(demo), states(demo, "DE")

    with pytest.raises(SheetImportError) as caught:
        import_sheet(lead, sheet.save("bad.xlsx"))
    found = {(p.row, p.rule) for p in caught.value.problems}
    assert found == {
        (sheet.rows["shot-whiskey"], "good_and_bad"),
        (sheet.rows["head-stream"], "reason_required"),
        (sheet.rows["take-off-thanksgiving"], "note_required"),
        (sheet.rows["shot-flu"], "bad_status"),
        (sheet.rows["head-department"], "bad_version"),
        (sheet.rows["bank-river"], "note_required"),
        (sheet.rows["spring-water"], "not_cross_pos"),
        (last, "unknown_item"),
        (last + 1, "duplicate_row"),
    }
    assert (table_counts(demo), states(demo, "DE")) == before


def test_status_reason_and_note_changes_go_through_the_workflow(demo: Project, tmp_path: Path) -> None:
    lead = CurationService(demo, user(demo, "lead"))
    done = states(demo, "ES")["bat-fence"]
    lead.mark_done("bat-fence", "ES", done.version)
    sheet = Sheet.open(export_sheet(demo, "ES", tmp_path))
    sheet.set("shot-whiskey", "status", "Discarded")
    sheet.set("shot-whiskey", "reason", "proper noun")
    sheet.set("head-stream", "status", "discuss")
    sheet.set("head-stream", "note", "Is 'nacimiento' better here?")
    sheet.set("bank-river", "status", "done")
    sheet.set("bat-fence", "GOOD", "bate\nbate de béisbol")  # edit a done row: reopened, edited, done again
    report = import_sheet(lead, sheet.save("statuses.xlsx"))
    assert {c.item_id: c.actions for c in report.changed} == {
        "shot-whiskey": ("discard",),
        "head-stream": ("discuss",),
        "bank-river": ("done",),
        "bat-fence": ("reopen", "edit", "done"),
    }
    after = states(demo, "ES")
    assert (after["shot-whiskey"].status, after["shot-whiskey"].discard_reason) == (
        Status.DISCARDED,
        DiscardReason.PROPER_NOUN,
    )
    assert (after["head-stream"].status, after["head-stream"].discuss_note) == (
        Status.DISCUSS,
        "Is 'nacimiento' better here?",
    )
    assert after["bank-river"].status is Status.DONE
    assert after["bat-fence"].status is Status.DONE and "bate de béisbol" in [
        e.format() for e in after["bat-fence"].good
    ]


def test_a_refusal_while_applying_rolls_back_the_rows_already_applied(demo: Project, tmp_path: Path) -> None:
    lead = CurationService(demo, user(demo, "lead"))
    translator = CurationService(demo, user(demo, "translator"))
    flagged = lead.flag_discuss("head-stream", "IT", "Check the register.", states(demo, "IT")["head-stream"].version)
    assert flagged.status is Status.DISCUSS
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path))
    sheet.set("shot-whiskey", "GOOD", "goccio\nbicchierino\ncicchetto")  # fine, and applied first
    sheet.set("head-stream", "status", "done")  # only a lead resolves DISCUSS: refused by the service
    before = states(demo, "IT"), table_counts(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(translator, sheet.save("refused.xlsx"))
    [problem] = caught.value.problems
    assert (problem.row, problem.rule) == (sheet.rows["head-stream"], "permission")
    assert (states(demo, "IT"), table_counts(demo)) == before  # shot-whiskey's edit was rolled back too


def test_a_translator_cannot_import_another_languages_sheet(demo: Project, tmp_path: Path) -> None:
    path = export_sheet(demo, "ES", tmp_path)
    with pytest.raises(PermissionDenied, match="ES"):
        import_sheet(CurationService(demo, user(demo, "translator")), path)


def test_sheet_layout(demo: Project, tmp_path: Path) -> None:
    path = export_sheet(demo, "IT", tmp_path)
    assert path.name.startswith("sheet-IT-") and path.suffix == ".xlsx"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    workbook = load_workbook(path)
    assert workbook.sheetnames == [DATA_SHEET, ABOUT_SHEET]
    sheet = Sheet.open(path)
    ws = sheet.sheet
    assert ws.freeze_panes == "B2"
    assert list(sheet.columns)[:2] == ["id", "sentence"] and {
        "GOOD",
        "BAD",
        "status",
        "reason",
        "note",
        "version",
    } <= set(sheet.columns)
    assert ws.cell(1, 1).font.bold
    assert ws.column_dimensions["B"].width == 60
    letter = {name: ws.cell(1, c).column_letter for name, c in sheet.columns.items()}
    assert ws.column_dimensions[letter["fingerprint"]].hidden
    assert sheet.cell("shot-whiskey", "GOOD").alignment.wrap_text
    assert sheet.cell("shot-whiskey", "version").value == states(demo, "IT")["shot-whiskey"].version == 1
    validations = {dv.formula1: str(dv.sqref) for dv in ws.data_validations.dataValidation}
    last = ws.max_row
    assert validations == {
        '"pending,in_progress,done,discuss,discarded"': f"{letter['status']}2:{letter['status']}{last}",
        '"idiom,proper_noun,insufficient_context,other"': f"{letter['reason']}2:{letter['reason']}{last}",
    }
    about = {row[0]: row[1] for row in workbook[ABOUT_SHEET].iter_rows(values_only=True) if row[0]}
    assert about["language"] == "IT" and about["format"] == "annotator-curation-sheet"
    assert len(sheet.rows) == 18  # every item, in the translators' queue order
    assert list(sheet.rows)[:3] == ["shot-whiskey", "head-stream", "take-off-thanksgiving"]


def test_sheet_commands(demo: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(demo.data_dir)
    out = tmp_path / "sheets"
    assert main(["--data", data, "sheet", "export", "--lang", "it,de", "--out", str(out)]) == 0
    files = sorted(out.glob("*.xlsx"))
    assert [f.name[:9] for f in files] == ["sheet-DE-", "sheet-IT-"]
    sheet = Sheet.open(files[1])
    sheet.set("shot-whiskey", "BAD", "[goccio]_noun")
    bad = sheet.save("bad.xlsx")
    capsys.readouterr()
    assert main(["--data", data, "sheet", "import", str(bad), "--user", "translator"]) == 2
    err = capsys.readouterr().err
    assert f"row {sheet.rows['shot-whiskey']}, column 'BAD'" in err and "[not_cross_pos]" in err

    sheet.set("shot-whiskey", "BAD", "sparo\n[sparare]_v")
    good = sheet.save("good.xlsx")
    assert main(["--data", data, "sheet", "import", str(good), "--user", "nobody"]) == 2
    assert "No user named 'nobody'" in capsys.readouterr().err
    assert main(["--data", data, "sheet", "import", str(good)]) == 2  # the project has accounts: say who
    assert main(["--data", data, "sheet", "import", str(good), "--user", "translator"]) == 0
    assert "1 row(s) applied" in capsys.readouterr().out
    assert [e.format() for e in states(demo, "IT")["shot-whiskey"].bad] == ["sparo", "[sparare]_VERB"]


def comments(project: Project, item_id: str, lang: str) -> list[str]:
    with project.db.read() as conn:
        return [c.text for c in project.repo.comments(conn, item_id, lang)]


def test_a_changed_discuss_note_is_applied_once_and_a_reimport_is_a_no_op(demo: Project, tmp_path: Path) -> None:
    translator = CurationService(demo, user(demo, "translator"))  # flags it, so may rewrite the note
    translator.flag_discuss("head-stream", "IT", "Check the register.", states(demo, "IT")["head-stream"].version)
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path))
    assert sheet.cell("head-stream", "note").value == "Check the register."
    sheet.set("head-stream", "note", "Is 'sorgente' too formal here?")
    edited = sheet.save("note.xlsx")

    report = import_sheet(translator, edited)
    assert {c.item_id: c.actions for c in report.changed} == {"head-stream": ("note",)}
    after = states(demo, "IT")["head-stream"]
    assert (after.status, after.discuss_note) == (Status.DISCUSS, "Is 'sorgente' too formal here?")
    assert comments(demo, "head-stream", "IT") == ["Check the register.", "Is 'sorgente' too formal here?"]

    # The same sheet again (twice): nothing applied, no comment added, no version bump.
    for _ in range(2):
        assert import_sheet(translator, edited).changed == []
    assert comments(demo, "head-stream", "IT") == ["Check the register.", "Is 'sorgente' too formal here?"]
    assert states(demo, "IT")["head-stream"].version == after.version
    # A fresh export shows the new note.
    again = Sheet.open(export_sheet(demo, "IT", tmp_path / "again"))
    assert again.cell("head-stream", "note").value == "Is 'sorgente' too formal here?"


def test_the_data_sheet_is_read_by_name_whatever_the_worksheet_order(demo: Project, tmp_path: Path) -> None:
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path))
    sheet.set("shot-whiskey", "GOOD", "goccio\ncicchetto")
    sheet.workbook.move_sheet(ABOUT_SHEET, offset=-1)
    assert sheet.workbook.sheetnames == [ABOUT_SHEET, DATA_SHEET]
    report = import_sheet(CurationService(demo, user(demo, "translator")), sheet.save("reordered.xlsx"))
    assert [(c.item_id, c.actions) for c in report.changed] == [("shot-whiskey", ("edit",))]
    assert [e.format() for e in states(demo, "IT")["shot-whiskey"].good] == ["goccio", "cicchetto"]


def test_a_missing_or_non_workbook_file_says_so(demo: Project, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    translator = CurationService(demo, user(demo, "translator"))
    missing = tmp_path / "missing.xlsx"
    with pytest.raises(UserError, match="no such file") as caught:
        import_sheet(translator, missing)
    assert str(missing) in str(caught.value)
    text = tmp_path / "notes.xlsx"
    text.write_text("id,GOOD\nshot-whiskey,goccio\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"notes\.xlsx: not a valid \.xlsx workbook"):
        import_sheet(translator, text)
    # The command line: the same message, exit code 2, no traceback.
    data = str(demo.data_dir)
    assert main(["--data", data, "sheet", "import", str(missing), "--user", "translator"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and str(missing) in err and "Traceback" not in err and "language" not in err


@pytest.mark.parametrize("kind", ["existing file", "under a file", "under /proc"])
def test_sheet_export_to_a_folder_that_cannot_be_made_is_a_user_error(
    demo: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    file = tmp_path / "taken"
    file.write_text("not a folder", encoding="utf-8")
    out = {"existing file": file, "under a file": file / "sheets", "under /proc": Path("/proc/nope")}[kind]
    assert main(["--data", str(demo.data_dir), "sheet", "export", "--lang", "IT", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"Cannot write to {out}" in err and "Traceback" not in err
    assert file.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize("umask", [0o022, 0o002], ids=["umask-022", "umask-002"])
def test_an_exported_sheet_is_readable_by_its_owner_only(demo: Project, tmp_path: Path, umask: int) -> None:
    """Issue 14: a sheet holds the curation work; 0600 whatever the umask (its owner decides whom to share it with)."""
    old = os.umask(umask)
    try:
        path = export_sheet(demo, "IT", tmp_path / "new-folder")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700  # the folder it made
