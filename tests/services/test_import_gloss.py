"""A re-import whose only change is an item's gloss applies the new gloss and says so in the summary (issue 10)."""

from __future__ import annotations

from dataclasses import replace

from project_helpers import SAMPLE_ITEMS, dump

from annotator.cli import main
from annotator.domain.model import Status
from annotator.project import Project
from annotator.services.importing import import_items


def glosses(project: Project) -> dict[str, str]:
    with project.db.read() as conn:
        return {item.id: item.gloss for item in project.repo.list_items(conn)}


def test_a_gloss_only_change_is_applied_and_reported(project: Project, write_jsonl) -> None:
    rows = [{**row, "gloss": f"old gloss of {row['id']}"} for row in SAMPLE_ITEMS]
    import_items(project, write_jsonl("items.jsonl", rows))
    with project.db.write() as conn:  # curated work on the item does not block a gloss change
        state = project.repo.get_item_language(conn, "shot-whiskey", "IT")
        project.repo.save_item_language(conn, replace(state, status=Status.DONE), state.version, "ivo", "done")

    rows[0] = {**rows[0], "gloss": "A small drink of liquor, newly worded."}
    report = import_items(project, write_jsonl("items2.jsonl", rows))
    assert (report.added, report.replaced, report.unchanged, report.glosses) == (0, 0, 1, 1)
    assert report.summary() == "0 added, 0 replaced, 1 unchanged, 1 gloss(es) updated"
    assert glosses(project) == {
        "shot-whiskey": "A small drink of liquor, newly worded.",
        "head-stream": rows[1]["gloss"],
    }
    with project.db.read() as conn:
        assert project.repo.get_item_language(conn, "shot-whiskey", "IT").status is Status.DONE
        audit = project.repo.audit(conn)
    assert audit[0]["action"] == "import" and audit[0]["detail"]["glosses"] == 1

    before = dump(project)  # the same file again, and a file without glosses: true no-ops
    assert import_items(project, write_jsonl("items3.jsonl", rows)).summary() == "0 added, 0 replaced, 2 unchanged"
    without = [{k: v for k, v in row.items() if k != "gloss"} for row in rows]
    assert import_items(project, write_jsonl("items4.jsonl", without)).glosses == 0
    assert dump(project) == before


def test_the_command_line_summary_names_the_gloss_updates(project: Project, write_jsonl, capsys) -> None:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    changed = [{**SAMPLE_ITEMS[0], "gloss": "new"}, SAMPLE_ITEMS[1]]
    assert main(["import", str(write_jsonl("changed.jsonl", changed)), "--data", str(project.data_dir)]) == 0
    assert "0 added, 0 replaced, 1 unchanged, 1 gloss(es) updated" in capsys.readouterr().out
    assert glosses(project)["shot-whiskey"] == "new"
