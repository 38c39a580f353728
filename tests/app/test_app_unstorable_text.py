"""Issue 31: text no database can store (a lone surrogate, a NUL, a noncharacter) is refused by name, nothing stored.

The Curate work area's events arrive as JSON, where ``"\\ud800"`` decodes to a lone surrogate half; SQLite's driver
cannot encode it (a ``UnicodeEncodeError`` traceback reached the browser) and PostgreSQL refuses a NUL (a
``DataError`` with the SQL did). Driven through AppTest on both engines; the database is compared row by row.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import feedback, logged_in, plain, send_area
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.domain.commands import AddCandidate, Address, FlagDiscuss, MarkDone
from annotator.domain.model import Side
from annotator.domain.unicode_rules import UNSTORABLE_RANGES, UnstorableTextError, check_storable, find_unstorable
from annotator.project import Project
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService

pytestmark = pytest.mark.both_engines

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"
LONE = "\ud800"


def test_unstorable_characters_are_found_and_named() -> None:
    assert find_unstorable(f"ab{LONE}") == (2, LONE)
    assert find_unstorable("a\x00") == (1, "\x00")
    assert find_unstorable("x\ufdd0") == (1, "\ufdd0") and find_unstorable("x\U0010ffff") == (1, "\U0010ffff")
    assert find_unstorable("sorso é 中 😀 \u200b\t\n") is None  # everything else is left to the other rules
    for low, high in UNSTORABLE_RANGES:  # every range, at its ends, in ASCII, BMP and astral surroundings
        for char in {chr(low), chr(high)}:
            for before in ("ab", "é中", "😀x"):
                assert find_unstorable(f"{before}{char}😀\U0001fffd") == (len(before), char)
    assert find_unstorable("😀\U0001fffe\x00") == (1, "\U0001fffe") and find_unstorable("\x00😀\U0001fffe")[0] == 0
    with pytest.raises(UnstorableTextError, match=r"The comment holds U\+D800 .* at character 3") as raised:
        check_storable("comment", f"ok{LONE}")
    assert raised.value.field == "comment" and raised.value.rule == "unstorable_character"


def test_event_text_with_a_lone_surrogate_is_refused_by_name_and_nothing_is_stored(app_demo: Path) -> None:
    at = logged_in("translator", "demo-translator-pass")
    before = dump(Project.open(app_demo))
    for kind, fields, field in [
        ("comment", {"text": f"see {LONE} here"}, "comment"),
        ("add", {"side": "good", "text": f"sor{LONE}so"}, "candidate"),
        ("add_many", {"side": "bad", "text": f"uno\nd{LONE}ue"}, "candidate on line 2"),
        ("discuss", {"text": f"why {LONE}?"}, "DISCUSS note"),
        ("discard", {"reason": "other", "text": f"odd{LONE}"}, "discard note"),
        ("comment", {"text": "nul \x00 inside"}, "comment"),
        ("discuss", {"text": "nul \x00 inside"}, "DISCUSS note"),
    ]:
        send_area(at, kind, **fields)  # asserts the run raised nothing
        said = feedback(at)
        assert said is not None and said["kind"] == "error", (kind, said)
        assert said["text"].startswith(f"The {field} holds U+"), (kind, said["text"])
        assert "Nothing was changed" in said["text"] and "Traceback" not in said["text"]
    assert dump(Project.open(app_demo)) == before


def test_a_nul_in_the_curate_search_is_refused_by_name(app_demo: Path) -> None:
    at = logged_in("translator", "demo-translator-pass")
    at.text_input(key="cur_search").input("shot\x00").run()
    assert not at.exception, at.exception
    errors = [plain(e.value) for e in at.error]
    assert any(e.startswith("The search holds U+0000 NULL") for e in errors), errors
    assert not any("DataError" in e or "SELECT" in e for e in errors)
    at.text_input(key="cur_search").input("shot").run()  # the box corrected: the queue is back
    assert not at.exception and not at.error


def test_the_service_refuses_before_the_database_on_both_engines(app_demo: Path) -> None:
    project = Project.open(app_demo)
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    copy = Address("shot-whiskey", "IT", "translator")  # the translator's double-curation copy: the same service
    lead = authenticate(project, "lead", "demo-lead-pass")
    assert lead is not None
    adjudication = DoubleCurationService(project, lead)
    before = dump(project)
    for call, field in [
        (lambda: service.comment("shot-whiskey", "IT", "a\x00b"), "comment"),
        (lambda: service.add_candidate("shot-whiskey", "IT", "good", LONE, 1), "candidate"),
        (lambda: service.replace_candidates("shot-whiskey", "IT", ["ok"], ["\ufffe"], 1), "BAD candidate on line 1"),
        (lambda: service.view(f"shot{LONE}", "IT"), "item id"),
        (lambda: service.mark_done("shot\x00", "IT", 1), "item id"),
        (lambda: service.handle(copy, FlagDiscuss(f"a{LONE}"), 1), "DISCUSS note"),  # a private copy's
        (lambda: service.handle(copy, AddCandidate(Side.BAD, "x\x00"), 1), "candidate"),
        (lambda: service.handle(Address("shot-whiskey", "IT", f"ana{LONE}"), MarkDone(), 1), "translator"),
        (lambda: adjudication.adjudicate("shot-whiskey", "IT", ["a", "\x00"], [], 1), "final GOOD candidate on line 2"),
        (lambda: adjudication.assign("IT", ["translator", "lead"], item_ids=["a", "x\x00"]), "item id on line 2"),
    ]:
        with pytest.raises(UnstorableTextError) as raised:
            call()
        assert raised.value.field == field
    assert dump(project) == before


def test_a_nul_in_the_log_in_name_is_said_not_crashed(app_demo: Path) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input("lead\x00")
    at.text_input(key="login_password").input("demo-lead-pass")
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    assert next(plain(e.value) for e in at.error).startswith("The user name holds U+0000 NULL")
