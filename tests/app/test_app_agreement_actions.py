"""The Agreement page's adjudication runs through the app's one action runner: a rule's refusal and a stale page are
said on the page in the runner's words, and nothing is saved (AppTest over the whole app, SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.domain.commands import Address, MarkDone
from annotator.domain.model import Role, Status, User
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService

pytestmark = pytest.mark.both_engines

ITEM, LANG = "shot-whiskey", "IT"
LEAD = ("lead", "demo-lead-pass")


@pytest.fixture
def finished(app_demo: Path) -> Project:
    """The demo with ``ITEM`` assigned to ana and ben, both copies done: ready for a lead's adjudication."""
    project = Project.open(app_demo)
    for name in ("ana", "ben"):
        add_user(project, name, Role.TRANSLATOR, (LANG,), f"{name}-password")
    DoubleCurationService(project, person(project, "lead")).assign(LANG, ["ana", "ben"], item_ids=[ITEM])
    for name in ("ana", "ben"):
        service = CurationService(project, person(project, name))
        address = Address(ITEM, LANG, name)
        service.handle(address, MarkDone(), service.view_of(address).state.version)
    return project


def person(project: Project, name: str) -> User:
    with project.db.read() as conn:
        found = project.repo.get_user(conn, name)
    assert found is not None
    return found


def adjudication_page() -> AppTest:
    at = logged_in(*LEAD).switch_page("pages/agreement.py").run()
    assert not at.exception, at.exception
    at.selectbox(key="agr_adjudicate").set_value(f"{ITEM} [{LANG}]").run()
    return at


def button(at: AppTest, suffix: str) -> AppTest:
    return next(b for b in at.button if b.key and b.key.startswith(f"adj|{ITEM}|") and b.key.endswith(suffix))


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def test_a_refused_adjudication_is_said_on_the_page_and_saves_nothing(finished: Project) -> None:
    at = adjudication_page()
    reason = next(s for s in at.selectbox if s.key and s.key.endswith("|reason"))
    reason.set_value("other").run()  # "other" needs a note, and none is given
    before = dump(finished)
    button(at, "|discard").click().run()
    assert not at.exception, at.exception
    assert any("needs a note" in text for text in errors(at)), errors(at)
    assert dump(finished) == before


def test_a_stale_adjudication_page_is_refused_in_the_runners_words(finished: Project) -> None:
    at = adjudication_page()
    lead = DoubleCurationService(finished, person(finished, "lead"))
    with finished.db.read() as conn:
        version = finished.repo.get_item_language(conn, ITEM, LANG).version
    lead.adjudicate(ITEM, LANG, ["goccio"], [], version)  # another lead's window adjudicates first
    before = dump(finished)
    button(at, "|save").click().run()
    assert not at.exception, at.exception
    assert any("already been adjudicated" in text for text in errors(at)), errors(at)
    assert dump(finished) == before
    with finished.db.read() as conn:
        assert finished.repo.get_item_language(conn, ITEM, LANG).status is Status.DONE
