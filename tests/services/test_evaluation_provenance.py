"""Issue 22: provenance in every output, the breakdown by domain, the skipped-lines listing, p < 1/B, n < 30."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from importlib import metadata
from pathlib import Path

import pytest

import annotator
from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.domain.jobs import JobKind, JobState
from annotator.domain.research_metrics import NO_DOMAIN, bootstrap_accuracy, domain_breakdown, significance_rows
from annotator.evaluation.inputs import SKIP_REASONS, dataset_from_records
from annotator.evaluation.leaderboard import p_value_text, significance_markdown
from annotator.evaluation.provenance import dataset_digest, live_provenance
from annotator.project import Project, builtin_path
from annotator.services import job_files, jobs
from annotator.services.evaluate_project import dataset_from_project
from annotator.services.evaluation_results import load_result


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- provenance on the demo (acceptance 5) --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The demo exported, its bundled translations evaluated with the leaderboard, and the report written."""
    root = tmp_path_factory.mktemp("provenance")
    create_demo(str(root / "data"), quiet=True)
    export = export_dataset(Project.open(root / "data"), root / "exports", ExportOptions(include_incomplete=True))
    dataset = export.path / "dataset.jsonl"
    out = root / "evaluation"
    translations = builtin_path("demo/translations.jsonl")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(out), "--leaderboard"]) == 0
    assert main(["report", str(out)]) == 0
    return dataset, translations, out


def test_report_md_names_the_dataset_digest_and_the_analyser(demo_run: tuple[Path, Path, Path]) -> None:
    dataset, _translations, out = demo_run
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert sha256(dataset)[:12] in markdown
    assert f"default {annotator.__version__}" in markdown  # the analyser's name and version
    assert f"simplemma {metadata.version('simplemma')}" in markdown
    manifest_id = "sha256:" + sha256(dataset.parent / "manifest.json")
    assert manifest_id in markdown
    for name in ("report.html", "report.tex", "leaderboard.md", "leaderboard.tex", "significance.md"):
        text = (out / name).read_text(encoding="utf-8")
        assert sha256(dataset) in text, name
        assert manifest_id in text, name


def test_metrics_json_holds_the_provenance(demo_run: tuple[Path, Path, Path]) -> None:
    dataset, translations, out = demo_run
    provenance = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["provenance"]
    assert provenance["annotator"] == annotator.__version__
    assert provenance["analyser"]["name"] == "default"
    assert provenance["analyser"]["libraries"]["simplemma"] == metadata.version("simplemma")
    assert provenance["analyser"]["libraries"]["jieba"] == metadata.version("jieba")
    assert provenance["dataset"]["sha256"] == sha256(dataset)
    manifest = provenance["dataset"]["export_manifest"]
    assert manifest["id"] == "sha256:" + sha256(dataset.parent / "manifest.json")
    assert manifest["lists_this_dataset"] is True
    assert manifest["project"] == json.loads((dataset.parent / "manifest.json").read_text())["project"]
    assert provenance["translations"] == [{"name": str(translations), "sha256": sha256(translations)}]
    assert provenance["options"] == {"analyser": "default", "stanza_models": None}
    evaluated = datetime.fromisoformat(provenance["evaluated_at"].replace("Z", "+00:00"))
    assert evaluated.utcoffset() is not None and evaluated.utcoffset().total_seconds() == 0
    # the CSV tables stay plain tables; their provenance (with the bootstrap's settings) is the file beside them
    beside = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert beside["dataset"]["sha256"] == sha256(dataset)
    assert beside["bootstrap"]["resamples"] == 1000
    assert (out / "leaderboard.csv").read_text(encoding="utf-8").startswith("system,lang,pos,")


def test_live_provenance_digests_what_was_scored() -> None:
    record = _item("x", None, "sparo", "foto")
    changed = _item("x", None, "colpo", "foto")
    first, second = dataset_from_records([record]), dataset_from_records([changed])
    assert dataset_digest(first) == dataset_digest(dataset_from_records([record]))  # the same curation, same digest
    assert dataset_digest(first) != dataset_digest(second)  # one candidate edited: another digest
    document = live_provenance(first, [], "default", {"analyser": "default"}, project="demo")
    assert document["dataset"] == {
        "kind": "live curation",
        "project": "demo",
        "items": 1,
        "digest": dataset_digest(first),
    }


# --- breakdown by domain --------------------------------------------------------------------------------------------


def test_domain_breakdown_known_figures() -> None:
    outcomes = (
        [("s", "news", "GOOD")] * 6 + [("s", "news", "BAD")] * 2 + [("s", "news", "MISS")] * 2
        + [("s", "medicine", "BAD")] * 3 + [("s", None, "MISS")]
    )  # fmt: skip
    rows = {(row.system, row.domain): row for row in domain_breakdown(outcomes, resamples=500, seed=3)}
    assert sorted(rows) == [("s", NO_DOMAIN), ("s", "medicine"), ("s", "news")]
    news = rows["s", "news"]
    assert news.n == 10
    assert (news.accuracy.point, news.miss_rate.point, news.bad_rate.point) == (0.75, 0.2, 0.2)
    # the accuracy interval is the leaderboard's own bootstrap of the same outcomes
    assert news.accuracy == bootstrap_accuracy([o for _, _, o in outcomes[:10]], 500, 3)
    assert news.miss_rate.low <= 0.2 <= news.miss_rate.high and news.miss_rate.high < 0.6
    medicine = rows["s", "medicine"]
    assert (medicine.accuracy.point, medicine.bad_rate.point, medicine.miss_rate.point) == (0.0, 1.0, 0.0)
    assert (medicine.bad_rate.low, medicine.bad_rate.high) == (1.0, 1.0)  # every resample is all BAD
    assert rows["s", NO_DOMAIN].accuracy.point is None and rows["s", NO_DOMAIN].miss_rate.point == 1.0
    assert domain_breakdown([("s", None, "GOOD"), ("s", "", "BAD")]) == []  # no domain anywhere: no breakdown


def _item(item_id: str, domain: str | None, good: str, bad: str) -> dict:
    record = {
        "id": item_id, "sentence": "x", "target": {"text": "x", "start": 0, "end": 1, "lemma": "x", "pos": "NOUN"},
        "synset": "bn:00000001n", "gloss": "", "source": "test", "polysemy_degree": 2, "sense_rank": 1,
        "senses": [{"synset": "bn:00000001n", "rank": 1}, {"synset": "bn:00000002n", "rank": 2}],
        "languages": {"IT": {
            "good": [{"text": good, "pos": None, "origin": "lexicon", "synsets": ["bn:00000001n"]}],
            "bad": [{"text": bad, "pos": None, "origin": "lexicon", "synsets": ["bn:00000002n"]}],
        }},
    }  # fmt: skip
    return record | ({"domain": domain} if domain else {})


def test_cli_metrics_and_report_break_down_by_domain(tmp_path: Path) -> None:
    records = [
        _item("a", "news", "gatto", "cane"),
        _item("b", "news", "mela", "pera"),
        _item("c", "sport", "palla", "rete"),
    ]
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    rows = [("a", "Il gatto dorme."), ("b", "Una pera rossa."), ("c", "Niente qui.")]
    translations = tmp_path / "mt.jsonl"
    translations.write_text(
        "".join(json.dumps({"id": i, "lang": "IT", "system": "s", "translation": t}) + "\n" for i, t in rows),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["evaluate", str(dataset), str(translations), "--out", str(out)]) == 0
    by_domain = {row["domain"]: row for row in json.loads((out / "metrics.json").read_text())["by_domain"]}
    # news: a GOOD, b BAD → accuracy 50 %, %MISS 0, BAD rate 50 %; sport: c MISS → accuracy n/a, %MISS 100
    assert by_domain["news"]["n"] == 2 and by_domain["news"]["accuracy"]["percent"] == 50.0
    assert by_domain["news"]["miss_rate"]["percent"] == 0.0 and by_domain["news"]["bad_rate"]["percent"] == 50.0
    assert by_domain["sport"]["accuracy"]["percent"] is None and by_domain["sport"]["miss_rate"]["percent"] == 100.0
    assert main(["report", str(out)]) == 0
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "### By domain" in markdown
    # Markdown-escaped brackets: "50.00 [0.00, 100.00]" when rendered
    assert "| s | news | 2 | 50.00 \\[0.00, 100.00\\] | 0.00 \\[0.00, 0.00\\] | 50.00 \\[0.00, 100.00\\] |" in markdown
    assert "| s | sport | 1 | n/a | 100.00 \\[100.00, 100.00\\] | 0.00 \\[0.00, 0.00\\] |" in markdown
    analysed = [json.loads(line) for line in (out / "analysed.jsonl").read_text().splitlines()]
    assert [record.get("domain") for record in analysed] == ["news", "news", "sport"]


# --- smaller fixes --------------------------------------------------------------------------------------------------


def test_cli_lists_the_skipped_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(_item("a", None, "gatto", "cane")) + "\n", encoding="utf-8")
    lines = [{"id": "a", "lang": "IT", "system": "s", "translation": "Il gatto."}]
    lines.append({"id": "a", "lang": "FR", "system": "s", "translation": "Le chat."})  # line 2: language
    lines += [{"id": f"gone-{n}", "lang": "IT", "system": "s", "translation": "x"} for n in range(24)]  # lines 3–26
    translations = tmp_path / "mt.jsonl"
    translations.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "25 translations skipped" in printed
    language, item = SKIP_REASONS["unknown_language"], SKIP_REASONS["unknown_item"]
    assert f"  line 2: id 'a', FR: {language}" in printed
    assert f"  line 3: id 'gone-0', IT: {item}" in printed
    assert f"  line 21: id 'gone-18', IT: {item}" in printed  # the 20th listed
    assert "line 22:" not in printed
    assert "  … and 5 more" in printed


def test_significance_writes_p_below_one_over_b_and_warns_under_30_items() -> None:
    assert p_value_text("0.0000", 1000) == "< 0.001"
    assert p_value_text("0.0000", 200) == "< 0.005"
    assert p_value_text("0.0420", 1000) == "0.0420"
    many = [("a", str(i), "IT", "GOOD") for i in range(40)] + [("b", str(i), "IT", "BAD") for i in range(40)]
    markdown = significance_markdown(significance_rows(many, resamples=1000))
    assert "| a | b | IT | 40 | 100.00 | 0.00 | 100.00 | \\< 0.001 |" in markdown
    assert "0.0000" not in markdown and "Warning" not in markdown  # 40 items: no warning
    few = significance_markdown(significance_rows(many[:10] + many[40:50], resamples=1000))
    assert "| a | b | IT | 10 † |" in few
    assert "Warning: n \\< 30 items" in few


def test_a_page_evaluation_of_the_live_curation_states_it_and_its_digest(tmp_path: Path) -> None:
    create_demo(str(tmp_path / "data"), quiet=True)
    project = Project.open(tmp_path / "data")
    translations = builtin_path("demo/translations.jsonl")
    params = {"current": True, "page": True, "translations": str(translations), "analyser": "default"}
    job = jobs.start(project, JobKind.EVALUATE, params, launch=False)
    assert jobs.work(project, job.id).state is JobState.DONE
    provenance = json.loads(job_files.read_bytes(project, job.id, "metrics.json"))["provenance"]
    assert provenance["dataset"] == {
        "kind": "live curation",
        "project": project.settings().name,
        "items": len(dataset_from_project(project).items),
        "digest": dataset_digest(dataset_from_project(project)),
    }
    assert provenance["translations"][0]["sha256"] == sha256(translations)
    assert load_result(project, job.id).provenance == provenance  # another server's page reads the same statement
