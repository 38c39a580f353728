"""``annotator report``: the tables worked by hand, the three formats, and the real demo evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_data import LOOK_ALIKES, ROWS, SCRIPT_BREAKER, hostile_evaluation

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.project import Project, builtin_path
from annotator.reporting.formats import latex_escape, markdown_document, markdown_escape, to_latex, to_markdown
from annotator.reporting.report import build_report, render_html
from annotator.reporting.tables import accuracy_by_group, pos_table, system_language_table


def test_language_table_has_the_unweighted_mean_row() -> None:
    table = system_language_table(ROWS, "s")
    assert table.columns == ("Language", "%MISS", "Accuracy", "MFS", "MFS+", "SPDI", "SFII")
    assert table.rows[0] == ("DE", "10.00", "50.00", "40.00", "80.00", "20.00", "30.00")
    # Mean: %MISS (10+30)/2 = 20; Accuracy (50+70)/2 = 60; MFS only DE has a value → 40 (n/a is not a 0).
    assert table.rows[-1] == ("Mean", "20.00", "60.00", "40.00", "80.00", "30.00", "20.00")
    assert table.rows[1][3] == "n/a"


def test_nouns_and_verbs_and_accuracy_by_group() -> None:
    table = pos_table(ROWS, "s")
    assert table.columns == ("Metric", "ALL", "NOUN", "VERB")
    assert dict((row[0], row[1:]) for row in table.rows)["Accuracy"] == ("60.00", "65.00", "55.00")
    by_rank = accuracy_by_group(ROWS, "sfii")
    # μ(σ)=1: 3 GOOD, 1 BAD → 75 %; μ(σ)=2: no GOOD or BAD → None (n/a).
    assert [(group.key, group.percent) for group in by_rank] == [(1, 75.0), (2, None)]


def test_formats_escape_cells() -> None:
    assert latex_escape("MFS+ 50% of a_b & {c}") == r"MFS+ 50\% of a\_b \& \{c\}"
    assert markdown_escape("a|b ![x](http://h/) `c`") == r"a\|b !\[x\](http://h/) \`c\`"
    table = system_language_table(ROWS, "s")
    latex = to_latex(table)
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"\%MISS" in latex
    assert latex.index(r"\midrule", latex.index("IT &")) < latex.index("Mean &")  # a rule above the Mean row
    assert to_markdown(table).count("\n|") == 2 + len(table.rows)


@pytest.fixture(scope="module")
def demo_evaluation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project exported with its unfinished items and its bundled translations evaluated."""
    root = tmp_path_factory.mktemp("report")
    create_demo(str(root / "data"), quiet=True)
    export = export_dataset(Project.open(root / "data"), root / "exports", ExportOptions(include_incomplete=True))
    dataset = export.path / "dataset.jsonl"
    out = root / "evaluation"
    assert main(["evaluate", str(dataset), str(builtin_path("demo/translations.jsonl")), "--out", str(out)]) == 0
    return out


def test_report_on_the_demo_evaluation(demo_evaluation: Path, tmp_path: Path) -> None:
    assert main(["report", str(demo_evaluation), "--out", str(tmp_path)]) == 0
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    metrics = json.loads((demo_evaluation / "metrics.json").read_text(encoding="utf-8"))
    systems = sorted({row["system"] for row in metrics["rows"] if row["system"] != "ALL"})
    assert systems == ["demo-mt-a", "demo-mt-b"]
    for system in systems:
        assert f"### {system}\\: metrics per language" not in markdown  # ':' is not escaped
        assert f"### {system}: metrics per language" in markdown
        assert f"### {system}: cross-language consistency" in markdown
    assert "Dataset (Table 1)" in markdown and "Refinement (Table 2)" in markdown
    latex = (tmp_path / "report.tex").read_text(encoding="utf-8")
    assert latex.count(r"\begin{tabular}") == markdown.count("### ")
    # The report's accuracy agrees with metrics.json to the second decimal.
    overall = next(r for r in metrics["rows"] if (r["system"], r["lang"], r["pos"]) == ("demo-mt-a", "ALL", "ALL"))
    assert f"| demo-mt-a | {overall['miss_rate']['percent']:.2f} | {overall['accuracy']['percent']:.2f} |" in markdown


def test_report_consistency_matches_the_analysed_lines(demo_evaluation: Path) -> None:
    report = build_report(demo_evaluation)
    records = [json.loads(line) for line in (demo_evaluation / "analysed.jsonl").read_text("utf-8").splitlines()]
    pair = next(p for p in report.consistency if (p.system, p.lang1, p.lang2) == ("demo-mt-a", "DE", "IT"))
    de = {r["id"]: r for r in records if r["system"] == "demo-mt-a" and r["lang"] == "DE"}
    it = {r["id"]: r for r in records if r["system"] == "demo-mt-a" and r["lang"] == "IT"}
    both = [i for i in de if i in it and de[i]["omega"] and it[i]["omega"]]
    with_provenance = [i for i in both if de[i]["omega_synsets"] and it[i]["omega_synsets"]]
    agree = [i for i in with_provenance if set(de[i]["omega_synsets"]) & set(it[i]["omega_synsets"])]
    assert (pair.compared, pair.consistent) == (len(with_provenance), len(agree))
    assert pair.compared > 0


def test_html_is_self_contained_and_escapes_system_names(demo_evaluation: Path) -> None:
    html = render_html(build_report(demo_evaluation))
    assert "vegaEmbed" in html
    assert "<script src" not in html and "<link" not in html  # nothing is fetched
    assert html.count('class="chart"') == 3 + 2  # three charts and one heat map per system


def test_report_refuses_a_folder_without_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "metrics.json: not found" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_metrics_json_holds_the_consistency_and_the_report_adds_the_research_metrics(demo_evaluation: Path) -> None:
    metrics = json.loads((demo_evaluation / "metrics.json").read_text(encoding="utf-8"))
    report = build_report(demo_evaluation)
    assert metrics["consistency"] == [pair.to_dict() for pair in report.consistency]
    leaderboard = report.tables[0]
    assert leaderboard.columns[-5:] == ("Macro acc.", "Coverage", "Precision", "Recall", "F1")
    row = next(r for r in metrics["rows"] if (r["system"], r["lang"], r["pos"]) == ("demo-mt-b", "ALL", "ALL"))
    good, bad, miss = row["good"], row["bad"], row["miss"]
    cells = dict(zip(leaderboard.columns, next(r for r in leaderboard.rows if r[0] == "demo-mt-b"), strict=True))
    # coverage = (GOOD + BAD) / all; precision = accuracy; recall = GOOD / (GOOD + MISS) (MuCoW)
    assert cells["Coverage"] == f"{100 * (good + bad) / (good + bad + miss):.2f}"
    assert cells["Precision"] == cells["Accuracy"]
    assert cells["Recall"] == f"{100 * good / (good + miss):.2f}"


def test_html_charts_survive_hostile_system_names(tmp_path: Path) -> None:
    import re

    report = build_report(hostile_evaluation(tmp_path / "evaluation"))
    html = render_html(report)
    data_script = html[html.rindex("<script>") :]
    specs_text = data_script[len("<script>const specs = ") : data_script.index(";for (const")]
    # Nothing in the data can end or comment out the script: no <, >, & or JavaScript line separator in it.
    assert not re.search("[<>&\u2028\u2029]", specs_text)
    specs = json.loads(specs_text)  # \u003c escapes are JSON: the names arrive unchanged
    assert SCRIPT_BREAKER in json.dumps(specs, ensure_ascii=False)
    # One chart per system's heat map, each with its own id, and a div for each.
    ids = re.findall(r'<div class="chart" id="([^"]+)">', html)
    assert len(ids) == len(set(ids)) == 3 + 4 == len(specs) and set(ids) == set(specs)
    for name in (*LOOK_ALIKES, SCRIPT_BREAKER):  # each system's heat map is its own chart
        title = '"subtitle": ' + json.dumps([name], ensure_ascii=False)  # the heat map's title names the system
        assert sum(title in json.dumps(spec, ensure_ascii=False) for spec in specs.values()) == 1, name
    assert data_script.count("</script>") == 1 and "vegaEmbed" in data_script
    # The Markdown report keeps the names literal on one line each.
    markdown = markdown_document(report.title, report.tables)
    assert "x\\<!--\\<script\\>" in markdown and "<!--" not in markdown.replace("\\<!--", "")
