"""Issue 34, point 7, through AppTest on the whole app: an item opened by a link (the Evaluate page's "Open in Curate")
opens in the queue that holds it, not in "All"; languages are chosen by their names on Curate and People."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import area, logged_in
from streamlit.testing.v1 import AppTest

from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL

LEAD = ("lead", "demo-lead-pass")
DEMO_LANGUAGES = ["DE — German", "ES — Spanish", "IT — Italian", "RU — Russian", "ZH — Chinese"]


@pytest.fixture
def demo(app_demo: Path) -> Path:
    return app_demo


def arrive(at: AppTest, item: str, lang: str) -> AppTest:
    """What "Open in Curate" does: the Evaluate page switches to Curate with ``?item=&lang=``."""
    at.query_params.update({"item": item, "lang": lang})
    at.run()
    assert not at.exception, at.exception
    return at


def test_an_item_opened_from_evaluate_opens_in_the_queue_that_holds_it(demo: Path) -> None:
    project = Project.open(demo)
    service = CurationService(project, authenticate(project, *LEAD))
    service.mark_done("shot-whiskey", "DE", service.view("shot-whiskey", "DE").state.version)
    service.mark_done("bank-river", "DE", service.view("bank-river", "DE").state.version)
    service.flag_discuss("head-stream", "IT", "capo?", service.view("head-stream", "IT").state.version)

    at = logged_in(*LEAD)
    queue = at.sidebar.selectbox(key="cur_queue")
    assert queue.value == "todo"

    arrive(at, "bank-river", "DE")  # done: the Done queue, where Next goes on among the done items
    assert at.sidebar.selectbox(key="cur_queue").value == "done"
    assert at.sidebar.selectbox(key="cur_lang").value == "DE"
    assert area(at)["item"] == "bank-river"
    assert area(at)["nav"]["position"] == "Item 2 of 2 · Done · DE"

    arrive(at, "head-stream", "IT")  # DISCUSS
    assert at.sidebar.selectbox(key="cur_queue").value == "discuss"
    assert area(at)["nav"]["position"] == "Item 1 of 1 · DISCUSS · IT"

    arrive(at, "take-off-thanksgiving", "IT")  # pending: the to-do queue of the language, not "All"
    assert at.sidebar.selectbox(key="cur_queue").value == "todo"
    position = area(at)["nav"]["position"]
    assert position.startswith("Item ") and position.endswith(" of 17 · To do (pending + in progress) · IT"), position

    at.sidebar.selectbox(key="cur_queue").set_value("all").run()  # the user's own choice stays theirs
    arrive(at, "take-off-thanksgiving", "IT")  # the same link again (a reload): nothing changes
    assert at.sidebar.selectbox(key="cur_queue").value == "all"


def test_languages_are_chosen_by_their_names_on_curate_and_people(demo: Path) -> None:
    at = logged_in(*LEAD)
    assert at.sidebar.selectbox(key="cur_lang").options == DEMO_LANGUAGES
    assert at.sidebar.selectbox(key="cur_lang").value == "DE"  # the value is still the code
    at.switch_page("pages/people.py").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="people_new_languages").options == DEMO_LANGUAGES
    at.selectbox(key="people_pick").set_value("translator").run()
    edit = at.multiselect(key="people_edit_languages")
    assert edit.options == DEMO_LANGUAGES and edit.value == ["IT", "DE"]
