"""Acceptance 4 of issue 9 through AppTest on the whole app: a lead marks a result for inspection, records a verdict,
re-runs the evaluation and the metrics use it (counted apart); changing a candidate of that item drops the verdict
and puts the result back in the queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in
from evaluate_pages import metrics_table, run_evaluation
from streamlit.testing.v1 import AppTest

from annotator.commands.project import create_demo
from annotator.domain.model import Side
from annotator.evaluation.inspection import load_inspections
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

LABEL = "shot-whiskey · DE · demo-mt-b"  # "Er schenkte sich einen Whiskey ein.": a MISS for the matcher


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    create_demo(str(data), quiet=True)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return data


def row(at: AppTest, system: str = "demo-mt-b", lang: str = "DE") -> dict:
    table = metrics_table(at)
    chosen = table[(table["system"] == system) & (table["lang"] == lang) & (table["pos"] == "ALL")]
    assert len(chosen) == 1
    return chosen.iloc[0].to_dict()


def nothing_inspected(at: AppTest, row: dict) -> bool:
    """No verdict counted: the metrics table leaves the all-zero "inspected" column out and its note says why."""
    return "inspected" not in row and any("no result inspected yet" in c.value for c in at.caption)


def queued(at: AppTest) -> list[str]:
    return [t.value for t in at.text if " · " in t.value and t.value.count(" · ") == 2]


def test_verdict_recorded_used_by_metrics_and_dropped_when_a_candidate_changes(demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    run_evaluation(at)
    before = row(at)
    assert nothing_inspected(at, before)
    assert LABEL not in queued(at)

    at.selectbox(key="inspection_mark_choice").set_value(LABEL)
    at.button(key="inspection_mark").click().run()
    assert not at.exception, at.exception
    assert LABEL in queued(at)
    slug = next(r.key for r in at.radio if r.key and r.key.startswith("inspection_verdict_")).rsplit("_", 1)[1]
    at.radio(key=f"inspection_verdict_{slug}").set_value("GOOD")
    at.text_input(key=f"inspection_note_{slug}").input("Whiskey alone names the drink here")
    at.button(key=f"inspection_save_{slug}").click().run()
    assert not at.exception, at.exception

    project = Project.open(demo)
    stored = load_inspections(project)[("shot-whiskey", "DE", "demo-mt-b")]
    assert (stored.verdict, stored.decided_by, stored.note) == ("GOOD", "lead", "Whiskey alone names the drink here")
    assert stored.decided_at

    run_evaluation(at)  # a fresh run: the stored verdict replaces the matcher's MISS
    after = row(at)
    assert after["inspected"] == "1" and not nothing_inspected(at, after)
    assert LABEL not in queued(at)
    good_before = int(before["Accuracy"].split("(")[1].split("/")[0])
    assert int(after["Accuracy"].split("(")[1].split("/")[0]) == good_before + 1
    assert int(after["%MISS"].split("(")[1].split("/")[0]) == int(before["%MISS"].split("(")[1].split("/")[0]) - 1

    service = CurationService(project, authenticate(project, "lead", "demo-lead-pass"))
    version = service.view("shot-whiskey", "DE").state.version
    service.add_candidate("shot-whiskey", "DE", Side.BAD, "Gewehrschuss", version)
    at.switch_page("pages/evaluate.py").run()
    run_evaluation(at)
    assert nothing_inspected(at, row(at))  # the candidates changed: the verdict no longer applies
    assert LABEL in queued(at)  # ... and the result waits for a new verdict


def test_a_translator_cannot_record_verdicts(demo: Path) -> None:
    from annotator.app.pages.evaluate import DEMO_TRANSLATIONS
    from annotator.errors import UserError
    from annotator.evaluation.inputs import load_translations
    from annotator.evaluation.inspection import record_verdict
    from annotator.evaluation.run import create_analyser, evaluate
    from annotator.project import builtin_path
    from annotator.services.evaluate_project import dataset_from_project

    project = Project.open(demo)
    dataset = dataset_from_project(project)
    result = evaluate(dataset, load_translations(builtin_path(DEMO_TRANSLATIONS), dataset), create_analyser())
    translator = authenticate(project, "translator", "demo-translator-pass")
    with pytest.raises(UserError, match="Only a lead"):
        record_verdict(project, translator, result.results[0], "GOOD")
    assert load_inspections(project) == {}
