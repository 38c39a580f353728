"""Issue 32: one command model. Every change is a typed command handled by one service for an item-language and a
double-curation copy alike; a new kind of change is added in one place (``rules.RULES``) and works for Curate
(a translator on the item-language), Review (a lead on a DISCUSS item) and Double curation (a translator's copy);
the app has one action runner; what a user may do is decided in the domain (``capabilities``)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from command_kinds import PutFirst, put_first
from double_curation_data import ITEM, LANG, user
from project_helpers import dump
from sqlalchemy import select

from annotator.domain import rules
from annotator.domain.capabilities import capabilities
from annotator.domain.commands import AcceptSuggestion, Address, DismissSuggestion
from annotator.domain.model import ItemLanguage, Side, Status
from annotator.errors import ConflictError, PermissionDenied
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService
from annotator.store import schema

APP = Path(__file__).resolve().parents[2] / "annotator" / "app"


def version_of(service: CurationService, address: Address) -> ItemLanguage:
    return service.view_of(address).state


def test_a_new_command_kind_added_in_one_place_works_on_curate_review_and_double_curation(
    demo: Project,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(rules.RULES, PutFirst, put_first)  # the one place a kind of change is added
    translator, lead = CurationService(demo, user(demo, "translator")), CurationService(demo, user(demo, "lead"))
    # Curate: a translator on the item-language
    main = Address(ITEM, LANG)
    state = version_of(translator, main)
    last = state.good[-1]
    saved = translator.handle(main, PutFirst(last.key), state.version)  # type: ignore[arg-type]
    assert saved.good[0] == last and saved.version == state.version + 1
    with demo.db.read() as conn:
        assert demo.repo.history(conn, ITEM, LANG)[-1].action == "put_first"
    with pytest.raises(ConflictError):  # the version lock holds for it too
        translator.handle(main, PutFirst(saved.good[-1].key), state.version)  # type: ignore[arg-type]
    # Review: a lead on a DISCUSS item
    flagged = translator.flag_discuss(ITEM, LANG, "which one first?", saved.version)
    resolved_first = lead.handle(main, PutFirst(flagged.good[-1].key), flagged.version)  # type: ignore[arg-type]
    assert resolved_first.status is Status.DISCUSS and resolved_first.good[0] == flagged.good[-1]
    # Double curation: a translator's copy of another item-language
    other = "head-stream"
    DoubleCurationService(demo, user(demo, "lead")).assign(LANG, ["ana", "ben"], item_ids=[other])
    ana = CurationService(demo, user(demo, "ana"))
    copy = Address(other, LANG, "ana")
    current = version_of(ana, copy)
    saved_copy = ana.handle(copy, PutFirst(current.good[-1].key), current.version)  # type: ignore[arg-type]
    assert saved_copy.good[0] == current.good[-1]
    assert DoubleCurationService(demo, user(demo, "ben")).copy(other, LANG)[1].good == current.good  # ben's: as was


def test_suggestions_are_accepted_and_dismissed_on_an_item_and_on_a_copy(demo: Project) -> None:
    translator = CurationService(demo, user(demo, "translator"))
    main = Address(ITEM, LANG)
    state = version_of(translator, main)
    accepted = translator.handle(main, AcceptSuggestion(Side.GOOD, "cicchetto"), state.version)
    assert accepted.good[-1].text == "cicchetto"
    dismissed = translator.handle(main, DismissSuggestion(Side.BAD, "tiro"), accepted.version)
    assert dismissed == accepted  # personal: no candidate, version or history row changes
    with demo.db.read() as conn:
        last = demo.repo.history(conn, ITEM, LANG)[-1]
        kept = conn.execute(select(schema.suggestion_dismissals.c.user, schema.suggestion_dismissals.c.text)).all()
    assert last.version == accepted.version and kept == [("translator", "tiro")]
    DoubleCurationService(demo, user(demo, "lead")).assign(LANG, ["ana", "ben"], item_ids=["head-stream"])
    ana = CurationService(demo, user(demo, "ana"))
    copy = Address("head-stream", LANG, "ana")
    taken = ana.handle(copy, AcceptSuggestion(Side.GOOD, "fonte viva"), version_of(ana, copy).version)
    assert "fonte viva" in [e.text for e in taken.good]
    before = dump(demo)
    with pytest.raises(PermissionDenied):  # another translator's copy: refused, nothing changed
        CurationService(demo, user(demo, "ben")).handle(copy, AcceptSuggestion(Side.GOOD, "x"), taken.version)
    assert dump(demo) == before


def test_rights_come_from_the_domain_for_the_item_and_for_a_copy(demo: Project) -> None:
    translator, lead = user(demo, "translator"), user(demo, "lead")
    state = ItemLanguage(ITEM, LANG, status=Status.DONE, status_by="someone else")
    assert not capabilities(translator, state).reopen and capabilities(lead, state).reopen
    assert "only a lead may reopen" in capabilities(translator, state).locked
    discuss = replace(state, status=Status.DISCUSS)
    assert capabilities(lead, discuss).resolve and not capabilities(translator, discuss).edit
    copy = replace(state, status=Status.DONE, status_by="translator")
    assert capabilities(translator, copy, [Status.DONE, Status.PENDING]).reopen  # the other is still working
    assert not capabilities(translator, copy, [Status.DONE, Status.DONE]).reopen  # with a lead now
    assert not capabilities(translator, copy, [Status.DONE]).undo  # a copy keeps no history


def test_no_page_restates_a_permission() -> None:
    """One runner and one write path are checked on the syntax trees (``test_one_path_structure``)."""
    for path in APP.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        # no page decides who may reopen or edit: capabilities() does
        assert "status_by == user.name" not in text and "status_by != user.name" not in text, path
        # nor who may resolve a DISCUSS item: the Resolve form is offered on ``capabilities().resolve`` alone
        assert not re.search(r"Status\.\w+\b[^\n]*\bis_lead|\bis_lead\b[^\n]*Status\.", text), path
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if "render_resolve_form(" in line and "def render_resolve_form" not in line:
                assert lines[number - 1].rstrip().endswith(".resolve:") or ".resolve:" in lines[number - 1], (
                    path,
                    number + 1,
                )
