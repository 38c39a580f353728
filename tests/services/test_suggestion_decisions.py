"""Accepting and dismissing suggestions through the command model (both engines): an accepted suggestion keeps its
source and relation in the history, on the candidate (the card's line) and in the export; only a text the user is
offered is accepted as a suggestion (a forged one is an ordinary add); undo says what it undid in words; a
dismissal is the user's own — no version, no history row, nobody else's page or undo chain touched — kept with the
suggestion's source and relation, and taken back by ``RestoreSuggestion`` (``u`` right after it in the work area)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from project_helpers import dump
from sqlalchemy import select
from suggestion_data import BEVERAGE, by_text, person, version

from annotator.app import components
from annotator.data_export.dataset import DATASET_FILE, export_dataset, schema_path
from annotator.domain import undo
from annotator.domain.commands import AcceptSuggestion, Address, DismissSuggestion, RestoreSuggestion
from annotator.domain.model import Role, Side, SuggestedFrom, User
from annotator.errors import UserError
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.evaluate_project import dataset_from_project
from annotator.services.suggestions.card import card_view
from annotator.store import schema

pytestmark = pytest.mark.both_engines

A1 = Address("a1", "IT")


def history(project: Project, item: str = "a1") -> list:
    with project.db.read() as conn:
        return project.repo.history(conn, item, "IT")


def dismissals(project: Project) -> list[tuple[str, str, str, str, str]]:
    table = schema.suggestion_dismissals
    with project.db.read() as conn:
        query = select(table.c.item_id, table.c.user, table.c.text, table.c.source, table.c.relation)
        return sorted(tuple(row) for row in conn.execute(query))


def test_an_accepted_suggestion_keeps_its_source_in_the_history_the_card_and_the_export(
    wn_project: Project,
    tmp_path: Path,
) -> None:
    ivo = CurationService(wn_project, person(wn_project, "ivo"))
    saved = ivo.handle(A1, AcceptSuggestion(Side.GOOD, "bevanda"), version(wn_project, "a1"))
    entry = saved.good[-1]
    assert entry.text == "bevanda" and entry.suggested == SuggestedFrom("related", "hypernym", BEVERAGE)
    last = history(wn_project)[-1]
    assert last.action == "accept_suggestion"
    assert {k: last.detail[k] for k in ("suggestion_source", "suggestion_relation", "suggestion_synset")} == {
        "suggestion_source": "related", "suggestion_relation": "hypernym", "suggestion_synset": BEVERAGE,
    }  # fmt: skip
    view = ivo.view("a1", "IT")
    line, tip = components.provenance(view.state.good[-1], view.item, view.state, Side.GOOD)
    assert line == f"accepted from: hypernym of σ ({BEVERAGE})" and "Accepted from a suggestion" in tip
    assert "suggestion_source: related" in components.history_detail(last)
    # the export's candidate says where it came from, and the file still validates against the shipped schema
    done = ivo.mark_done("a1", "IT", saved.version)
    result = export_dataset(wn_project, tmp_path / "exports")
    lines = [json.loads(text) for text in result.files[DATASET_FILE].read_text(encoding="utf-8").splitlines()]
    exported = next(line for line in lines if line["id"] == "a1")["languages"]["IT"]["good"]
    assert exported == [{"text": "bevanda", "pos": None, "origin": "translator", "synsets": [],
                         "suggestion": {"source": "related", "relation": "hypernym", "synset": BEVERAGE}}]  # fmt: skip
    validator = Draft202012Validator(json.loads(schema_path().read_text(encoding="utf-8")))
    assert [error.message for line in lines for error in validator.iter_errors(line)] == []
    assert "bevanda" in [spec[0] for spec in dataset_from_project(wn_project).items["a1"].candidates["IT"]]
    # undo names the change in words, and the accepted candidate goes back to being a suggestion
    reopened = ivo.reopen("a1", "IT", done.version)
    again = ivo.handle(A1, AcceptSuggestion(Side.BAD, "[sorseggiare]_VERB"), reopened.version)  # cross-PoS form
    plan = undo.plan_undo(ivo.user, again, history(wn_project))
    assert undo.outcome(plan, history(wn_project)) == "Undone: accepting the suggestion [sorseggiare]_VERB into BAD."
    undone = ivo.undo("a1", "IT", again.version)
    assert "[sorseggiare]_VERB" in by_text(card_view(wn_project, "a1", "IT")) and undone.bad == reopened.bad


def test_a_forged_accept_of_a_text_not_suggested_is_an_ordinary_add(wn_project: Project) -> None:
    ivo = CurationService(wn_project, person(wn_project, "ivo"))
    assert "grappa" not in by_text(card_view(wn_project, "a1", "IT", ivo.user))
    saved = ivo.handle(A1, AcceptSuggestion(Side.GOOD, "grappa"), version(wn_project, "a1"))
    assert saved.good[-1].text == "grappa" and saved.good[-1].suggested is None
    last = history(wn_project)[-1]
    assert last.action == "add" and not any(key.startswith("suggestion_") for key in last.detail)
    assert undo.describe(last) == "adding grappa"
    # a suggestion the user dismissed is no longer offered to them: accepting its text is an ordinary add too
    ivo.handle(A1, DismissSuggestion(Side.GOOD, "bevanda"))
    added = ivo.handle(A1, AcceptSuggestion(Side.GOOD, "bevanda"), saved.version)
    assert added.good[-1].suggested is None and history(wn_project)[-1].action == "add"


def test_a_dismissal_is_personal_keeps_its_kind_and_is_restored(wn_project: Project) -> None:
    ivo_user, ada_user = person(wn_project, "ivo"), person(wn_project, "ada")
    ivo, lead = CurationService(wn_project, ivo_user), CurationService(wn_project, wn_project_lead(wn_project))
    added = ivo.add_candidate("a1", "IT", Side.GOOD, "goccio", version(wn_project, "a1"))
    seen_by_lead = lead.view("a1", "IT").state.version  # the lead's page is open on this version
    rows_before = len(history(wn_project))
    kept = ivo.handle(A1, DismissSuggestion(Side.GOOD, "Bevanda"), seen_by_lead)
    assert kept == added and version(wn_project, "a1") == added.version and len(history(wn_project)) == rows_before
    assert dismissals(wn_project) == [("a1", "ivo", "bevanda", "related", "hypernym")]
    assert "bevanda" not in by_text(card_view(wn_project, "a1", "IT", ivo_user))
    for other in (ada_user, lead.user):  # nobody else's view changes, the lead's included
        assert "bevanda" in by_text(card_view(wn_project, "a1", "IT", other))
    assert "bevanda" in by_text(card_view(wn_project, "a2", "IT", ivo_user))  # per item-language
    assert not any("bevanda" in str(h.detail) for h in history(wn_project))  # the lead's history shows nothing
    # the translator's undo chain is intact: their last change is still the add
    assert undo.outcome(undo.plan_undo(ivo_user, kept, history(wn_project)), history(wn_project)) == (
        "Undone: adding goccio."
    )
    # restoring brings it back, again without a version
    assert ivo.handle(A1, RestoreSuggestion("bevanda")) == added
    assert "bevanda" in by_text(card_view(wn_project, "a1", "IT", ivo_user))
    assert dismissals(wn_project) == []
    # the lead's open page saves without a conflict
    saved = lead.add_candidate("a1", "IT", Side.BAD, "colpo", seen_by_lead)
    assert saved.version == seen_by_lead + 1
    # a translator of another language is refused, and nothing changes
    before = dump(wn_project)
    outsider = CurationService(wn_project, User("dora", Role.TRANSLATOR, ("DE",)))
    for command in (DismissSuggestion(Side.GOOD, "bevanda"), RestoreSuggestion("bevanda")):
        with pytest.raises(UserError):
            outsider.handle(A1, command)
    assert dump(wn_project) == before


def wn_project_lead(project: Project) -> User:
    with project.db.read() as conn:
        lead = project.repo.get_user(conn, "lena")
    assert lead is not None
    return lead


def test_a_dismissal_is_not_curation_a_language_holding_only_dismissals_is_removed(
    wn_project: Project,
) -> None:
    from annotator.services.administration import add_languages
    from annotator.services.languages import curated_count, remove_language

    add_languages(wn_project, ("DE",))  # the project's only language cannot be removed
    ivo = CurationService(wn_project, person(wn_project, "ivo"))
    ivo.handle(A1, DismissSuggestion(Side.GOOD, "bevanda"))
    assert dismissals(wn_project) == [("a1", "ivo", "bevanda", "related", "hypernym")]
    assert curated_count(wn_project, "IT") == 0
    removal = remove_language(wn_project, "IT", wn_project_lead(wn_project))
    assert removal.lang == "IT" and "IT" not in wn_project.settings().languages
    assert dismissals(wn_project) == []  # removed with the language, in the same transaction
