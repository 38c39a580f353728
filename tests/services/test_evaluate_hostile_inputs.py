"""Issue 20 (points 5 and 8) in the evaluation's file readers: JSON nested 100,000 levels deep in a dataset or a
translations file is a line message and exit 2 (not a ``RecursionError``), and a system name holding a control or
an invisible character is refused where the translations are read, naming the line and the rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evaluation_data import DATASET, jl, write_dataset

from annotator.cli import main
from annotator.evaluation.inputs import EvaluationInputError, dataset_from_records, parse_dataset, parse_translations

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deeply_nested_dataset_line_is_a_line_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.dumps(DATASET[0]), '{"id": "deep", "languages": ' + DEEP + "}", json.dumps(DATASET[1])]
    with pytest.raises(EvaluationInputError) as caught:
        parse_dataset(lines, "dataset.jsonl")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(2, "too_deep")]

    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    translations = tmp_path / "mt.jsonl"
    translations.write_text(jl(id="shot-photo", lang="IT", system="s", translation="una foto") + "\n")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "dataset.jsonl, line 2" in err and "too_deep" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_a_value_nested_deeper_than_the_limit_but_decodable_is_refused_before_anything_walks_it() -> None:
    """900 levels decode, but walking them (surrogate search, schema messages) could exhaust the stack."""
    record = json.loads(json.dumps(DATASET[0]))
    record["languages"]["IT"]["good"][0]["synsets"] = json.loads("[" * 900 + "]" * 900)
    with pytest.raises(EvaluationInputError) as caught:
        dataset_from_records([record], "records")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(1, "too_deep")]


def test_a_deeply_nested_translation_line_is_a_line_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = write_dataset(tmp_path)
    translations = tmp_path / "mt.jsonl"
    good = jl(id="shot-photo", lang="IT", system="s", translation="una foto")
    translations.write_text(good + "\n" + '{"id": ' + DEEP + "}\n", encoding="utf-8")
    assert main(["evaluate", str(dataset), str(translations), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "mt.jsonl, line 2" in err and "too_deep" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("system", "rule"),
    [
        ("gpt\n4", "control_character"),
        ("gpt\x1b[31m", "control_character"),
        ("gpt\u2028x", "control_character"),
        ("dee\x85pl", "control_character"),
        ("mt\u202eevil", "invisible_character"),
    ],
)
def test_a_system_name_with_a_control_character_is_refused_with_its_line(system: str, rule: str) -> None:
    dataset = dataset_from_records(DATASET)
    good = jl(id="shot-photo", lang="IT", system="ok", translation="una foto")
    text = good + "\n" + jl(id="shot-photo", lang="DE", system=system, translation="ein Foto") + "\n"
    with pytest.raises(EvaluationInputError) as caught:
        parse_translations(text, dataset, "mt.jsonl")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(2, rule)]
    assert "system name" in caught.value.problems[0].message


def test_a_tsv_system_name_with_an_escape_character_is_refused() -> None:
    dataset = dataset_from_records(DATASET)
    text = "id\tlang\tsystem\ttranslation\nshot-photo\tIT\tmt\x07\tuna foto\n"
    with pytest.raises(EvaluationInputError) as caught:
        parse_translations(text, dataset, "mt.tsv")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(2, "control_character")]


def test_translation_lines_are_read_as_the_standard_library_reads_them() -> None:
    """orjson reads the lines first; what it refuses (NaN, 1e999, an escaped lone surrogate) or would read otherwise
    (an integer past 64 bits) gets the standard library's reading: the same translations and the same problems."""
    dataset = dataset_from_records(DATASET)
    lines = [
        '{"id": "shot-photo", "lang": "IT", "system": "a", "translation": "una foto", "score": NaN}',
        '{"id": "shot-photo", "lang": "IT", "system": "b", "translation": "una \\ud83d\\udcf7 foto", "n": 1e999}',
        '{"id": "shot-photo", "lang": "DE", "system": "a", "translation": "ein Foto", "n": 12345678901234567890123}',
        '{"id": "shot-photo", "lang": "DE", "system": "b", "translation": "ein \\ud800 Foto"}',
        '{"id": 123456789012345678901234567, "lang": "DE", "system": "c", "translation": "ein Foto"}',
    ]
    with pytest.raises(EvaluationInputError) as caught:
        parse_translations("\n".join(lines) + "\n", dataset, "mt.jsonl")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(4, "surrogate"), (5, "bad_value")]
    read = parse_translations("\n".join(lines[:3]) + "\n", dataset, "mt.jsonl")
    assert [(t.lang, t.system, t.text) for t in read] == [
        ("IT", "a", "una foto"),
        ("IT", "b", "una \U0001f4f7 foto"),
        ("DE", "a", "ein Foto"),
    ]
