"""Evaluation end to end: dataset.jsonl + translations (JSONL/TSV) → analysed.jsonl, metrics.json, the CLI."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest
from evaluation_data import DATASET, cand, jl, write_dataset

import annotator
from annotator.cli import main
from annotator.domain.metrics import ALL, compute_metrics
from annotator.errors import UserError
from annotator.evaluation.inputs import (
    EvaluationInputError,
    dataset_from_records,
    format_skipped,
    load_dataset,
    load_translations,
    parse_dataset,
    parse_translations,
    read_analysed,
)
from annotator.evaluation.presenters import format_metrics_table, metrics_table_rows
from annotator.evaluation.report import scored_from_record
from annotator.evaluation.run import create_analyser, default_out_dir, evaluate, run_evaluation

# (id, lang, system, translation, expected result, expected ω, expected step)
TRANSLATIONS = [
    ("shot-whiskey", "IT", "deepl", "Ha versato un goccio di whisky.", "GOOD", "goccio", "word"),
    ("shot-whiskey", "IT", "google", "Ha sparato un colpo di whisky.", "BAD", "[sparare]_VERB", "lemma"),
    ("shot-photo", "IT", "deepl", "Ha fatto un bello scatto della baia.", "GOOD", "scatto", "word"),
    ("shot-photo", "IT", "google", "Ha fatto un bel colpo della baia.", "MISS", None, None),
    ("shot-whiskey", "DE", "deepl", "Er goss einen Schluck Whiskey ein.", "GOOD", "Schluck", "lemma"),
    ("shot-whiskey", "DE", "google", "Er goss einen Schuss Whiskey ein.", "BAD", "Schuss", "lemma"),
    ("shot-photo", "ZH", "deepl", "她拍了一张海湾的好照片。", "GOOD", "照片", "lemma"),
    ("shot-photo", "ZH", "google", "她对海湾开了一枪。", "BAD", "枪", "surface"),
    ("run-race", "IT", "deepl", "Correrà la maratona.", "GOOD", "correre", "lemma"),
    ("run-race", "IT", "google", "Gestirà la maratona.", "BAD", "gestire", "lemma"),
]


def write_jsonl(folder: Path, rows=TRANSLATIONS, name: str = "mt.jsonl") -> Path:
    path = folder / name
    lines = [
        json.dumps({"id": i, "lang": lang, "system": s, "translation": t}, ensure_ascii=False)
        for i, lang, s, t, *_ in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_tsv(folder: Path, rows=TRANSLATIONS, name: str = "mt.tsv") -> Path:
    path = folder / name
    lines = ["id\tlang\tsystem\ttranslation", *("\t".join(row[:4]) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def analyser():
    return create_analyser("default")


# --- end to end -----------------------------------------------------------------------------------------------------


def test_cli_end_to_end_writes_analysed_items_and_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    dataset, translations, out = write_dataset(tmp_path), write_jsonl(tmp_path), tmp_path / "out"
    code = main(["evaluate", str(dataset), str(translations), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Accuracy" in captured.out and "SFII" in captured.out
    assert "10 translations: 5 GOOD, 4 BAD, 1 MISS" in captured.out
    assert "evaluate [" in captured.err  # the progress bar

    lines = read_analysed(out / "analysed.jsonl")
    assert [(r["id"], r["lang"], r["system"]) for r in lines] == [row[:3] for row in TRANSLATIONS]
    assert [(r["result"], r["omega"], r["step"]) for r in lines] == [row[4:] for row in TRANSLATIONS]
    bad_de = lines[5]
    # Schuss comes from bn:gunshot (rank 1) while the item's σ is bn:drink (rank 3): μ(σ̂) = 1
    assert bad_de["omega_synsets"] == ["bn:gunshot"] and bad_de["omega_rank"] == 1
    assert bad_de["translation"][slice(*bad_de["span"])] == "Schuss"
    assert bad_de["analysis"]["lemmas"][3].casefold() == "schuss"  # simplemma says "Schuß"; casefold agrees
    assert not list(out.glob(".*"))  # no temporary files left behind

    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["format"] == "annotator-evaluation-metrics" and metrics["analyser"] == "default"
    rows = {(r["system"], r["lang"], r["pos"]): r for r in metrics["rows"]}
    google_it = rows[("google", "IT", "ALL")]
    # google IT: BAD (sparare, translator-added: no provenance), MISS, BAD (gestire: bn:run-manage rank 3 vs μ(σ)=2)
    assert (google_it["good"], google_it["bad"], google_it["miss"]) == (0, 2, 1)
    assert google_it["accuracy"] == {"percent": 0.0, "count": 0, "total": 2}
    assert google_it["miss_rate"]["count"] == 1 and google_it["miss_rate"]["total"] == 3
    assert google_it["bad_without_provenance"] == 1
    assert google_it["mfs"] == {"percent": 0.0, "count": 0, "total": 1}  # μ(σ̂) = 3 ≠ 1
    assert google_it["mfs_plus"] == {"percent": 0.0, "count": 0, "total": 1}  # 3 is not < 2
    google_all = rows[("google", "ALL", "ALL")]
    # + DE Schuss (μ̂ 1 < μ 3) + ZH 枪 (μ̂ 1 < μ 4): MFS 2/3, MFS+ 2/3
    assert google_all["mfs"]["count"] == 2 and google_all["mfs"]["total"] == 3
    assert google_all["mfs_plus"]["count"] == 2
    deepl_all = rows[("deepl", "ALL", "ALL")]
    assert deepl_all["accuracy"]["percent"] == 100.0 and deepl_all["mfs"]["percent"] is None


def test_tsv_gives_the_same_results_as_jsonl(tmp_path: Path, analyser):
    dataset = write_dataset(tmp_path)
    from_jsonl = run_evaluation(dataset, write_jsonl(tmp_path), analyser)
    from_tsv = run_evaluation(dataset, write_tsv(tmp_path), analyser)
    assert [r.match.to_dict() for r in from_tsv.results] == [r.match.to_dict() for r in from_jsonl.results]
    assert from_tsv.metrics == from_jsonl.metrics


def test_progress_is_reported_per_batch_and_ends_at_total(tmp_path: Path, analyser):
    dataset = load_dataset(write_dataset(tmp_path))
    translations = load_translations(write_jsonl(tmp_path), dataset)
    calls: list[tuple[int, int, str]] = []
    evaluate(dataset, translations, analyser, progress=lambda d, t, m: calls.append((d, t, m)), batch_size=3)
    done = [d for d, _, _ in calls]
    assert done == sorted(done) and done[-1] == 10
    assert all(t == 10 for _, t, _ in calls)
    # DE 2 translations, IT 6 (two batches of 3), ZH 2: at least one report per batch
    assert len({d for d in done if d > 0}) >= 4


def test_rerun_picks_up_a_candidate_added_after_a_miss(analyser):
    records = copy.deepcopy(DATASET)
    text = "shot-photo\tIT\tgoogle\tHa fatto un bel colpo della baia.\n"
    tsv = "id\tlang\tsystem\ttranslation\n" + text
    first = evaluate(
        dataset_from_records(records), parse_translations(tsv, dataset_from_records(records), "x.tsv"), analyser
    )
    assert [r.match.outcome for r in first.with_outcome("MISS")] == ["MISS"]
    records[1]["languages"]["IT"]["good"].append(cand("colpo", origin="translator"))
    dataset = dataset_from_records(records)
    second = evaluate(dataset, parse_translations(tsv, dataset, "x.tsv"), analyser)
    assert second.results[0].match.outcome == "GOOD" and second.results[0].match.omega_text == "colpo"


def test_metrics_recomputed_from_the_analysed_file_match(tmp_path: Path, analyser):
    dataset, out = write_dataset(tmp_path), tmp_path / "run"
    result = run_evaluation(dataset, write_jsonl(tmp_path), analyser, out_dir=out)
    recomputed = compute_metrics(scored_from_record(r) for r in read_analysed(out / "analysed.jsonl"))
    assert recomputed == result.metrics


def test_terminal_table_shows_counts_and_na(tmp_path: Path, analyser):
    result = run_evaluation(write_dataset(tmp_path), write_jsonl(tmp_path), analyser)
    table = format_metrics_table(result.metrics)
    header = table.splitlines()[0].split()
    assert header[:4] == ["system", "lang", "pos", "n"] and "MFS+" in header and "SPDI" in header
    google_it = next(line for line in table.splitlines() if line.split()[:3] == ["google", "IT", "ALL"])
    assert "0.00 (0/2)" in google_it and "33.33 (1/3)" in google_it
    deepl_all = next(line for line in table.splitlines() if line.split()[:3] == ["deepl", "ALL", "ALL"])
    assert "n/a (0/0)" in deepl_all  # deepl made no BAD: MFS has no denominator


def test_default_out_dir_sits_beside_the_translations():
    assert default_out_dir("mt/deepl.tsv") == Path("mt/deepl-evaluation")


# --- bad input ------------------------------------------------------------------------------------------------------


def problems_of(text: str, name: str = "mt.jsonl") -> list[tuple[int, str]]:
    dataset = dataset_from_records(DATASET)
    with pytest.raises(EvaluationInputError) as caught:
        parse_translations(text, dataset, name)
    return [(p.line, p.rule) for p in caught.value.problems]


def test_bad_translation_lines_are_all_reported_with_line_and_rule():
    text = "\n".join(
        [
            jl(id="shot-photo", lang="IT", system="deepl", translation="ok"),
            jl(id="no-such-item", lang="IT", system="deepl", translation="x"),  # skipped, not a problem
            jl(id="shot-photo", lang="IT", translation="x"),
            jl(id="shot-photo", lang="it", system="deepl", translation="again"),
            "{not json",
            jl(id="no-such-item", lang="IT", system="deepl", translation="twice"),  # a duplicate even if skipped
            jl(id="shot-photo", lang="IT", system=" ", translation="x"),
            "",
        ]
    )
    assert problems_of(text) == [
        (3, "missing_field"),
        (4, "duplicate_translation"),
        (5, "invalid_json"),
        (6, "duplicate_translation"),
        (7, "missing_field"),
    ]


TRANSLATIONS_WITH_UNKNOWN = "\n".join(
    [
        jl(id="shot-photo", lang="IT", system="deepl", translation="Ha fatto un bello scatto della baia."),
        jl(id="no-such-item", lang="IT", system="deepl", translation="x"),
        jl(id="shot-photo", lang="FR", system="deepl", translation="x"),
        jl(id="run-race", lang="ZH", system="deepl", translation="x"),  # run-race has no ZH candidates
        jl(id="left-out-too", lang="DE", system="google", translation="x"),
        jl(id="shot-whiskey", lang="DE", system="google", translation="Er goss einen Schuss Whiskey ein."),
    ]
)


def test_translations_outside_the_dataset_are_skipped_and_counted(analyser):
    dataset = dataset_from_records(DATASET)
    translations = parse_translations(TRANSLATIONS_WITH_UNKNOWN, dataset, "mt.jsonl")
    assert [(t.item_id, t.lang, t.line) for t in translations] == [("shot-photo", "IT", 1), ("shot-whiskey", "DE", 6)]
    assert translations.skipped == {"unknown_item": 2, "unknown_language": 1, "item_language_not_in_dataset": 1}
    result = evaluate(dataset, translations, analyser)
    assert [str(r.outcome) for r in result.results] == ["GOOD", "BAD"]
    assert result.skipped == translations.skipped and result.skipped_count == 4
    assert result.metrics_document()["skipped"] == translations.skipped
    assert format_skipped(result.skipped) == (
        "4 translations skipped: 1 of an item the dataset leaves out in that language, 2 of items not in the "
        "dataset, 1 in a language not in the dataset"
    )
    assert format_skipped({"unknown_item": 2}) == "2 translations skipped, as they are of items not in the dataset"
    assert format_skipped({"unknown_language": 1, "unknown_item": 0}) == (
        "1 translation skipped, as it is in a language not in the dataset"
    )


def test_translations_all_outside_the_dataset_are_refused():
    text = (
        jl(id="nope", lang="IT", system="s", translation="x")
        + "\n"
        + jl(id="nix", lang="IT", system="s", translation="y")
    )
    assert problems_of(text) == [(0, "nothing_to_score")]


def test_error_message_names_file_line_and_rule():
    dataset = dataset_from_records(DATASET)
    with pytest.raises(EvaluationInputError) as caught:
        parse_translations(jl(id="nope", lang="IT", translation="x"), dataset, "mt.jsonl")
    message = str(caught.value)
    assert "mt.jsonl, line 1" in message and "missing_field" in message and "system" in message
    assert isinstance(caught.value, UserError)


def test_tsv_header_and_column_count_are_checked():
    assert problems_of("id\tlanguage\tsystem\ttranslation\nshot-photo\tIT\ts\tx\n", "mt.tsv") == [(1, "tsv_header")]
    text = "id\tlang\tsystem\ttranslation\nshot-photo\tIT\ts\tx\textra\nshot-photo\tIT\n"
    assert problems_of(text, "mt.tsv") == [(2, "tsv_columns"), (3, "tsv_columns")]


def test_empty_translation_text_is_a_miss_not_an_error(analyser):
    dataset = dataset_from_records(DATASET)
    translations = parse_translations("id\tlang\tsystem\ttranslation\nshot-photo\tIT\ts\t\n", dataset, "mt.tsv")
    result = evaluate(dataset, translations, analyser)
    assert result.results[0].match.outcome == "MISS"


def test_empty_translations_file_is_refused():
    assert problems_of("\n\n") == [(0, "empty")]


def test_bad_dataset_lines_name_line_and_rule():
    broken = copy.deepcopy(DATASET)
    broken[0]["languages"]["IT"]["good"].append(cand("prend*"))
    del broken[2]["sense_rank"]
    lines = [json.dumps(r) for r in broken] + ["[1, 2]", json.dumps(DATASET[1])]
    with pytest.raises(EvaluationInputError) as caught:
        parse_dataset(lines, "dataset.jsonl")
    assert [(p.line, p.rule) for p in caught.value.problems] == [
        (1, "candidate_wildcard_token"),
        (3, "schema_required"),
        (4, "schema_type"),
        (5, "duplicate_item"),
    ]
    assert "prend*" in str(caught.value)


def test_cli_exit_code_2_on_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    dataset = write_dataset(tmp_path)
    bad = tmp_path / "bad.jsonl"
    good = jl(id="shot-photo", lang="IT", system="s", translation="x")
    bad.write_text(good + "\n" + jl(id="shot-photo", lang="IT", system="s") + "\n", encoding="utf-8")
    assert main(["evaluate", str(dataset), str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl, line 2" in err and "missing_field" in err and "translation" in err
    assert not (tmp_path / "o").exists()  # nothing written

    assert main(["evaluate", str(tmp_path / "missing.jsonl"), str(bad)]) == 2
    assert "file not found" in capsys.readouterr().err


def test_cli_reports_skipped_translations(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    dataset, translations = write_dataset(tmp_path), tmp_path / "mt.jsonl"
    translations.write_text(TRANSLATIONS_WITH_UNKNOWN + "\n", encoding="utf-8")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "2 translations: 1 GOOD, 1 BAD, 0 MISS" in out
    assert "4 translations skipped: " in out and "2 of items not in the dataset" in out
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["skipped"]["unknown_item"] == 2 and metrics["translation_count"] == 2


# --- null μ(σ) / δ(λ) (allowed by the export schema) -----------------------------------------------------------------


def test_schema_allows_null_sense_rank_and_polysemy_degree():
    schema = json.loads((Path(annotator.__file__).parent / "schema" / "dataset.schema.json").read_text("utf-8"))
    assert "null" in schema["properties"]["sense_rank"]["type"]
    assert "null" in schema["properties"]["polysemy_degree"]["type"]


def null_rank_dataset() -> list[dict]:
    records = copy.deepcopy(DATASET)
    records[0]["sense_rank"] = None  # run-race: σ not in Ω(λ)
    records[2]["sense_rank"] = None  # shot-whiskey: σ not in Ω(λ) ...
    records[2]["polysemy_degree"] = None  # ... and Ω(λ) not pre-populated
    return records


def test_null_sense_rank_and_polysemy_degree_are_evaluated(tmp_path: Path, analyser):
    dataset = load_dataset(write_dataset(tmp_path, null_rank_dataset()))
    assert dataset.items["run-race"].sense_rank is None and dataset.items["shot-whiskey"].polysemy_degree is None
    out = tmp_path / "out"
    result = run_evaluation(tmp_path / "dataset.jsonl", write_jsonl(tmp_path), analyser, out_dir=out)
    assert [str(r.outcome) for r in result.results] == [row[4] for row in TRANSLATIONS]  # matching is unchanged

    google = result.metrics.get("google", ALL, ALL)
    # google: whiskey IT BAD (sparare, no provenance; μ None), photo IT MISS (μ 4, δ 4), whiskey DE BAD (Schuss μ̂ 1;
    # μ None, δ None), photo ZH BAD (枪 μ̂ 1 < μ 4), race IT BAD (gestire μ̂ 3; μ None, δ 3)
    # Accuracy and %MISS count every item: 0/4 and 1/5
    assert (google.accuracy.count, google.accuracy.total) == (0, 4)
    assert (google.miss_rate.count, google.miss_rate.total) == (1, 5)
    # MFS needs only μ(σ̂): Schuss, 枪 (μ̂ 1) of the 3 BAD with provenance
    assert (google.mfs.count, google.mfs.total) == (2, 3)
    # MFS+ needs μ(σ): only 枪 has it (1 < 4); Schuss and gestire are left out
    assert (google.mfs_plus.count, google.mfs_plus.total, google.mfs_plus_left_out) == (1, 1, 2)
    # SFII groups by μ(σ): only μ4 {photo IT MISS, photo ZH BAD} → 1/1 = 100; the 3 items without μ are left out
    assert [(g.key, g.good, g.bad, g.miss) for g in google.sfii.groups] == [(4, 0, 1, 1)]
    assert google.sfii.percent == 100.0 and google.sfii.left_out == 3
    # SPDI groups by δ(λ): δ3 {race IT BAD} 100, δ4 {photo IT MISS, photo ZH BAD} 100; both whiskeys left out
    assert [(g.key, g.good, g.bad, g.miss) for g in google.spdi.groups] == [(3, 0, 1, 0), (4, 0, 1, 1)]
    assert google.spdi.left_out == 2

    google_row = next(
        row
        for row in metrics_table_rows(result.metrics)
        if row["system"] == "google" and row["lang"] == ALL and row["pos"] == ALL
    )
    assert google_row["MFS+"] == "100.00 (1/1, 2 left out)"
    assert (
        google_row["SFII"] == "100.00 (1 group, 3 left out)" and google_row["SPDI"] == "100.00 (2 groups, 2 left out)"
    )

    analysed = read_analysed(out / "analysed.jsonl")
    assert analysed[0]["sense_rank"] is None and analysed[0]["polysemy_degree"] is None
    recomputed = compute_metrics(scored_from_record(r) for r in analysed)
    assert recomputed == result.metrics  # the analysed file round-trips the nulls
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    google_doc = next(r for r in metrics["rows"] if (r["system"], r["lang"], r["pos"]) == ("google", ALL, ALL))
    assert google_doc["sfii"]["left_out"] == 3 and google_doc["mfs_plus_left_out"] == 2


def test_null_and_missing_fields_get_accurate_messages():
    records = copy.deepcopy(DATASET)
    records[0]["id"] = None
    del records[1]["polysemy_degree"]
    records[2]["sense_rank"] = 0
    lines = [json.dumps(r) for r in records]
    lines.append(json.dumps({**DATASET[0], "id": "x", "target": {**DATASET[0]["target"], "pos": None}}))
    with pytest.raises(EvaluationInputError) as caught:
        parse_dataset(lines, "dataset.jsonl")
    found = [(p.line, p.rule, p.message) for p in caught.value.problems]
    assert found == [
        (1, "schema_type", "field 'id': None is not of type 'string'"),
        (2, "schema_required", "missing field 'polysemy_degree'"),
        (3, "schema_minimum", "field 'sense_rank': 0 is less than the minimum of 1"),
        (4, "schema_enum", "field 'target.pos': None is not one of ['NOUN', 'VERB', 'ADJ', 'ADV']"),
    ]


def test_dataset_lines_are_validated_against_the_shipped_schema():
    # a string where the schema wants a list of candidate objects used to be read as six one-letter candidates
    record = copy.deepcopy(DATASET[0])
    record["languages"]["IT"]["good"] = "goccio"
    extra = copy.deepcopy(DATASET[1])
    extra["languages"]["IT"]["bad"][0]["origin"] = "guess"
    del extra["target"]["lemma"]
    with pytest.raises(EvaluationInputError) as caught:
        parse_dataset([json.dumps(record), json.dumps(extra)], "x/dataset.jsonl")
    found = [(p.line, p.rule, p.message) for p in caught.value.problems]
    assert found == [
        (1, "schema_type", "field 'languages.IT.good': 'goccio' is not of type 'array'"),
        (2, "schema_enum", "field 'languages.IT.bad[0].origin': 'guess' is not one of ['lexicon', 'translator']"),
        (2, "schema_required", "missing field 'target.lemma'"),
    ]
    assert "x/dataset.jsonl, line 1: field 'languages.IT.good'" in str(caught.value)


def test_unknown_analyser_is_a_user_error():
    with pytest.raises(UserError, match="unknown analyser"):
        create_analyser("spacy")


def test_cli_leaderboard_writes_the_paired_test_between_the_two_systems(tmp_path: Path):
    dataset, translations, out = write_dataset(tmp_path), write_jsonl(tmp_path), tmp_path / "out"
    assert main(["evaluate", str(dataset), str(translations), "--out", str(out), "--leaderboard"]) == 0
    rows = list(csv.DictReader((out / "significance.csv").open(encoding="utf-8")))
    by_lang = {row["lang"]: row for row in rows}
    assert sorted(by_lang) == ["ALL", "DE", "IT", "ZH"]
    assert all((row["system A"], row["system B"]) == ("deepl", "google") for row in rows)
    # deepl is GOOD on all 5 items, google never: Δ = 100 points in every resample, so none is as far from Δ as 0 is
    assert by_lang["ALL"] | {} == {
        "system A": "deepl", "system B": "google", "lang": "ALL", "n": "5",
        "Acc A": "100.00", "Acc B": "0.00", "ΔAcc": "100.00", "p": "0.0000",
    }  # fmt: skip
    assert by_lang["IT"]["n"] == "3" and by_lang["IT"]["Acc B"] == "0.00"  # google IT: BAD, MISS, BAD
    markdown = (out / "significance.md").read_text(encoding="utf-8")
    # p = 0 over 1000 resamples is written p < 1/B; 5 items are flagged as too few for the bootstrap
    assert "| deepl | google | ALL | 5 † | 100.00 | 0.00 | 100.00 | \\< 0.001 |" in markdown  # Markdown for "< 0.001"
    assert "0.0000" not in markdown and "Warning: n \\< 30" in markdown
