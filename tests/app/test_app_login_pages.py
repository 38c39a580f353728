"""The log-in page of a new person in a tab: someone logging in after another logged out there starts on their own
page (not the last one's "People is for leads only"); the demo's log-in page names a demo password only while it
still works (a reset makes it nobody's business)."""

from __future__ import annotations

from pathlib import Path

from app_helpers import MAIN, area, logged_in, plain
from streamlit.testing.v1 import AppTest

from annotator.project import Project
from annotator.services.accounts import reset_password


def log_in_form(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    next(b for b in at.button if b.label == "Log in").click()
    return at.run()


def said(at: AppTest) -> str:
    return " ".join(plain(e.value) for e in [*at.warning, *at.error, *at.caption, *at.markdown, *at.header])


def test_someone_else_logging_in_after_a_log_out_starts_on_their_own_page(app_demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/people.py").run()
    assert [h.value for h in at.header] == ["People"]
    next(b for b in at.sidebar.button if b.label == "Log out").click().run()
    assert at.text_input(key="login_name") is not None  # the log-in form, in the same tab (session)
    log_in_form(at, "translator", "demo-translator-pass")
    assert not at.exception, at.exception
    assert "leads only" not in said(at), said(at)
    assert "Signed in as" in " ".join(c.value for c in at.sidebar.caption)
    assert area(at)["nav"]["position"].startswith("Item 1 of")  # Curate's work area, for the translator


def test_the_same_person_logging_in_again_stays_on_the_page(app_demo: Path) -> None:
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/people.py").run()
    next(b for b in at.sidebar.button if b.label == "Log out").click().run()
    log_in_form(at, "lead", "demo-lead-pass")
    assert not at.exception, at.exception
    assert [h.value for h in at.header] == ["People"]


def test_the_demo_log_in_page_hides_a_demo_password_once_it_was_reset(app_demo: Path) -> None:
    before = AppTest.from_file(str(MAIN), default_timeout=60).run()
    shown = " ".join(c.value for c in before.caption)
    assert "demo-lead-pass" in shown and "demo-translator-pass" in shown, shown
    reset_password(Project.open(app_demo), "translator")
    after = AppTest.from_file(str(MAIN), default_timeout=60).run()
    shown = " ".join(c.value for c in after.caption)
    assert "demo-translator-pass" not in shown and "demo-lead-pass" in shown, shown
