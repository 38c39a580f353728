"""Issue 12 acceptance 2: the Project and Dataset page uploads refuse the hostile files with the message the
command line gives (the pages hand the upload to the same reader), and the database stays as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import hostile_files as hf
import pytest
from app_helpers import plain
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.app.session import USER_KEY
from annotator.commands.project import create_demo
from annotator.data_export.spreadsheet import DATA_SHEET, sheet_bytes
from annotator.data_import.items import ItemImportError
from annotator.data_import.limits import InputLimits
from annotator.data_import.xlsx import Workbook
from annotator.errors import RowProblemsError, UserError
from annotator.project import Project
from annotator.services.accounts import Session
from annotator.services.administration import update_project_limits
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.sheet_import import import_sheet

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MB = 1024 * 1024


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("hostile-page-demo") / "data"
    create_demo(str(data), quiet=True)
    return data


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    data = tmp_path / "data"
    shutil.copytree(demo_template, data)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return Project.open(data)


def page(module: str) -> AppTest:
    at = AppTest.from_string(f"from annotator.app.pages.{module} import render\nrender()\n", default_timeout=60)
    at.session_state[USER_KEY] = Session("lead", 0)  # a login with the lead's current session epoch
    at.run()
    assert not at.exception, at.exception
    return at


def expected_refusal(call) -> UserError:
    with pytest.raises(UserError) as caught:
        call()
    return caught.value


def shown(at: AppTest, error: UserError) -> None:
    """The page shows ``error`` as the command line would: its message, or its summary and every listed row."""
    assert not at.exception, at.exception
    errors = [plain(e.value) for e in at.error]  # what a reader sees of the escaped Markdown
    if isinstance(error, RowProblemsError):
        assert errors == [f"{error.name}: {error.total} problem(s); {error.outcome}."], errors
        table = next(df.value for df in at.dataframe if "rule" in df.value.columns)
        assert table.to_dict("records") == [
            {"row": p.row, "column": p.column, "rule": p.rule, "problem": p.message} for p in error.problems
        ]
    else:
        assert errors == [str(error)]


def test_the_project_page_refuses_the_hostile_item_files(demo: Project, tmp_path: Path) -> None:
    files = [
        hf.xlsx_million_rows(tmp_path),
        hf.xlsx_declared_dimension(tmp_path, "far.xlsx", far_cell=True),
        hf.xlsx_long_sentence(tmp_path, 40 * MB),
        hf.items_jsonl(tmp_path, [hf.item("line\nbreak"), hf.item("../../etc/passwd"), hf.item("i" * 250)]),
        hf.items_jsonl(
            tmp_path,
            [hf.item("cut", target=None, start=13, end=16, lemma="hot", pos="ADJ", synset="bn:00098525a")],
            "cut.jsonl",
        ),
    ]
    before = dump(demo)
    at = page("project")
    for path in files:
        error = expected_refusal(lambda path=path: import_items(demo, path))
        assert path.name in str(error)
        at.file_uploader(key="project_import_file").set_value((path.name, path.read_bytes(), "text/plain")).run()
        at.button(key="project_import").click().run()
        shown(at, error)
    assert isinstance(error, ItemImportError) and error.problems[0].rule == "partial_word"
    assert dump(demo) == before


def test_the_project_page_applies_the_projects_own_file_limit(demo: Project, tmp_path: Path) -> None:
    """Streamlit's maxUploadSize stops bigger uploads in the browser; the reader applies the project's limit."""
    update_project_limits(demo, lambda _: InputLimits(max_file_mb=1))
    path = hf.csv_long_sentence(tmp_path, 2 * MB, "big.csv")
    before = dump(demo)
    error = expected_refusal(lambda: import_items(demo, path))
    assert "max_file_mb" in str(error)
    at = page("project")
    at.file_uploader(key="project_import_file").set_value((path.name, path.read_bytes(), "text/csv")).run()
    at.button(key="project_import").click().run()
    shown(at, error)
    assert dump(demo) == before


def test_the_dataset_page_refuses_the_hostile_sheets(demo: Project, tmp_path: Path) -> None:
    name, data = sheet_bytes(demo, "IT")
    exported = tmp_path / name
    exported.write_bytes(data)
    with Workbook(exported, InputLimits()) as workbook:
        member = workbook.sheets[DATA_SHEET]
    shapes = hf.sheet_shapes(exported, tmp_path, member)
    with demo.db.read() as conn:
        lead = demo.repo.get_user(conn, "lead")
    before = dump(demo)
    at = page("dataset")
    for shape, path in shapes.items():
        error = expected_refusal(lambda path=path: import_sheet(CurationService(demo, lead), path))
        limit = {"million": "max_rows", "long-cell": "max_cell_chars", "far-column": "max_columns"}[shape]
        assert path.name in str(error) and limit in str(error)
        at.file_uploader(key="dataset_sheet_upload").set_value((path.name, path.read_bytes(), XLSX)).run()
        at.button(key="dataset_sheet_apply").click().run()
        shown(at, error)
    assert dump(demo) == before
