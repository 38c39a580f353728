"""Lead-only project actions (SPEC §5): refused for translators at the service, audited for everyone."""

from __future__ import annotations

import pytest
from prepopulate_data import SNAPSHOT
from project_helpers import SAMPLE_ITEMS, dump

from annotator.domain.model import User
from annotator.errors import PermissionDenied
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import Project
from annotator.services.administration import add_languages, set_excluded
from annotator.services.filters import run_filters
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL


def test_translators_cannot_run_project_actions(project: Project, translator_it: User, write_jsonl) -> None:
    path = write_jsonl("items.jsonl", SAMPLE_ITEMS)
    before = dump(project)
    lexicon = SnapshotLexicon.from_data(SNAPSHOT)
    for action in (
        lambda: import_items(project, path, user=translator_it),
        lambda: prepopulate(project, lexicon=lexicon, user=translator_it),
        lambda: run_filters(project, lexicon=lexicon, user=translator_it),
        lambda: set_excluded(project, ["shot-whiskey"], True, user=translator_it),
        lambda: add_languages(project, ["FR"], user=translator_it),
    ):
        with pytest.raises(PermissionDenied, match="Only a lead"):
            action()
    assert dump(project) == before


def test_lead_actions_are_audited(project: Project, lead: User, write_jsonl) -> None:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS), user=lead)
    set_excluded(project, ["head-stream"], True, user=lead)
    set_excluded(project, ["head-stream"], False)  # the command line
    add_languages(project, ["FR"], user=lead)
    with project.db.read() as conn:
        entries = project.repo.audit(conn)
        assert len(project.repo.item_languages_of(conn, "head-stream")) == 6  # FR added as pending
    actions = [(e["user"], e["action"]) for e in reversed(entries)]
    assert actions[:3] == [("lena", "import"), ("lena", "exclude"), (actions[2][0], "include")]
    assert actions[2][0].startswith("cli") and actions[3] == ("lena", "languages")
    assert entries[-1]["detail"] == {"file": "items.jsonl", "added": 2, "replaced": 0, "force": False}
    assert all(e["at"] for e in entries)


def test_adding_a_language_is_one_transaction_with_its_audit_row(project: Project, lead: User, write_jsonl) -> None:
    """Issue 32: the settings were saved in one transaction and audited in a second; a failure between them left a
    change nobody had recorded. Now the check, the settings, the new rows and the audit row commit together."""
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS), user=lead)
    held: list[float] = []
    project.db.write_recorder = held.append
    add_languages(project, ["FR"], user=lead)
    project.db.write_recorder = None
    assert len(held) == 1
    with project.db.read() as conn:
        assert project.repo.audit(conn)[0]["action"] == "languages"
        assert len(project.repo.item_languages_of(conn, "head-stream")) == 6
