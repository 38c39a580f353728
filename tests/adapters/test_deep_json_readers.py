"""The bounded-depth rule holds for every input reader: a line nesting JSON 100,000 deep (200 KB) is refused with
exit 2 naming the file and the line — wherever the line is, the first one included (the readers that sniff a
file's first line, such as ``evaluate``'s check for swapped arguments, obey the bound too)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evaluation_data import jl, write_dataset
from project_helpers import SAMPLE_ITEMS

from annotator.cli import main
from annotator.project import Project

DEEP = "[" * 100_000 + "]" * 100_000
GOOD_TRANSLATION = jl(id="shot-photo", lang="IT", system="s", translation="una foto")


def refused(arguments: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "RecursionError" not in err
    for text in expected:
        assert text in err, (text, err)


@pytest.mark.parametrize("line", [1, 2])
def test_evaluate_refuses_a_deep_translations_line_wherever_it_is(
    line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = write_dataset(tmp_path)
    deep = '{"id": ' + DEEP + "}"
    translations = tmp_path / "mt.jsonl"
    translations.write_text("\n".join([deep, GOOD_TRANSLATION] if line == 1 else [GOOD_TRANSLATION, deep]) + "\n")
    out = tmp_path / "o"
    refused(["evaluate", str(dataset), str(translations), "--out", str(out)], capsys, f"mt.jsonl, line {line}")
    assert not out.exists()


@pytest.mark.parametrize("line", [1, 2])
def test_evaluate_refuses_a_deep_dataset_line_wherever_it_is(
    line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = write_dataset(tmp_path)
    lines = dataset.read_text().splitlines()
    deep = '{"id": "deep", "languages": ' + DEEP + "}"
    lines.insert(line - 1, deep)
    dataset.write_text("\n".join(lines) + "\n")
    translations = tmp_path / "mt.jsonl"
    translations.write_text(GOOD_TRANSLATION + "\n")
    refused(
        ["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "o")],
        capsys,
        f"dataset.jsonl, line {line}",
        "too_deep",
    )


@pytest.mark.parametrize("line", [1, 2])
def test_item_import_refuses_a_deep_line_wherever_it_is(
    line: int, project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = '{"id": "x", "sentence": ' + DEEP + "}"
    good = json.dumps(SAMPLE_ITEMS[0])
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([deep, good] if line == 1 else [good, deep]) + "\n", encoding="utf-8")
    refused(["import", str(path), "--data", str(project.data_dir)], capsys, f"row {line}", "too_deep")


@pytest.mark.parametrize("line", [1, 2])
def test_a_snapshot_with_a_deep_line_is_refused_wherever_it_is(
    line: int, project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = {"type": "header", "format": "annotator-lexicon-snapshot", "format_version": 1, "provider": "t"}
    header.update(label="t", version="1")
    deep = '{"type": "synset", "senses": ' + DEEP + "}"
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([deep] if line == 1 else [json.dumps(header), deep]) + "\n", encoding="utf-8")
    where = "nested deeper" if line == 1 else "line 2"
    refused(["lexicon", "use-snapshot", str(path), "--data", str(project.data_dir)], capsys, "deep.jsonl", where)


def test_a_report_refuses_an_evaluation_folder_whose_analysed_lines_nest_too_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our own outputs read back (``report``, ``contrastive``) obey the bound too, naming the line."""
    dataset = write_dataset(tmp_path)
    translations = tmp_path / "mt.jsonl"
    translations.write_text(GOOD_TRANSLATION + "\n")
    evaluation = tmp_path / "eval"
    assert main(["evaluate", str(dataset), str(translations), "--out", str(evaluation)]) == 0
    capsys.readouterr()
    analysed = evaluation / "analysed.jsonl"
    analysed.write_text(analysed.read_text() + '{"id": ' + DEEP + "}\n")
    number = len(analysed.read_text().splitlines())
    refused(["report", str(evaluation), "--out", str(tmp_path / "r")], capsys, f"analysed.jsonl, line {number}")
