"""Passwords in the browser (issue 31, AppTest over the whole app): everyone changes their own password; a one-time
password shows nothing but the change form until it is replaced; the People page refuses a lead's own reset and a
translator as a project's first account, asks before disabling, and speaks no command-line flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import MAIN, logged_in, plain
from streamlit.testing.v1 import AppTest

from annotator.project import Project
from annotator.services import accounts, people

LEAD = ("lead", "demo-lead-pass")
TRANSLATOR = ("translator", "demo-translator-pass")


@pytest.fixture
def demo(app_demo: Path) -> Project:
    return Project.open(app_demo)


def signed_in(at: AppTest) -> str:
    return " ".join(plain(c.value) for c in at.sidebar.caption if "Signed in as" in c.value)


def texts(at: AppTest) -> str:
    """Everything a reader sees as messages and headings."""
    parts = [*at.title, *at.header, *at.error, *at.warning, *at.success, *at.info, *at.markdown, *at.caption]
    return " | ".join(plain(str(p.value)) for p in parts)


def choose(at: AppTest, new: str, repeat: str | None = None) -> AppTest:
    at.text_input(key="forced_new").input(new)
    at.text_input(key="forced_repeat").input(new if repeat is None else repeat)
    at.button(key="FormSubmitter:forced_password-Save password").click().run()
    assert not at.exception, at.exception
    return at


def test_a_translator_changes_their_own_password_in_the_browser(demo: Project) -> None:
    at = logged_in(*TRANSLATOR)
    assert any(link.label == "Change password" for link in at.sidebar.get("page_link")), "no link in the sidebar"
    at.switch_page("pages/password.py").run()
    assert not at.exception, at.exception
    assert at.header[0].value == "Change password"

    def submit(current: str, new: str, repeat: str) -> None:
        at.text_input(key="own_current").input(current)
        at.text_input(key="own_new").input(new)
        at.text_input(key="own_repeat").input(repeat)
        at.button(key="FormSubmitter:own_password-Change password").click().run()
        assert not at.exception, at.exception

    submit("not-my-password", "my-own-password", "my-own-password")
    assert "current password is not right" in texts(at)
    submit(TRANSLATOR[1], "my-own-password", "my-own-passwork")
    assert "two new passwords differ" in texts(at)
    submit(TRANSLATOR[1], "short", "short")
    assert f"at least {accounts.MIN_PASSWORD_LENGTH} characters" in texts(at)
    assert accounts.authenticate(demo, *TRANSLATOR) is not None  # every refusal changed nothing

    submit(TRANSLATOR[1], "my-own-password", "my-own-password")
    assert "Password changed" in texts(at)
    assert "translator" in signed_in(at)
    at.switch_page("pages/items.py").run()  # this browser stays logged in with the new session
    assert "translator" in signed_in(at)
    assert not signed_in(logged_in(*TRANSLATOR))  # the old password no longer logs in
    assert "translator" in signed_in(logged_in("translator", "my-own-password"))


def test_after_a_reset_the_one_time_password_opens_only_the_change_form(demo: Project) -> None:
    lead = accounts.find_user(demo, "lead")
    one_time = people.reset_password(demo, lead, "translator").password
    at = logged_in("translator", one_time)
    assert [t.value for t in at.title] == ["Choose your password"]
    assert not signed_in(at) and not at.sidebar.get("page_link")
    for page in ("pages/curate.py", "pages/items.py", "pages/password.py", "pages/copies.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        assert [t.value for t in at.title] == ["Choose your password"], page
        assert not at.header and not at.dataframe and not signed_in(at), page  # no page drew anything
    choose(at, "first-own-pass", "first-own-pasz")
    assert "two new passwords differ" in texts(at)
    choose(at, one_time)
    assert "one-time password: choose one of your own" in texts(at)
    assert [t.value for t in at.title] == ["Choose your password"]

    choose(at, "first-own-pass")
    assert "translator · IT, DE" in signed_in(at)
    assert "new password is saved" in texts(at)
    assert at.header  # the page asked for is drawn now
    assert not signed_in(logged_in("translator", one_time))  # the one-time password works no more
    assert "translator" in signed_in(logged_in("translator", "first-own-pass"))


def test_a_lead_resetting_their_own_password_is_told_how_to_change_it_and_stays_logged_in(demo: Project) -> None:
    at = logged_in(*LEAD)
    at.switch_page("pages/people.py").run()
    at.selectbox(key="people_pick").set_value("lead").run()
    at.button(key="people_reset").click().run()
    assert not at.exception, at.exception
    assert "cannot reset your own password" in texts(at) and "Change password" in texts(at)
    assert not at.code  # no password shown, none made
    assert "lead" in signed_in(at)
    at.run()
    assert at.header[0].value == "People" and "lead" in signed_in(at)
    assert "lead" in signed_in(logged_in(*LEAD))  # the password is the old one still
    assert demo.repo is not None and demo.db is not None
    with demo.db.read() as conn:
        assert not any(row["action"] == "account_password_reset" for row in demo.repo.audit(conn))


def test_people_says_what_a_translator_needs_in_the_browsers_words(demo: Project) -> None:
    at = logged_in(*LEAD)
    at.switch_page("pages/people.py").run()
    at.text_input(key="people_new_name").input("nolang")
    at.radio(key="people_new_role").set_value("translator")
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert not at.exception, at.exception
    message = " ".join(plain(e.value) for e in at.error)
    assert "needs at least one language" in message and "Languages box" in message
    assert "--" not in message
    assert accounts.find_user(demo, "nolang") is None


def test_the_first_account_added_in_the_browser_must_be_a_lead_and_logs_in_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    project = Project.open(data, create=True)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.switch_page("pages/people.py").run()
    assert not at.exception, at.exception
    assert at.radio(key="people_new_role").value == "lead"  # offered first
    assert "first account must be a lead" in texts(at)
    at.text_input(key="people_new_name").input("ivo")
    at.radio(key="people_new_role").set_value("translator")
    at.multiselect(key="people_new_languages").set_value(["IT"])
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert not at.exception, at.exception
    assert "first account of a project must be a lead" in texts(at)
    assert not accounts.has_users(project)  # refused: log-in not turned on, nobody locked out

    at.text_input(key="people_new_name").input("lena")
    at.radio(key="people_new_role").set_value("lead")
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Choose your password"]  # this browser is lena now
    choose(at, "lena-own-password")
    assert "lena** · lead" in signed_in(at)
    assert at.header[0].value == "People"
    assert accounts.authenticate(project, "lena", "lena-own-password") is not None
    assert not accounts.find_user(project, "lena").must_change_password  # type: ignore[union-attr]
