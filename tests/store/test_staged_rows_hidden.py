"""Issue 10: rows an import is still staging stay hidden from the read model (Dataset, Review, Project pages) and
from the double-curation listings, not only from the repository's own item queries."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS

from annotator.data_export.dataset import ExportOptions
from annotator.data_import.items import content_hash, parse_item_file
from annotator.domain.model import Role, Status
from annotator.project import Project
from annotator.services import read_model
from annotator.services.accounts import add_user
from annotator.services.double_curation import DoubleCurationService, agreement_records
from annotator.services.importing import import_items
from annotator.services.read_model_dataset import dataset_overview
from annotator.store.double_curation import Assignment, Copy

pytestmark = pytest.mark.both_engines

STAGED = [f"staged-{n}" for n in range(3)]


def stage(project: Project, write_jsonl) -> None:  # type: ignore[no-untyped-def]
    """An import in progress (this live process owns it): new items and their item-languages, hidden. Some staged
    rows are then given what would make them show anywhere: a DISCUSS note, an exclusion, double curation."""
    parsed = parse_item_file(write_jsonl("staged.jsonl", [dict(SAMPLE_ITEMS[0], id=item_id) for item_id in STAGED]))
    languages = project.settings().languages
    with project.db.write() as conn:
        import_id = project.repo.begin_import(conn, "staged.jsonl", "cli:test", socket.gethostname(), os.getpid(), 0.0)
        rows = [(item, content_hash(item), 1000 + n) for n, item in enumerate(parsed.items)]
        project.repo.stage_new_items(conn, import_id, rows, languages)
        conn.exec_driver_sql("UPDATE item_languages SET status = 'discuss' WHERE item_id = 'staged-0'")
        conn.exec_driver_sql("UPDATE item_languages SET status = 'done' WHERE item_id = 'staged-2'")
        conn.exec_driver_sql("UPDATE items SET excluded = TRUE, filter_failures = '[\"rule\"]' WHERE id = 'staged-1'")
        project.repo.add_assignments(
            conn,
            [Assignment("staged-2", "IT", "open", "lena", "2026-01-01T00:00:00+00:00")],
            [Copy("staged-2", "IT", name, Status.DONE, 0, (), ()) for name in ("ivo", "ida")],
        )


def shown_ids(project: Project, lead) -> set[str]:  # type: ignore[no-untyped-def]
    """Every item id the read model and the double-curation listings show."""
    langs = project.settings().languages
    found = {entry.item_id for status in Status for entry, _state in read_model.review_list(project, langs, status)}
    found |= {item.id for item in read_model.flagged_items(project)}
    statuses = read_model.item_statuses(project, langs)  # the Items page
    found |= {item.id for item in statuses.items} | {i for by_lang in statuses.status.values() for i in by_lang}
    service = DoubleCurationService(project, lead)
    found |= {summary.item_id for summary in service.assignments()}
    found |= {record.item_id for record in agreement_records(project)}
    with project.db.read() as conn:
        found |= {a.item_id for a in project.repo.list_assignments(conn)}
        found |= {item_id for item_id, _lang in project.repo.assigned_keys(conn) | project.repo.open_keys(conn)}
        found |= {c.item_id for c in project.repo.iter_copies(conn)} | {
            c.item_id for c in project.repo.iter_copy_sets(conn)
        }
        found |= {c.item_id for c in project.repo.copies_for(conn, "ivo")}
        found |= {item_id for item_id, _lang in project.repo.prepopulated_sets(conn, {(i, "IT") for i in STAGED})}
        found |= set(project.repo.item_glosses(conn))
    return found


def overview(project: Project) -> list[object]:
    return [
        (o.items, o.left_out, o.counts().to_json(), o.refinement().to_json())
        for o in (dataset_overview(project, ExportOptions(incomplete, True)) for incomplete in (False, True))
    ]


def test_staged_rows_stay_hidden_from_the_read_model_and_double_curation(project: Project, write_jsonl) -> None:
    lead = add_user(project, "lena", Role.LEAD, (), "lead-password")
    for name in ("ivo", "ida"):
        add_user(project, name, Role.TRANSLATOR, ("IT",), "translator-password")
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    with project.db.read() as conn:
        counts_before = project.repo.status_counts(conn)
    before = overview(project)

    stage(project, write_jsonl)
    with project.db.read() as conn:  # the rows are really there, only hidden
        staged = "SELECT count(*) FROM items WHERE id IN ('staged-0', 'staged-1', 'staged-2')"
        assert conn.exec_driver_sql(staged).scalar() == 3
        assert conn.exec_driver_sql("SELECT count(*) FROM assignments").scalar() == 1

    assert not shown_ids(project, lead) & set(STAGED)
    assert overview(project) == before
    with project.db.read() as conn:
        assert project.repo.status_counts(conn) == counts_before
        by_user = project.repo.status_counts_by_user(conn)
    assert all(user != "system:import" for user, *_rest in by_user)

    with project.db.write() as conn:  # the import commits: everything it staged shows at once
        (staging,) = project.repo.staging_imports(conn)
        project.repo.end_import(conn, staging.id)
    shown = shown_ids(project, lead)
    assert set(STAGED) <= shown
    assert overview(project) != before


def test_the_live_evaluation_dataset_leaves_staged_items_out(project: Project, write_jsonl, tmp_path: Path) -> None:
    from annotator.services.evaluate_project import dataset_from_project

    add_user(project, "lena", Role.LEAD, (), "lead-password")
    for name in ("ivo", "ida"):
        add_user(project, name, Role.TRANSLATOR, ("IT",), "translator-password")
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    stage(project, write_jsonl)
    assert not set(dataset_from_project(project).items) & set(STAGED)


def test_the_items_page_statuses_are_the_queue_s_in_every_language(project: Project, write_jsonl) -> None:
    """``item_statuses`` reads the statuses with a query of its own: the same as the queue (excluded items too)."""
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    langs = project.settings().languages
    first, second = SAMPLE_ITEMS[0]["id"], SAMPLE_ITEMS[1]["id"]
    with project.db.write() as conn:
        conn.exec_driver_sql(f"UPDATE item_languages SET status = 'discuss' WHERE item_id = '{first}' AND lang = 'IT'")
        conn.exec_driver_sql(f"UPDATE items SET excluded = TRUE WHERE id = '{second}'")
    found = read_model.item_statuses(project, langs)
    with project.db.read() as conn:
        queues = {
            lang: {e.item_id: e.status.value for e in project.repo.queue(conn, lang, include_excluded=True)}
            for lang in langs
        }
    assert found.status == queues
    assert found.status["IT"][first] == "discuss" and second in found.status["IT"]
    assert [item.id for item in found.items] == [row["id"] for row in SAMPLE_ITEMS]
