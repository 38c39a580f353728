"""A row that cannot be read travels as a typed ``RowError`` beside the values, never as a magic key among them
(issue 32: ``"__error__"`` was a cell name, so a file with such a column was misread)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from annotator.data_import.items import RowProblem, parse_item_file, parse_row
from annotator.data_import.table_rows import Row, RowError, Rows
from annotator.data_import.tables import load_table


def test_rows_that_cannot_be_read_carry_a_typed_error(tmp_path: Path) -> None:
    csv_file = tmp_path / "items.csv"
    csv_file.write_text("id,sentence\na,one\nb,two,three\n", encoding="utf-8")
    table = load_table(csv_file)
    assert table.rows == [
        Row(2, {"id": "a", "sentence": "one"}),
        Row(3, {}, RowError("3 cells but the header has 2")),
    ]
    lines = tmp_path / "items.jsonl"
    lines.write_text('{"id": "a"}\n[1, 2]\n{"id": \n', encoding="utf-8")
    errors = [row.error for row in load_table(lines).rows]
    assert errors[0] is None
    assert errors[1] == RowError("each line must be a JSON object", "malformed_row")
    assert errors[2] is not None and errors[2].message.startswith("invalid JSON")


def test_a_column_named_like_the_old_marker_is_an_ordinary_column(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "x", "__error__": "not an error"}) + "\n", encoding="utf-8")
    (row,) = load_table(path).rows
    assert row.error is None and row.values["__error__"] == "not an error"


def test_the_item_reader_reports_the_error_with_its_row_and_rule(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "sentence": "x"}\n{"id": ' + "[" * 200 + "\n", encoding="utf-8")
    problems: list[RowProblem] = []
    for row in load_table(path).rows:
        assert parse_row(row, problems, []) is None
    assert problems[-1].row == 2 and problems[-1].rule == "too_deep"


def test_rows_are_a_sequence_of_rows_that_keeps_each_error_with_its_row() -> None:
    bad = RowError("3 cells but the header has 2")
    rows = Rows([Row(2, {"id": "a"}), Row(3, {}, bad)])
    rows.append(Row(5, {"id": "b"}))
    assert len(rows) == 3
    assert rows[1] == Row(3, {}, bad) and rows[-1] == Row(5, {"id": "b"})
    assert rows[1:] == [Row(3, {}, bad), Row(5, {"id": "b"})]
    assert list(rows) == [Row(2, {"id": "a"}), Row(3, {}, bad), Row(5, {"id": "b"})]
    assert rows == [Row(2, {"id": "a"}), Row(3, {}, bad), Row(5, {"id": "b"})]
    with pytest.raises(IndexError):
        rows[3]


def test_a_read_file_is_held_with_at_most_one_tracked_object_per_item(tmp_path: Path) -> None:
    """An import holds the whole file from reading to writing: the read table as dicts of plain values (never
    tracked by the cyclic collector), each valid item as one typed row (``ItemColumns``), not a ``Row``, an ``Item``
    and its ``Target`` per row, which made full collections that slowed the import of 10,000 items by a sixth."""
    path = tmp_path / "items.jsonl"
    lines = [
        json.dumps({"id": f"i{n}", "sentence": f"The bank {n} is near.", "target": "bank", "lemma": "bank",
                    "pos": "NOUN", "synset": "bn:00008364n"})
        for n in range(2000)
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gc.collect()
    before = len(gc.get_objects())
    table = load_table(path)
    gc.collect()
    assert len(gc.get_objects()) - before < 200
    parsed = parse_item_file(path)
    gc.collect()
    assert len(table.rows) == len(parsed.records) == 2000
    assert len(gc.get_objects()) - before < 2000 + 200
    assert parsed.items[5].target.start == 4 and parsed.records[5].target_start == 4
