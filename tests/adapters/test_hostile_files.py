"""Hostile and sloppy input files (issue 12; issue 14 item 11's surrogates; issue 10's column lengths).

Each file of the issue is built for real and handed to the reader that a user's file meets (item import, the
sheet round trip, snapshots, evaluation inputs): refused with a message naming the file and the limit or rule,
the database unchanged; peak memory is measured in a subprocess. Speed is bench_hostile_files.py's business.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import hostile_files as hf
import pytest
from openpyxl import Workbook
from project_helpers import SAMPLE_ITEMS, dump

from annotator.commands.project import create_demo
from annotator.data_import.items import ItemImportError, parse_item_file
from annotator.data_import.limits import InputLimitError, InputLimits
from annotator.data_import.table_rows import FileFormatError
from annotator.data_import.tables import load_table
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.evaluation.inputs import EvaluationInputError, load_dataset, load_translations, parse_dataset
from annotator.lexicon.base import LexiconError
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import Project
from annotator.services.administration import project_limits, update_project_limits
from annotator.services.importing import import_items

MB = 1024 * 1024


@pytest.fixture(scope="module")
def million(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 1,000,000-empty-ish-row workbook, built once for this module (tests copy it under their own name)."""
    return hf.xlsx_million_rows(tmp_path_factory.mktemp("million"))


def copied(source: Path, folder: Path) -> Path:
    return Path(shutil.copy(source, folder / source.name))


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile-demo") / "data"
    create_demo(str(path), quiet=True)
    return path


@pytest.fixture
def demo_project(demo_template: Path, tmp_path: Path) -> tuple[Project, User]:
    """A copy of the demo project (pre-populated) and its lead."""
    data = tmp_path / "data"
    shutil.copytree(demo_template, data)
    project = Project.open(data)
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lead")
    assert lead is not None
    return project, lead


def refused(project: Project, path: Path, *expected: str) -> UserError:
    """Import ``path``: it must be refused with a message holding the file name and ``expected``; nothing changes."""
    before = dump(project)
    with pytest.raises(UserError) as caught:
        import_items(project, path)
    message = str(caught.value)
    assert path.name in message, message
    for text in expected:
        assert text in message, message
    assert dump(project) == before
    return caught.value


# --- the three files that broke the import ------------------------------------------------------------------


def test_a_small_workbook_declaring_xfd1048576_is_read_by_its_real_cells(project: Project, tmp_path: Path) -> None:
    path = hf.xlsx_declared_dimension(tmp_path)
    assert path.stat().st_size < 6_000
    assert import_items(project, path).added == 1
    with project.db.read() as conn:
        assert [item.id for item in project.repo.list_items(conn)] == ["shot-whiskey"]


def test_a_value_in_column_xfd_is_refused_by_the_column_limit(project: Project, tmp_path: Path) -> None:
    refused(project, hf.xlsx_declared_dimension(tmp_path, "far.xlsx", far_cell=True), "16,384 columns", "max_columns")


def test_a_million_empty_ish_rows_are_refused_by_the_row_limit(project: Project, tmp_path: Path, million) -> None:
    error = refused(project, copied(million, tmp_path), "more than 200,000 rows", "max_rows")
    assert isinstance(error, InputLimitError) and error.rule == "too_many_rows"
    assert len(str(error)) < 500  # one message, not millions of problems


def test_a_300_mb_sentence_is_refused_by_the_file_size_before_reading(project: Project, tmp_path: Path) -> None:
    error = refused(project, hf.csv_long_sentence(tmp_path, 300 * MB), "300.0 MB", "max_file_mb")
    assert error.rule == "file_too_large"


@pytest.mark.parametrize("build", [hf.csv_long_sentence, hf.jsonl_long_string, hf.xlsx_long_sentence])
def test_a_cell_over_the_limit_is_refused_while_streaming(project: Project, tmp_path: Path, build) -> None:
    """40 MB is under the file limit: the cell limit stops it (a .xlsx compresses it to almost nothing)."""
    name = {"csv_long_sentence": "long.csv", "jsonl_long_string": "long.jsonl"}.get(build.__name__, "long.xlsx")
    error = refused(project, build(tmp_path, 40 * MB, name=name), "max_cell_chars")
    assert error.rule == "cell_too_long"


def test_hostile_files_stay_under_300_mb_in_a_subprocess(tmp_path: Path, million: Path) -> None:
    """The command line (a fresh interpreter) refuses each file with exit 2 and a small peak RSS."""
    data = tmp_path / "data"
    assert hf.run_cli_measured(["init", "--data", str(data)]).returncode == 0
    files = [
        (copied(million, tmp_path), "max_rows"),
        (hf.xlsx_long_sentence(tmp_path, 100 * MB), "max_cell_chars"),  # 100 MB of text in a file of 0.3 MB
        (hf.jsonl_long_string(tmp_path, 90 * MB), "max_cell_chars"),
        (hf.csv_long_sentence(tmp_path, 300 * MB), "max_file_mb"),
    ]
    for path, limit in files:
        measured = hf.run_cli_measured(["import", str(path), "--data", str(data)])
        assert measured.returncode == 2, measured.stderr
        assert path.name in measured.stderr and limit in measured.stderr and "Traceback" not in measured.stderr
        assert 0 < measured.peak_rss_mb < 300, (path.name, measured.peak_rss_mb)
        path.unlink()


def test_evaluate_refuses_huge_translations_without_holding_them(tmp_path: Path) -> None:
    """After a refusal the command line looks at both files' first line for a swapped order; that look reads a
    bounded piece of a line, so a 300 MB file or a 90 MB line is refused in a small process (it took 673 MB)."""
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(hf.DATASET_LINE) + "\n")
    for build, limit in [
        (lambda: hf.translations_long(tmp_path, 300 * MB, "big.jsonl"), "max_file_mb"),
        (lambda: hf.translations_long(tmp_path, 90 * MB), "max_cell_chars"),
    ]:
        path = build()
        measured = hf.run_cli_measured(["evaluate", str(dataset), str(path), "--out", str(tmp_path / "out")])
        assert measured.returncode == 2, measured.stderr
        assert path.name in measured.stderr and limit in measured.stderr and "Traceback" not in measured.stderr
        assert "swapped" not in measured.stderr
        assert 0 < measured.peak_rss_mb < 150, (path.name, measured.peak_rss_mb)  # the files are 90 and 300 MB
        path.unlink()


# --- ids ------------------------------------------------------------------------------------------------------


def test_each_broken_id_rule_is_named(project: Project, tmp_path: Path) -> None:
    rows = [
        hf.item("line\nbreak"),
        hf.item("   "),
        hf.item("../../etc/passwd"),
        hf.item("x" * 250),
        hf.item(" padded "),
        hf.item("zero\u200bwidth"),
        hf.item("fine-id"),
    ]
    error = refused(project, hf.items_jsonl(tmp_path, rows), "nothing was imported")
    rules = {(p.row, p.rule) for p in error.problems}
    assert rules == {
        (1, "id_control_character"),
        (2, "id_blank"),
        (3, "id_path"),
        (4, "id_too_long"),
        (5, "id_space"),
        (6, "id_not_printable"),
    }
    assert all(p.column == "id" for p in error.problems)


def test_ids_are_unique_case_insensitively_in_the_file_and_the_project(project: Project, tmp_path: Path) -> None:
    error = refused(project, hf.items_jsonl(tmp_path, [hf.item("Shot"), hf.item("shot")], "case.jsonl"))
    assert [(p.row, p.rule) for p in error.problems] == [(2, "duplicate_id")]
    assert "differs only by case from 'Shot'" in error.problems[0].message
    assert import_items(project, hf.items_jsonl(tmp_path, [hf.item("Shot")], "one.jsonl")).added == 1
    error = refused(project, hf.items_jsonl(tmp_path, [hf.item("SHOT")], "two.jsonl"))
    assert "already in the project" in error.problems[0].message
    assert import_items(project, tmp_path / "one.jsonl").unchanged == 1  # the same id again is a re-import


def test_a_300_character_source_and_a_250_character_id_are_refused(project: Project, tmp_path: Path) -> None:
    """Issue 10 acceptance 2: what the schema cannot hold is refused at import, with row, column and rule."""
    rows = [hf.item("long-source", source="s" * 300), hf.item("i" * 250)]
    error = refused(project, hf.items_jsonl(tmp_path, rows))
    assert {(p.row, p.column, p.rule) for p in error.problems} == {(1, "source", "too_long"), (2, "id", "id_too_long")}


def test_every_stored_text_column_has_its_length_rule(project: Project, tmp_path: Path) -> None:
    rows = [
        hf.item("a", lemma="l" * 201, target="shot"),
        hf.item("b", synset="bn:" + "0" * 70 + "n"),
        hf.item("c", gloss="g" * 5_001),
        hf.item("d", sentence="He poured a shot of whiskey. " + "And more. " * 200),
    ]
    error = refused(project, hf.items_jsonl(tmp_path, rows))
    assert {(p.row, p.column, p.rule) for p in error.problems} == {
        (1, "lemma", "too_long"),
        (2, "synset", "too_long"),
        (3, "gloss", "too_long"),
        (4, "sentence", "sentence_too_long"),
    }


# --- encodings, separators, offsets, surrogates -------------------------------------------------------------


def _csv_text(separator: str = ",") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator="\r\n").writerows([hf.HEADER, hf.GOOD_ROW])
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "note"),
    [
        ("excel-unicode.csv", codecs.BOM_UTF16_LE + _csv_text("\t").encode("utf-16-le"), "UTF-16"),
        ("no-bom-utf16.tsv", _csv_text("\t").encode("utf-16-le"), "UTF-16 little-endian"),
        ("bom.csv", codecs.BOM_UTF8 + _csv_text().encode(), "UTF-8 with a byte-order mark"),
        ("semicolons.csv", _csv_text(";").encode(), "semicolon (';')"),
    ],
)
def test_sloppy_encodings_and_separators_are_read_and_said(
    project: Project, tmp_path: Path, name: str, data: bytes, note: str
) -> None:
    (tmp_path / name).write_bytes(data)
    report = import_items(project, tmp_path / name)
    assert report.added == 1
    assert any(note in w.message and w.rule == "file_read_as" for w in report.warnings), report.warnings


def test_a_binary_file_is_still_refused(project: Project, tmp_path: Path) -> None:
    (tmp_path / "photo.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\xff")
    refused(project, tmp_path / "photo.csv", "binary file")


def test_offsets_inside_a_word_are_refused_unless_the_row_says_so(project: Project, tmp_path: Path) -> None:
    cut = {"id": "cut", "sentence": "He poured a shot of whiskey.", "start": 13, "end": 16}
    cut |= {"lemma": "hot", "pos": "ADJ", "synset": "bn:00098525a"}
    error = refused(project, hf.items_jsonl(tmp_path, [cut], "cut.jsonl"))
    assert [(p.row, p.rule) for p in error.problems] == [(1, "partial_word")]
    assert "'hot'" in error.problems[0].message and "'shot'" in error.problems[0].message
    report = import_items(project, hf.items_jsonl(tmp_path, [{**cut, "partial_word": "true"}], "meant.jsonl"))
    assert report.added == 1


def test_a_lone_surrogate_is_refused_with_its_row(project: Project, tmp_path: Path) -> None:
    lines = [json.dumps(hf.item("ok")), json.dumps(hf.item("bad")).replace("poured", "pour\\ud800ed")]
    (tmp_path / "surrogate.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = refused(project, tmp_path / "surrogate.jsonl", "row 2", "U+D800")
    assert [(p.row, p.rule) for p in error.problems] == [(2, "surrogate")]


def test_problems_are_listed_up_to_the_limit_then_counted(project: Project, tmp_path: Path) -> None:
    rows = [hf.item(f"i{n}", pos="XX") for n in range(1_000)]
    error = refused(project, hf.items_jsonl(tmp_path, rows), "1000 problem(s)", "... and 900 more")
    assert len(error.problems) == 100 and error.total == 1_000


def test_a_project_configures_its_limits(project: Project, tmp_path: Path) -> None:
    update_project_limits(project, lambda _: InputLimits(max_rows=1, max_problems=5))
    assert project_limits(project).max_rows == 1
    path = hf.items_jsonl(tmp_path, [hf.item("a"), hf.item("b")])
    refused(project, path, "more than 1 rows", "max_rows")
    with pytest.raises(UserError, match="unknown setting"):
        InputLimits.from_json({"max_rowz": 3})
    with pytest.raises(UserError, match="max_rows must be a positive"):
        InputLimits.from_json({"max_rows": 0})


def test_limits_apply_to_every_text_format(tmp_path: Path) -> None:
    limits = InputLimits(max_rows=2, max_columns=3)
    (tmp_path / "rows.tsv").write_text("a\tb\n1\t2\n3\t4\n5\t6\n")
    with pytest.raises(InputLimitError, match=r"rows\.tsv: row 4: more than 2 rows"):
        load_table(tmp_path / "rows.tsv", limits=limits)
    (tmp_path / "wide.csv").write_text("a,b,c,d\n1,2,3,4\n")
    with pytest.raises(InputLimitError, match=r"wide\.csv: row 1: 4 columns used, more than 3"):
        load_table(tmp_path / "wide.csv", limits=limits)
    (tmp_path / "trailing.csv").write_text("a,b,,,,,,,,\n1,2,,,,,,,,,,\n")  # Excel's empty trailing cells
    assert load_table(tmp_path / "trailing.csv", limits=limits).columns == ["a", "b"]
    (tmp_path / "rows.jsonl").write_text('{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    with pytest.raises(InputLimitError, match=r"rows\.jsonl: line 3: more than 2 rows"):
        load_table(tmp_path / "rows.jsonl", limits=limits)


# --- the same shapes for the sheet round trip, the snapshot and the evaluation inputs -----------------------


def test_the_sheet_import_refuses_the_same_shapes(demo_project, tmp_path: Path, million: Path) -> None:
    from annotator.services.curation import CurationService
    from annotator.services.sheet_import import import_sheet

    project, lead = demo_project
    service = CurationService(project, lead)
    before = dump(project)
    for path, limit in [
        (copied(million, tmp_path), "max_rows"),
        (hf.xlsx_long_sentence(tmp_path, 40 * MB), "max_cell_chars"),
        (hf.xlsx_declared_dimension(tmp_path, "far.xlsx", far_cell=True), "max_columns"),
    ]:
        with pytest.raises(UserError) as caught:
            import_sheet(service, path, "IT")
        assert path.name in str(caught.value) and limit in str(caught.value)
    assert dump(project) == before


def test_a_sheet_declaring_xfd1048576_still_round_trips(demo_project, tmp_path: Path) -> None:
    from annotator.data_export.spreadsheet import sheet_bytes
    from annotator.services.curation import CurationService
    from annotator.services.sheet_import import import_sheet

    project, lead = demo_project
    name, data = sheet_bytes(project, "IT")
    exported = tmp_path / "exported.xlsx"
    exported.write_bytes(data)
    patched = tmp_path / name

    def declare_huge(xml: bytes) -> bytes:
        start = xml.index(b"<dimension ref=")
        end = xml.index(b"/>", start) + 2
        return xml[:start] + b'<dimension ref="A1:XFD1048576"/>' + xml[end:]

    with zipfile.ZipFile(exported) as zin, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            zout.writestr(info, declare_huge(body) if info.filename.startswith("xl/worksheets/") else body)
    before = dump(project)
    report = import_sheet(CurationService(project, lead), patched)
    assert report.changed == [] and report.unchanged > 0
    assert dump(project) == before


def test_snapshots_refuse_the_same_shapes(tmp_path: Path) -> None:
    for name in ("long.jsonl", "long.json"):
        path = hf.snapshot_long_gloss(tmp_path, 40 * MB, name)
        with pytest.raises(LexiconError) as caught:
            SnapshotLexicon.load(path)
        assert name in str(caught.value) and "max_cell_chars" in str(caught.value)
    small = hf.snapshot_long_gloss(tmp_path, 2 * MB, "big.jsonl")
    with pytest.raises(LexiconError, match=r"big\.jsonl.*max_snapshot_mb"):
        SnapshotLexicon.load(small, InputLimits(max_snapshot_mb=1))
    json_form = hf.snapshot_long_gloss(tmp_path, 2_000, "form.json")
    json_form.write_text(json_form.read_text() + " " * (2 * MB))
    with pytest.raises(LexiconError, match=r"form\.json.*read whole.*max_file_mb.*\.jsonl"):
        SnapshotLexicon.load(json_form, InputLimits(max_file_mb=1))
    surrogate = hf.snapshot_long_gloss(tmp_path, 10, "surrogate.jsonl")
    surrogate.write_text(
        surrogate.read_text().replace(
            '"lemma": "shot", "lang": "EN", "pos"', '"lemma": "sh\\udc00ot", "lang": "EN", "pos"', 1
        )
    )
    with pytest.raises(LexiconError, match=r"surrogate\.jsonl: line 2.*U\+DC00"):
        SnapshotLexicon.load(surrogate)
    assert SnapshotLexicon.load(hf.snapshot_long_gloss(tmp_path, 2_000, "fine.jsonl")).synset_ids("shot", "NOUN")


def test_evaluation_inputs_refuse_the_same_shapes(tmp_path: Path) -> None:
    dataset_line = hf.DATASET_LINE
    dataset_path = tmp_path / "dataset.jsonl"
    dataset_path.write_text(json.dumps(dataset_line) + "\n")
    dataset = load_dataset(dataset_path)

    long_translation = hf.translations_long(tmp_path, 40 * MB)
    with pytest.raises(InputLimitError, match=r"translations\.jsonl: line 1: .*max_cell_chars"):
        load_translations(long_translation, dataset)
    padded = tmp_path / "padded-dataset.jsonl"  # a valid dataset past a 1 MB limit (blank lines are allowed)
    padded.write_text(dataset_path.read_text() + (" " * 100_000 + "\n") * 11)
    with pytest.raises(InputLimitError, match=r"padded-dataset\.jsonl.*max_file_mb"):
        load_dataset(padded, InputLimits(max_file_mb=1))
    assert len(load_dataset(padded, InputLimits(max_file_mb=2)).items) == 1
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": f"i{n}", "lang": "IT", "system": "s", "translation": "t"}) + "\n" for n in range(5))
    )
    with pytest.raises(InputLimitError, match=r"rows\.jsonl: line 4: more than 2 lines \(input limit max_rows\)"):
        load_translations(rows, dataset, InputLimits(max_rows=2))
    surrogate = tmp_path / "surrogate.jsonl"
    surrogate.write_text('{"id": "shot-whiskey", "lang": "IT", "system": "s\\ud83d", "translation": "un goccio"}\n')
    with pytest.raises(EvaluationInputError) as caught:
        load_translations(surrogate, dataset)
    assert [(p.line, p.rule) for p in caught.value.problems] == [(1, "surrogate")]
    assert "surrogate.jsonl" in str(caught.value) and "U+D83D" in str(caught.value)
    with pytest.raises(EvaluationInputError) as caught:
        parse_dataset([json.dumps(dataset_line).replace("He poured", "He \\udfffpoured")], "d.jsonl")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(1, "surrogate")]
    utf16 = tmp_path / "excel.tsv"
    utf16.write_bytes(
        codecs.BOM_UTF16_LE + "id\tlang\tsystem\ttranslation\nshot-whiskey\tIT\tmt\tun goccio\n".encode("utf-16-le")
    )
    assert [t.text for t in load_translations(utf16, dataset)] == ["un goccio"]


def test_the_sample_files_still_import(project: Project, write_jsonl) -> None:
    assert import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS)).added == 2
    assert parse_item_file(write_jsonl("again.jsonl", SAMPLE_ITEMS)).warnings == []


def test_errors_keep_their_types(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(FileFormatError, match="empty"):
        load_table(tmp_path / "empty.jsonl")
    assert issubclass(InputLimitError, UserError) and issubclass(ItemImportError, UserError)


def test_a_sheet_of_many_empty_cells_is_refused_by_the_cell_budget(tmp_path: Path) -> None:
    """Empty cells cost parsing time too: more than 10 × max_rows of them is refused by a byte scan."""
    limits = InputLimits(max_rows=10)
    assert len(load_table(hf.xlsx_empty_cells(tmp_path, 5, 10), limits=limits).rows) == 1  # 62 cells
    wide = hf.xlsx_empty_cells(tmp_path, 5, 30, "wide.xlsx")  # 162 cells
    with pytest.raises(InputLimitError, match=r"wide\.xlsx: the sheet has more than 110 cells"):
        load_table(wide, limits=limits)


def test_the_limits_command_sets_them_audited_and_serve_follows(tmp_path: Path, capsys) -> None:
    from annotator.cli import main
    from annotator.commands.serve import _upload_limit_mb

    data = str(tmp_path / "data")
    assert main(["init", "--data", data]) == 0
    assert _upload_limit_mb(tmp_path / "data") == 100
    assert main(["limits", "--data", data, "--set", "max_rows=1", "--set", "max_file_mb=150"]) == 0
    assert "max_rows            1 " in capsys.readouterr().out
    assert _upload_limit_mb(tmp_path / "data") == 150  # Streamlit's server.maxUploadSize follows the project
    path = hf.items_jsonl(tmp_path, [hf.item("a"), hf.item("b")])
    assert main(["import", str(path), "--data", data]) == 2
    assert "items.jsonl: line 2: more than 1 rows (input limit max_rows)" in capsys.readouterr().err
    assert main(["limits", "--data", data, "--set", "max_rowz=3"]) == 2
    assert "unknown setting(s) max_rowz" in capsys.readouterr().err
    project = Project.open(data)
    audit = [row for row in dump(project)["audit"] if "input_limits" in row]
    assert len(audit) == 1 and project_limits(project).max_file_mb == 150


def test_shared_strings_and_unpacked_size_are_bounded_too(tmp_path: Path) -> None:
    """Excel keeps texts in a shared-string table: too many of them, or a part that unpacks too big, is refused."""
    workbook = Workbook()
    workbook.active.append(hf.HEADER)
    for n in range(8):
        workbook.active.append([f"id-{n}", f"Sentence {n}.", "x", "x", "NOUN", "bn:00057755n"])
    plain = tmp_path / "plain.xlsx"
    workbook.save(plain)
    shared = tmp_path / "shared.xlsx"
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(shared, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info.filename))
        strings = "".join(f"<si><t>text {n}</t></si>" for n in range(200))
        zout.writestr(
            "xl/sharedStrings.xml",
            f'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{strings}</sst>',
        )
    assert len(load_table(shared, limits=InputLimits(max_rows=100)).rows) == 8
    with pytest.raises(InputLimitError, match=r"shared\.xlsx: the workbook has more than 110 distinct texts"):
        load_table(shared, limits=InputLimits(max_rows=10, max_columns=10))
    big = hf.xlsx_million_rows(tmp_path, "big.xlsx", rows=70_000)
    with pytest.raises(InputLimitError, match=r"big\.xlsx: xl/worksheets/sheet1\.xml unpacks to .* more than 4 × the"):
        load_table(big, limits=InputLimits(max_file_mb=1, max_rows=1_000_000))


def test_the_command_line_refuses_hostile_snapshots_and_surrogates_without_a_traceback(
    demo_project, tmp_path: Path, capsys
) -> None:
    from annotator.cli import main

    project, _lead = demo_project
    data = str(project.data_dir)
    before = dump(project)
    snapshot = hf.snapshot_long_gloss(tmp_path, 1 * MB, "long-gloss.jsonl")
    assert main(["lexicon", "use-snapshot", str(snapshot), "--data", data]) == 2
    err = capsys.readouterr().err
    assert "long-gloss.jsonl: line 3" in err and "max_cell_chars" in err and "Traceback" not in err
    assert dump(project) == before

    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(hf.item("x")).replace("whiskey", "whiskey\\udbff") + "\n")
    assert main(["import", str(items), "--data", data]) == 2
    err = capsys.readouterr().err
    assert "items.jsonl: row 1" in err and "U+DBFF" in err and "[surrogate]" in err
    assert dump(project) == before

    assert main(["export", "--data", data, "--out", str(tmp_path / "export"), "--include-incomplete"]) == 0
    dataset = next((tmp_path / "export").rglob("dataset.jsonl"))
    translations = tmp_path / "mt.jsonl"
    line = {"id": "shot-whiskey", "lang": "IT", "system": "mt\ud800", "translation": "un goccio"}
    translations.write_text(json.dumps(line) + "\n")
    capsys.readouterr()
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "eval")]) == 2
    err = capsys.readouterr().err
    assert "mt.jsonl, line 1" in err and "U+D800" in err and "surrogate" in err and "Traceback" not in err


def test_the_sheet_import_lists_the_first_problems_and_counts_the_rest(demo_project, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from annotator.data_export.spreadsheet import DATA_SHEET, sheet_bytes
    from annotator.services.curation import CurationService
    from annotator.services.sheet_import import SheetImportError, import_sheet

    project, lead = demo_project
    update_project_limits(project, lambda _: InputLimits(max_problems=5))
    name, data = sheet_bytes(project, "IT")
    workbook = load_workbook(io.BytesIO(data))
    sheet = workbook[DATA_SHEET]
    status = next(c for c in sheet[1] if c.value == "status").column
    for row in range(2, sheet.max_row + 1):
        sheet.cell(row, status).value = "finished?"
    workbook.save(tmp_path / name)
    before = dump(project)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(CurationService(project, lead), tmp_path / name)
    assert len(caught.value.problems) == 5 and caught.value.total == sheet.max_row - 1 > 5
    assert f"{caught.value.total} problem(s)" in str(caught.value) and "more" in str(caught.value)
    assert dump(project) == before


def test_an_archive_of_thousands_of_parts_is_refused_before_listing_them(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "parts.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        for n in range(5_000):
            archive.writestr(f"x/{n}", b"")
    refused(project, path, "5,000 parts")
