"""Issue 32, acceptance 1, through the pages: a kind of change the app does not have (``PutFirst``, put a candidate
first in its list), added in one place — the ``put_first_kind`` fixture: its rule, the event that carries it and the
event's handler — works on Curate (a translator), Review (a lead on a DISCUSS item) and Double curation (a
translator's copy), with no page's code touched: the three pages mount the same work area, whose events go through
the one action runner to the one curation service.

Each event is sent as the work area's script sends it (the element's trigger, ``app_helpers.send_area``); the saved
state is read back through the curation service, and what the page then shows is read from the element's data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from app_helpers import area, area_rows, feedback, logged_in, row_key, send_area
from command_kinds import PutFirst, put_first
from streamlit.testing.v1 import AppTest

from annotator.app import work_area
from annotator.app.area_session import Shown
from annotator.app.curate_area import protocol
from annotator.app.curate_area.protocol import AreaEvent
from annotator.domain import commands, rules
from annotator.domain.commands import Address
from annotator.domain.model import ItemLanguage, Role, Status, User
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService

pytestmark = pytest.mark.both_engines  # the pages on SQLite and on PostgreSQL

TRANSLATOR, LEAD, ANA = ("translator", "demo-translator-pass"), ("lead", "demo-lead-pass"), ("ana", "ana-password")
ITEM, OTHER, LANG = "shot-whiskey", "head-stream", "IT"


@dataclass(frozen=True)
class PutFirstEvent(AreaEvent):
    """The new kind's event: the row to put first, named as the element showed it."""

    KIND: ClassVar[str] = "put_first"
    key: str
    text: str = ""


def on_put_first(here: Shown, _user: User, event: PutFirstEvent) -> None:
    """The event as its command, run as every event's is (``work_area.save``: the one action runner)."""
    command = PutFirst(event.key)  # a kind outside the closed union ``Command``: the type checker cannot know it
    work_area.save(here, event, command, f"Put {event.text} first.", "card", "cursor")  # type: ignore[arg-type]


@pytest.fixture
def put_first_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one place the new kind is added: its rule (domain), its event and fields (the protocol the element and
    Python share) and the event's handler (the work area). No page is touched."""
    monkeypatch.setitem(rules.RULES, PutFirst, put_first)
    monkeypatch.setitem(protocol.EVENTS, "put_first", PutFirstEvent)
    monkeypatch.setitem(work_area.HANDLERS, "put_first", on_put_first)


def project(data: Path) -> Project:
    return Project.open(data)


def person(data: Path, name: str) -> User:
    with project(data).db.read() as conn:
        found = project(data).repo.get_user(conn, name)
    assert found is not None
    return found


def stored(data: Path, who: str, address: Address) -> ItemLanguage:
    """The state as saved, read back through the curation service (the copy through its owner's address)."""
    return CurationService(project(data), person(data, who)).view_of(address).state


def said(at: AppTest) -> dict[str, Any]:
    """The feedback the last event left on the page (there is always one after a change or a refusal)."""
    shown = feedback(at)
    assert shown is not None
    return shown


def texts(at: AppTest, side: str) -> list[str]:
    return [row["text"] for row in area_rows(at, side)]


def put_first_on_the_page(at: AppTest, side: str) -> tuple[str, dict[str, Any]]:
    """Send the new kind's event for the last row of ``side`` as the element would; the row's text and the data
    the page drew before."""
    before = area(at)
    last = texts(at, side)[-1]
    assert len(texts(at, side)) >= 2 and texts(at, side)[0] != last
    send_area(at, "put_first", key=row_key(at, side, last), text=last)
    return last, before


def test_curate_a_translator_puts_a_candidate_first(app_demo: Path, put_first_kind: None) -> None:
    at = logged_in(*TRANSLATOR)
    main = Address(ITEM, LANG)
    assert area(at)["item"] == ITEM and texts(at, "good") == ["goccio", "bicchierino"]
    last, before = put_first_on_the_page(at, "good")

    saved = stored(app_demo, "translator", main)
    assert [e.text for e in saved.good] == ["bicchierino", "goccio"]
    assert saved.status is Status.IN_PROGRESS and saved.version == before["version"] + 1
    # what the page shows now: the new order, the new version, the message, the history row
    data = area(at)
    assert texts(at, "good") == ["bicchierino", "goccio"] and data["version"] == saved.version
    assert said(at)["kind"] == "success" and said(at)["text"] == f"Put {last} first."
    assert data["card"]["status_label"] == "in progress"
    newest = data["history"]["rows"][0]
    assert (newest["action"], newest["who"], newest["version"]) == ("put_first", "translator", saved.version)

    # a stale page is refused for it as for any change, the current state shown, nothing saved
    send_area(at, "put_first", key=row_key(at, "good", "goccio"), text="goccio", version=before["version"])
    assert said(at)["kind"] == "error" and "conflict" in said(at)["text"].lower()
    assert stored(app_demo, "translator", main) == saved
    # and Undo takes it back with no code of its own
    send_area(at, "undo")
    assert said(at)["kind"] == "success", said(at)
    assert [e.text for e in stored(app_demo, "translator", main).good] == ["goccio", "bicchierino"]
    assert texts(at, "good") == ["goccio", "bicchierino"]


def test_review_a_lead_puts_a_candidate_first_on_a_discuss_item_then_resolves(
    app_demo: Path, put_first_kind: None
) -> None:
    main = Address(ITEM, LANG)
    translator = CurationService(project(app_demo), person(app_demo, "translator"))
    flag = commands.FlagDiscuss("Which one should come first?")
    translator.handle(main, flag, stored(app_demo, "translator", main).version)
    lead = logged_in(*LEAD)
    lead.switch_page("pages/review.py").run()
    assert not lead.exception, lead.exception
    assert (area(lead)["item"], area(lead)["card"]["status"], area(lead)["editable"]) == (ITEM, "discuss", True)
    last, before = put_first_on_the_page(lead, "bad")

    saved = stored(app_demo, "lead", main)
    assert saved.bad[0].text == last and saved.status is Status.DISCUSS  # still the lead's to resolve
    assert saved.updated_by == "lead" and saved.version == before["version"] + 1
    data = area(lead)
    assert texts(lead, "bad")[0] == last and data["version"] == saved.version
    assert said(lead)["text"] == f"Put {last} first." and data["history"]["rows"][0]["action"] == "put_first"
    # the lead's Resolve form below the work area was redrawn for the new version: resolving is not a conflict
    prefix = f"rev|{ITEM}|{LANG}|"
    lead.text_area(key=prefix + "resolve_comment").input("Fine as it is now.")
    lead.button(key=prefix + "resolve").click().run()
    assert not lead.exception, lead.exception
    resolved = stored(app_demo, "lead", main)
    assert resolved.status is Status.DONE and [e.text for e in resolved.bad] == [e.text for e in saved.bad]


def test_double_curation_a_translator_puts_a_candidate_first_on_their_copy(
    app_demo: Path, put_first_kind: None
) -> None:
    demo = project(app_demo)
    for name in ("ana", "ben"):
        add_user(demo, name, Role.TRANSLATOR, (LANG,), f"{name}-password")
    DoubleCurationService(demo, person(app_demo, "lead")).assign(LANG, ["ana", "ben"], item_ids=[OTHER])
    main, mine, bens = Address(OTHER, LANG), Address(OTHER, LANG, "ana"), Address(OTHER, LANG, "ben")
    item_before, ben_before = stored(app_demo, "lead", main), stored(app_demo, "ben", bens)
    at = logged_in(*ANA)
    at.switch_page("pages/copies.py").run()
    assert not at.exception, at.exception
    assert area(at)["item"] == OTHER and "your double-curation copy" in area(at)["card"]["title"]
    last, before = put_first_on_the_page(at, "good")

    copy = stored(app_demo, "ana", mine)
    assert copy.good[0].text == last and copy.status is Status.IN_PROGRESS
    assert copy.version == before["version"] + 1
    assert stored(app_demo, "ben", bens) == ben_before  # the other translator's copy: as it was
    assert stored(app_demo, "lead", main) == item_before  # the item-language itself: untouched while assigned
    data = area(at)
    assert texts(at, "good")[0] == last and data["version"] == copy.version
    assert said(at)["text"] == f"Put {last} first." and data["card"]["status_label"] == "in progress"
    assert not data["history"]["shown"]  # a copy keeps no history of its own


def test_every_event_the_protocol_declares_has_a_handler_and_no_handler_is_undeclared() -> None:
    """A kind half added (its event declared but no handler) would fail on the page with an error, not a message."""
    assert set(work_area.HANDLERS) == set(protocol.EVENTS)
