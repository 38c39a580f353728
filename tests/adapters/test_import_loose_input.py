"""Issue 20 points 8 and 11: loose item input refused by the importer, each message naming the file, row and real
problem, and the project unchanged; deeply nested JSON (items, snapshots) refused with a message and exit 2."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from openpyxl import Workbook
from project_helpers import SAMPLE_ITEMS, dump

from annotator.cli import main
from annotator.data_import.items import ItemImportError, parse_item_file
from annotator.data_import.table_rows import FileFormatError
from annotator.project import Project
from annotator.services.importing import import_items

HEADER = ["id", "sentence", "target", "lemma", "pos", "synset", "source"]
GOOD_ROW = ["ok-1", "A fine bank.", "bank", "bank", "NOUN", "bn:00008364n", "src"]


def _project_with_items(project: Project, write_jsonl) -> dict[str, list[tuple]]:
    import_items(project, write_jsonl("seed.jsonl", SAMPLE_ITEMS))
    return dump(project)


def _refused(project: Project, path: Path) -> list[tuple[int, str, str]]:
    """Import ``path``: it must be refused with the file's name; the problems as (row, column, rule)."""
    with pytest.raises(ItemImportError) as caught:
        import_items(project, path)
    assert path.name in str(caught.value) and "nothing was imported" in str(caught.value)
    return [(p.row, p.column, p.rule) for p in caught.value.problems]


def _cli_refuses(project: Project, path: Path, capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    before = dump(project)
    assert main(["import", str(path), "--data", str(project.data_dir)]) == 2
    err = capsys.readouterr().err
    assert path.name in err and "Traceback" not in err
    for text in expected:
        assert text in err, (text, err)
    assert dump(project) == before


def test_a_formula_cell_is_refused_by_name_not_stored_as_its_text(project, write_jsonl, tmp_path, capsys) -> None:
    before = _project_with_items(project, write_jsonl)
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(HEADER)
    sheet.append(GOOD_ROW)
    sheet.append(["f-1", '=CONCAT("A ","bank.")', "bank", "bank", "NOUN", "bn:00008364n", "src"])
    workbook.save(tmp_path / "formula.xlsx")
    assert _refused(project, tmp_path / "formula.xlsx") == [(3, "sentence", "formula_cell")]
    assert dump(project) == before
    _cli_refuses(project, tmp_path / "formula.xlsx", capsys, "row 3", "'sentence'", "=CONCAT", "formula_cell")


def test_date_cells_are_refused_in_id_and_source_with_the_row(project, write_jsonl, tmp_path, capsys) -> None:
    before = _project_with_items(project, write_jsonl)
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(HEADER)
    sheet.append([datetime.date(2024, 3, 5), *GOOD_ROW[1:]])
    sheet.append(["d-2", "A shot.", "shot", "shot", "NOUN", "bn:00057755n", datetime.datetime(2024, 3, 5, 10, 30)])
    workbook.save(tmp_path / "dates.xlsx")
    problems = _refused(project, tmp_path / "dates.xlsx")
    assert problems == [(2, "id", "id_not_text"), (3, "source", "date_cell")]
    assert dump(project) == before
    _cli_refuses(project, tmp_path / "dates.xlsx", capsys, "row 2", "2024-03-05", "45356", "date_cell")


@pytest.mark.parametrize(
    ("raw_id", "shown"),
    [({"a": 1}, "JSON object"), (True, "true/false"), (7.5, "fraction"), (1e3, "fraction"),
     (12345678901234567890, "too long"), (-4, "negative")],
)  # fmt: skip
def test_json_ids_that_are_not_text_are_refused(project, write_jsonl, raw_id, shown) -> None:
    before = _project_with_items(project, write_jsonl)
    row = {**SAMPLE_ITEMS[0], "id": raw_id}
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("ids.jsonl", [row]))
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [(1, "id", "id_not_text")]
    assert shown in str(caught.value)
    assert dump(project) == before


def test_a_plain_number_id_is_its_digits_and_7_next_to_007_is_refused(project, write_jsonl, tmp_path) -> None:
    rows = [{**SAMPLE_ITEMS[0], "id": 7}]
    parsed = parse_item_file(write_jsonl("seven.jsonl", rows))
    assert [item.id for item in parsed.items] == ["7"]
    before = _project_with_items(project, write_jsonl)
    both = [{**SAMPLE_ITEMS[0], "id": "7"}, {**SAMPLE_ITEMS[1], "id": "007"}]
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("zeros.jsonl", both))
    assert [(p.row, p.rule) for p in caught.value.problems] == [(2, "duplicate_id")]
    assert "leading zeros" in str(caught.value) and "'7'" in str(caught.value)
    assert dump(project) == before
    # ... and against an item already in the project
    import_items(project, write_jsonl("seven.jsonl", [{**SAMPLE_ITEMS[0], "id": "7"}]))
    middle = dump(project)
    with pytest.raises(ItemImportError, match="leading zeros"):
        import_items(project, write_jsonl("zeros.jsonl", [{**SAMPLE_ITEMS[1], "id": "0007"}]))
    assert dump(project) == middle


@pytest.mark.parametrize(
    "synset",
    [
        "http://evil.example/synset",
        "bn:1n",
        "bn:00008364s",
        "wn:0000836n",
        "bn:00008364n?x",
        "00008364n",
        "BN:00008364n",
    ],
)
def test_synsets_must_be_babelnet_or_wordnet_ids(project, write_jsonl, synset) -> None:
    before = _project_with_items(project, write_jsonl)
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("synsets.jsonl", [{**SAMPLE_ITEMS[0], "id": "s1", "synset": synset}]))
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [(1, "synset", "bad_synset")]
    assert dump(project) == before


def test_wordnet_and_babelnet_synsets_are_accepted(write_jsonl) -> None:
    rows = [{**SAMPLE_ITEMS[0], "id": "w", "synset": "wn:02084071n"}, {**SAMPLE_ITEMS[1], "id": "b"}]
    assert [item.synset for item in parse_item_file(write_jsonl("ok.jsonl", rows)).items] == [
        "wn:02084071n",
        SAMPLE_ITEMS[1]["synset"],
    ]


@pytest.mark.parametrize("control", ["\x07", "\x1b[31m", "\x00", "\x7f", "\x85"])
def test_control_characters_in_a_sentence_are_refused(project, write_jsonl, control) -> None:
    before = _project_with_items(project, write_jsonl)
    row = {**SAMPLE_ITEMS[0], "id": "c1", "sentence": f"He poured a shot{control} of whiskey."}
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("bell.jsonl", [row]))
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [(1, "sentence", "control_character")]
    assert f"U+{ord(control[0]):04X}" in str(caught.value)
    assert dump(project) == before


def test_a_duplicate_sentence_header_is_named(project, write_jsonl, tmp_path, capsys) -> None:
    before = _project_with_items(project, write_jsonl)
    path = tmp_path / "twice.csv"
    path.write_text("id,sentence,target,lemma,pos,synset,sentence\nd1,A bank.,bank,bank,NOUN,bn:00008364n,\n")
    with pytest.raises(FileFormatError) as caught:
        import_items(project, path)
    message = str(caught.value)
    assert "twice.csv" in message and "row 1" in message and "'sentence' appears twice" in message
    assert "duplicate_column" in message and "target_not_in_sentence" not in message
    assert dump(project) == before
    _cli_refuses(project, path, capsys, "'sentence' appears twice", "duplicate_column")
    workbook = Workbook()
    workbook.active.append(["id", "Sentence", "target", "lemma", "pos", "synset", "sentence"])
    workbook.active.append(["d1", "A bank.", "bank", "bank", "NOUN", "bn:00008364n", "other"])
    workbook.save(tmp_path / "twice.xlsx")
    with pytest.raises(
        FileFormatError, match=r"twice\.xlsx: row 1: the column 'sentence' appears twice \(columns 2 and 7\)"
    ):
        import_items(project, tmp_path / "twice.xlsx")
    assert dump(project) == before


def test_an_unbalanced_quote_is_named_not_an_empty_synset(project, write_jsonl, tmp_path, capsys) -> None:
    before = _project_with_items(project, write_jsonl)
    path = tmp_path / "quote.csv"
    path.write_text(
        "id,sentence,target,lemma,pos,synset\n"
        "q1,A bank.,bank,bank,NOUN,bn:00008364n\n"
        'q2,"A shot.,shot,shot,NOUN,bn:00057755n\n'
        "q3,A bank.,bank,bank,NOUN,bn:00008364n\n"
    )
    problems = _refused(project, path)
    assert problems == [(3, "", "unbalanced_quote")]
    assert dump(project) == before
    _cli_refuses(project, path, capsys, "row 3", "never closed", "unbalanced_quote")
    assert "is empty" not in capsys.readouterr().err
    # a quote closed by a stray one rows later swallows rows: named too
    path.write_text(
        "id,sentence,target,lemma,pos,synset\n"
        'q2,"A shot.,shot,shot,NOUN,bn:00057755n\n'
        "q3,A bank.,bank,bank,NOUN,bn:00008364n\n"
        'q4,A "bank.,bank,bank,NOUN,bn:00008364n\n'
    )
    assert _refused(project, path)[0] == (2, "", "unbalanced_quote")
    # a real multi-line cell with commas is still read
    path.write_text('id,sentence,target,lemma,pos,synset\nm1,"A bank,\nby the river.",bank,bank,NOUN,bn:00008364n\n')
    assert [item.sentence for item in parse_item_file(path).items] == ["A bank, by the river."]


@pytest.mark.parametrize(("start", "end", "said"), [(9, 4, "is after end 4"), (4, 4, "the same as end 4")])
def test_reversed_offsets_are_named(project, write_jsonl, start, end, said) -> None:
    before = _project_with_items(project, write_jsonl)
    row = {"id": "o1", "sentence": "A bank.", "start": start, "end": end, "lemma": "bank", "pos": "NOUN",
           "synset": "bn:00008364n"}  # fmt: skip
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("offsets.jsonl", [row]))
    assert [(p.row, p.rule) for p in caught.value.problems] == [(1, "bad_offsets")]
    assert said in str(caught.value) and "outside" not in str(caught.value)
    assert dump(project) == before


def test_a_cr_only_csv_is_read(project, tmp_path) -> None:
    """Excel's "CSV (Macintosh)" ends lines with CR alone: read as lines, and the note says so."""
    path = tmp_path / "mac.csv"
    path.write_bytes(
        b"id,sentence,target,lemma,pos,synset\r"
        b"m1,A bank.,bank,bank,NOUN,bn:00008364n\r"
        b'm2,"He took a shot,\rthen left.",shot,shot,NOUN,bn:00057755n\r'
    )
    parsed = parse_item_file(path)
    assert [(item.id, item.sentence) for item in parsed.items] == [
        ("m1", "A bank."),
        ("m2", "He took a shot, then left."),
    ]
    assert any("CR only" in warning.message for warning in parsed.warnings)
    import_items(project, path)
    assert {row[0] for row in dump(project)["items"]} == {"m1", "m2"}


def test_deeply_nested_json_in_an_item_file_is_a_row_message_and_exit_2(project, write_jsonl, tmp_path, capsys):
    before = _project_with_items(project, write_jsonl)
    path = tmp_path / "deep.jsonl"
    deep = '{"id": "x", "sentence": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text(json.dumps(SAMPLE_ITEMS[0]) + "\n" + deep + "\n", encoding="utf-8")
    assert _refused(project, path) == [(2, "", "too_deep")]
    assert dump(project) == before
    _cli_refuses(project, path, capsys, "row 2", "nested deeper than 64 levels", "too_deep")


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_deeply_nested_json_in_a_snapshot_is_a_message_and_exit_2(project, tmp_path, capsys, suffix) -> None:
    before = dump(project)
    path = tmp_path / f"deep{suffix}"
    deep = "[" * 100_000 + "]" * 100_000
    header = {
        "type": "header",
        "format": "annotator-lexicon-snapshot",
        "format_version": 1,
        "provider": "t",
        "label": "t",
        "version": "1",
    }
    if suffix == ".jsonl":
        path.write_text(json.dumps(header) + '\n{"type": "synset", "senses": ' + deep + "}\n", encoding="utf-8")
    else:
        path.write_text('{"format": "annotator-lexicon-snapshot", "synsets": ' + deep + "}", encoding="utf-8")
    assert main(["lexicon", "use-snapshot", str(path), "--data", str(project.data_dir)]) == 2
    err = capsys.readouterr().err
    assert path.name in err and "nested deeper than 64 levels" in err and "too_deep" in err
    assert ("line 2" in err) if suffix == ".jsonl" else ("top level" in err)
    assert "Traceback" not in err and "RecursionError" not in err
    assert dump(project) == before
    # the first line itself too deep: sniffing the header must not crash either
    path.write_text(deep + "\n", encoding="utf-8")
    assert main(["lexicon", "use-snapshot", str(path), "--data", str(project.data_dir)]) == 2
    assert "nested deeper" in capsys.readouterr().err


def test_nesting_depth_counts_arrays_and_objects_not_brackets_in_strings() -> None:
    from annotator.data_import.limits import MAX_JSON_DEPTH, json_too_deep

    assert not json_too_deep('{"a": "[[[[", "b": [1, {"c": [2]}]}', 4)  # 4 levels; the string's brackets don't count
    assert json_too_deep('{"a": "]]", "b": [1, {"c": [[2]]}]}', 4)  # 5 levels; a string's ']' can't hide one
    assert not json_too_deep('{"a": "\\"[[[[\\\\", "b": [1, {"c": [2]}]}', 4)  # escaped quotes and backslashes
    depth = MAX_JSON_DEPTH
    assert not json_too_deep("[" * depth + "]" * depth) and json_too_deep("[" * (depth + 1) + "]" * (depth + 1))
    assert not json_too_deep("[]" * 10_000)  # many brackets, shallow
    assert json_too_deep("[" * 100_000)  # unclosed: the parser would still descend
