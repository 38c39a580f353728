"""Values wider than the store's columns are refused at import with row, column and rule, on both engines.

PostgreSQL enforces ``String(200)``; SQLite does not: the importer checks, so both engines behave the same
(before, a 247-character ``source`` imported on SQLite and died with a DataError traceback on PostgreSQL).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS, dump

from annotator.cli import main
from annotator.data_import.items import ItemImportError
from annotator.project import Project
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines


def test_a_300_character_source_and_a_250_character_id_are_refused(project: Project, write_jsonl) -> None:
    rows = [dict(SAMPLE_ITEMS[0], source="s" * 300), dict(SAMPLE_ITEMS[1], id="i" * 250)]
    path = write_jsonl("long.jsonl", rows)
    before = dump(project)
    with pytest.raises(ItemImportError) as refused:
        import_items(project, path)
    found = {(p.row, p.column, p.rule) for p in refused.value.problems}
    assert found == {(1, "source", "too_long"), (2, "id", "id_too_long")}
    message = str(refused.value)
    assert "long.jsonl" in message and "'source' has 300 characters, more than 200" in message
    assert "the id has 250 characters, more than 200" in message
    assert dump(project) == before


def test_the_command_line_refuses_it_with_exit_2(project: Project, write_jsonl, capsys) -> None:
    path = write_jsonl("long.jsonl", [dict(SAMPLE_ITEMS[0], source="s" * 300)])
    before = dump(project)
    assert main(["import", str(path), "--data", str(project.data_dir)]) == 2
    err = capsys.readouterr().err
    assert "row 1, column 'source'" in err and "[too_long]" in err and "Traceback" not in err
    assert dump(project) == before


def test_values_at_the_limit_are_imported(project: Project, write_jsonl, tmp_path: Path) -> None:
    rows = [dict(SAMPLE_ITEMS[0], source="s" * 200, id="i" * 200)]
    assert import_items(project, write_jsonl("edge.jsonl", rows)).added == 1
    with project.db.read() as conn:
        assert project.repo.get_item(conn, "i" * 200).source == "s" * 200  # type: ignore[union-attr]
