"""The Evaluate page through AppTest on the whole app: run on the demo translations, see the metrics, open a
MISS item in Curate, and a candidate added there counts on the next run (the page scores the current curation);
translations the curation has nothing for are skipped and counted; ω is shown as code, not as Markdown."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from app_helpers import area, logged_in, plain
from evaluate_pages import metrics_table, run_evaluation, shown_items

from annotator.app.safe_text import code
from annotator.domain.jobs import JobKind
from annotator.domain.model import Side
from annotator.project import Project
from annotator.services import job_files, jobs
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL

MISS_ITEM = "**shot-whiskey** · DE · demo-mt-b"  # "Er schenkte sich einen Whiskey ein." — no candidate matches


@pytest.fixture
def demo(app_demo: Path) -> Path:
    return app_demo


def test_translators_do_not_get_the_page(demo: Path) -> None:
    at = logged_in("translator", "demo-translator-pass")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/evaluate.py")  # not in a translator's navigation at all


def test_metrics_miss_browsing_curate_link_and_rerun(demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    assert at.header[0].value == "Evaluate machine translations"
    run_evaluation(at)
    table = metrics_table(at)
    assert {"system", "lang", "Accuracy", "%MISS", "MFS", "MFS+", "SFII", "SPDI"} <= set(table.columns)
    assert {"demo-mt-a", "demo-mt-b"} <= set(table["system"])
    assert len(at.get("vega_lite_chart")) == 2  # accuracy and % MISS per language
    assert MISS_ITEM in shown_items(at)

    at.button(key="eval_open|shot-whiskey|DE|demo-mt-b").click().run()
    assert not at.exception, at.exception
    assert at.query_params["item"] == "shot-whiskey" and at.query_params["lang"] == "DE"
    assert at.sidebar.selectbox(key="cur_queue").value == "todo"  # the queue holding it, not "All" (issue 34)
    card = area(at)["card"]
    assert card["sentence"].startswith("He poured a")  # the Curate page shows the item
    shown = card["translation"]  # and the machine translation that MISSed, as the Evaluate page showed it
    assert shown is not None and shown["label"].startswith("demo-mt-b (") and shown["text"]

    project = Project.open(demo)  # the lead decides the bare "Whiskey" renders the drink sense here
    service = CurationService(project, authenticate(project, "lead", "demo-lead-pass"))
    service.add_candidate("shot-whiskey", "DE", Side.GOOD, "Whiskey", service.view("shot-whiskey", "DE").state.version)

    at.switch_page("pages/evaluate.py").run()
    run_evaluation(at)
    assert MISS_ITEM not in shown_items(at)


def test_missing_upload_is_reported(demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception
    assert any("Upload the translations" in e.value for e in at.error)


def test_skipped_translations_are_reported_and_omega_is_shown_as_code(demo: Path) -> None:
    project = Project.open(demo)
    service = CurationService(project, authenticate(project, "lead", "demo-lead-pass"))
    # a wildcard candidate: in Markdown, "*" would start italics
    service.add_candidate(
        "head-stream", "IT", Side.BAD, "testa * ruscello", service.view("head-stream", "IT").state.version
    )
    # discarded for DE: the page scores the current curation, which then has no shot-whiskey DE to score against
    service.discard("shot-whiskey", "DE", "other", "test", service.view("shot-whiskey", "DE").state.version)

    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    run_evaluation(at)
    assert [plain(w.value) for w in at.warning if "skipped" in w.value] == [
        "2 translations skipped, as they are of items the dataset leaves out in their language: the dataset has "
        "nothing to score them against (an export leaves out unfinished, discarded and excluded items)."
    ]
    assert any(c.value.startswith("178 translations") for c in at.caption)
    assert not any(item.startswith("**shot-whiskey** · DE") for item in shown_items(at, "DE", "all"))

    at.segmented_control(key="evaluate_outcome").set_value("BAD").run()
    at.selectbox(key="evaluate_lang").set_value("IT").run()
    at.selectbox(key="evaluate_system").set_value("demo-mt-b").run()
    omegas = [c.value for c in at.caption if "matched BAD candidate" in c.value]
    assert any("ω = `testa * ruscello` (step: lemma" in value for value in omegas), omegas


def test_code_spans_survive_backticks_in_the_text() -> None:
    assert code("prendere * permesso") == "`prendere * permesso`"
    assert code("[x]_VERB") == "`[x]_VERB`"
    assert code("a`b") == "``a`b``"
    assert code("`a``") == "``` `a`` ```"


def test_the_page_shows_the_report_charts_and_offers_the_html(demo: Path) -> None:
    """Issue 13: the Evaluate page shows the report's charts and offers the same self-contained HTML file."""
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    run_evaluation(at)
    charts_before = len(at.get("vega_lite_chart"))
    at.button(key="evaluate_report").click().run()
    assert not at.exception, at.exception
    # accuracy per language, by sense rank, by polysemy degree, and one consistency heat map per system
    assert len(at.get("vega_lite_chart")) == charts_before + 3 + 2
    assert [d.label for d in at.get("download_button")][:1] == ["Download the report (one HTML file, works offline)"]


def test_the_evaluation_runs_as_a_job_another_lead_sees_its_results(demo: Path) -> None:
    """Issue 10: scoring the current curation is a background job recorded in the database (who, what, result),
    its results kept in the database too (issue 22); a lead in another session sees the job and the results."""
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/evaluate.py").run()
    assert any("Choose the translations" in i.value for i in at.info)  # nothing run yet
    run_evaluation(at)

    project = Project.open(demo)
    (job,) = jobs.list_jobs(project, kinds=[JobKind.EVALUATE])
    assert (job.user, job.params["current"], job.params["page"]) == ("lead", True, True)
    assert job_files.file_names(project, job.id) == ["analysed.jsonl", "items.jsonl", "metrics.json"]
    assert job.result is not None and "kept in the project's database" in job.result["summary"]
    assert str(demo) not in job.result["summary"] and "path" not in job.result  # no server's path to show

    other = logged_in("lead", "demo-lead-pass")  # a new browser session: nothing in its session state
    other.switch_page("pages/evaluate.py").run()
    assert not other.exception, other.exception
    assert any(s.value.startswith("Jobs") for s in other.subheader)
    assert any(f"Job {job.id} · evaluate · done" in plain(s.value) for s in other.success)
    assert MISS_ITEM in shown_items(other)
    table = metrics_table(other)
    assert {"demo-mt-a", "demo-mt-b"} <= set(table["system"])


def test_the_page_script_only_calls_the_page_s_code() -> None:
    """Streamlit runs a page script anew on every rerun (its body executed; compiled too under ``AppTest``): the
    Evaluate page's script defines nothing, its code is imported once from ``evaluate_view`` (issue 32: the field
    rerun had grown from 20.5 to 26.5 ms with the whole page in the script)."""
    from annotator.app.pages import evaluate, evaluate_view

    tree = ast.parse(Path(evaluate.__file__).read_text(encoding="utf-8"))
    defined = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Lambda))]
    assert defined == []
    assert evaluate.render is evaluate_view.render
    assert (evaluate.BUNDLED, evaluate.UPLOAD) == (evaluate_view.BUNDLED, evaluate_view.UPLOAD)
