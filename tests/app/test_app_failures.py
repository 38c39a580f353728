"""Issue 31: no traceback reaches a browser. Anything unexpected is one plain message with a short reference id;
the detail (the traceback, the SQL) goes to the server's log under the same id.

Driven through AppTest: a page whose database lost a table (a damaged or half-restored database: an error the app
does not expect, on SQLite and PostgreSQL alike).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from app_helpers import plain
from streamlit.testing.v1 import AppTest

from annotator.app import failures
from annotator.app.session import USER_KEY
from annotator.project import Project
from annotator.services.accounts import Session

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"
REFERENCE = re.compile(r"this reference: ([0-9A-F]{8})\.")


def _fails_inside() -> None:
    from annotator.app.failures import failures_shown

    @failures_shown
    def page() -> None:
        raise RuntimeError('File "/srv/annotator/secret.py", line 1: SELECT password FROM users')

    page()


def test_an_unexpected_error_is_one_message_with_a_reference_and_the_detail_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    at = AppTest.from_function(_fails_inside, default_timeout=30)
    with caplog.at_level(logging.ERROR, logger=failures.LOGGER.name):
        at.run()
    assert not at.exception  # nothing for Streamlit to show as a traceback
    (shown,) = [plain(e.value) for e in at.error]
    found = REFERENCE.search(shown)
    assert found is not None and shown == failures.MESSAGE.format(reference=found.group(1))
    assert "secret" not in shown and "SELECT" not in shown and "/srv" not in shown
    (record,) = [r for r in caplog.records if r.name == failures.LOGGER.name]
    assert found.group(1) in record.getMessage() and record.exc_info is not None
    assert "SELECT password" in caplog.text and "Traceback" in caplog.text  # the detail, for whoever runs it


@pytest.mark.both_engines
def test_a_page_meeting_a_damaged_database_shows_the_message_not_the_sql(
    app_demo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input("translator")
    at.text_input(key="login_password").input("demo-translator-pass")
    at.button[0].click()
    at.run()
    assert not at.exception and not at.error
    with Project.open(app_demo).db.write() as conn:
        conn.exec_driver_sql("DROP TABLE comments")  # what the Curate page reads for the item's discussion
    with caplog.at_level(logging.ERROR, logger=failures.LOGGER.name):
        at.run()
    assert not at.exception, at.exception
    shown = " ".join(plain(e.value) for e in at.error)
    assert REFERENCE.search(shown) is not None, shown
    assert "comments" not in shown and "SELECT" not in shown and ".py" not in shown
    assert "comments" in caplog.text and "Traceback" in caplog.text


class Broken:
    """A command whose rule fails unexpectedly (registered for one test in ``rules.RULES``)."""


def _broken_rule(_situation: object, _command: object) -> None:
    raise KeyError("SELECT secret FROM users")


def _action_fails() -> None:
    import streamlit as st
    from test_app_failures import Broken

    from annotator.app import actions, messages
    from annotator.domain.commands import Address

    address = Address("shot-whiskey", "IT")
    st.button("Go", key="go", on_click=actions.run_and_flash, args=(address, Broken(), st.session_state["v"], "saved"))
    messages.show_flashes()


@pytest.mark.both_engines
def test_an_action_failing_unexpectedly_says_so_with_a_reference(
    app_demo: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_app_failures import Broken as Registered  # the class the script imports

    from annotator.domain import rules

    monkeypatch.setitem(rules.RULES, Registered, _broken_rule)
    project = Project.open(app_demo)
    with project.db.read() as conn:
        version = project.repo.get_item_language(conn, "shot-whiskey", "IT").version
    at = AppTest.from_function(_action_fails, default_timeout=30)
    at.session_state[USER_KEY] = Session("lead", 0)
    at.session_state["v"] = version
    at.run()
    with caplog.at_level(logging.ERROR, logger=failures.LOGGER.name):
        at.button(key="go").click().run()  # a widget callback: it runs before, and outside, the page's handler
    assert not at.exception, at.exception
    (shown,) = [plain(e.value) for e in at.error]
    found = REFERENCE.search(shown)
    assert found is not None and "SELECT" not in shown
    assert f"reference {found.group(1)}" in caplog.text and "SELECT secret" in caplog.text
