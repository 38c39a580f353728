"""What loading a page costs a fresh server process: the Dataset and Agreement pages load neither Altair (their bar
chart is a Vega-Lite spec) nor openpyxl (the sheet workbook is built when its download is clicked), and the Evaluate
page loads Altair only once it draws a result's charts."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

from annotator.data_export.sheet_names import sheet_file_name
from annotator.data_export.spreadsheet import sheet_file_name as spreadsheet_sheet_file_name

PROBE = """
import sys
import annotator.app.pages.agreement
import annotator.app.pages.dataset
import annotator.app.pages.evaluate_view
print(sorted(name for name in ("altair", "openpyxl") if name in sys.modules))
"""


def test_the_dataset_agreement_and_evaluate_pages_load_neither_altair_nor_openpyxl() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_the_sheet_name_is_the_one_the_workbook_module_gives() -> None:
    created = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert sheet_file_name("zh", created) == "sheet-ZH-20260102-030405Z.xlsx"
    assert spreadsheet_sheet_file_name is sheet_file_name  # one rule, whichever module a caller imports it from
