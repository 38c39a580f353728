"""The HTML report in headless Chromium: every table and chart renders, offline, with no console error."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from annotator.cli import main
from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.project import Project, builtin_path

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_report_renders_every_table_and_chart_offline(demo: Path, tmp_path: Path, chromium: Browser) -> None:
    export = export_dataset(Project.open(demo), tmp_path / "exports", ExportOptions(True))
    evaluation = tmp_path / "evaluation"
    translations = str(builtin_path("demo/translations.jsonl"))
    assert main(["evaluate", str(export.path / "dataset.jsonl"), translations, "--out", str(evaluation)]) == 0
    assert main(["report", str(evaluation)]) == 0
    markdown = (evaluation / "report.md").read_text(encoding="utf-8")

    errors: list[str] = []
    requests: list[str] = []
    page = chromium.new_page(viewport={"width": 1366, "height": 900})
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto((evaluation / "report.html").as_uri())
    charts = page.locator("div.chart")
    assert charts.count() == 5
    for index in range(charts.count()):
        charts.nth(index).locator("svg").first.wait_for(timeout=20_000)
    assert page.locator("section.table table").count() == markdown.count("### ")
    assert page.locator("section.table").filter(has_text="cross-language consistency").count() == 2
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert errors == []
    assert all(url.startswith(("file:", "data:", "blob:")) for url in requests), requests
    assert shot.stat().st_size > 10_000
    if os.environ.get("ANNOTATOR_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(shot, ROOT / "docs" / "screenshots" / "report.png")


def test_report_charts_render_with_hostile_system_names(tmp_path: Path, chromium: Browser) -> None:
    """A system named ``x<!--<script>`` once commented out the data script (no chart at all), and ``gpt 4`` /
    ``gpt-4`` shared one chart id (one heat map lost): every chart draws now."""
    from report_data import hostile_evaluation

    from annotator.reporting.report import build_report, render_html

    path = tmp_path / "report.html"
    path.write_text(render_html(build_report(hostile_evaluation(tmp_path / "evaluation"))), encoding="utf-8")
    errors: list[str] = []
    page = chromium.new_page(viewport={"width": 1366, "height": 900})
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    charts = page.locator("div.chart")
    assert charts.count() == 3 + 4  # three charts and a heat map for each of the four systems
    for index in range(charts.count()):
        charts.nth(index).locator("svg").first.wait_for(timeout=20_000)
    assert page.get_by_text("x<!--<script>: cross-language consistency", exact=False).count() >= 1
    assert errors == []
