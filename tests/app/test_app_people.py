"""The People page (issue 21): a lead manages the team in the browser through ``annotator.services.people`` — checked
against the database, the audit trail and real log-ins; translators neither see the page nor pass its services."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from project_helpers import dump
from streamlit.testing.v1 import AppTest

from annotator.domain.model import Role
from annotator.errors import PermissionDenied, UserError
from annotator.project import Project
from annotator.services import accounts, people
from annotator.services.curation import LOCAL_USER

LEAD = ("lead", "demo-lead-pass")
TRANSLATOR = ("translator", "demo-translator-pass")


@pytest.fixture
def demo(app_demo: Path) -> Project:
    return Project.open(app_demo)


def user(project: Project, name: str):  # type: ignore[no-untyped-def]
    with project.db.read() as conn:
        return project.repo.get_user(conn, name)


def audit(project: Project) -> list[dict]:
    with project.db.read() as conn:
        return project.repo.audit(conn)


def people_page(at: AppTest) -> AppTest:
    at.switch_page("pages/people.py").run()
    assert not at.exception, at.exception
    return at


def signed_in_caption(at: AppTest) -> str:
    return " ".join(plain(c.value) for c in at.sidebar.caption if "Signed in as" in c.value)


def choose_password(at: AppTest, new: str) -> AppTest:
    """Logged in with a one-time password: only the change form is there; replacing it opens the app."""
    assert [t.value for t in at.title] == ["Choose your password"], [t.value for t in at.title]
    assert not signed_in_caption(at)
    at.text_input(key="forced_new").input(new)
    at.text_input(key="forced_repeat").input(new)
    at.button(key="FormSubmitter:forced_password-Save password").click().run()
    assert not at.exception, at.exception
    return at


def test_a_lead_adds_a_translator_for_es_who_logs_in_and_sees_only_es(demo: Project) -> None:
    at = people_page(logged_in(*LEAD))
    assert at.header[0].value == "People"
    at.text_input(key="people_new_name").input("esther")
    at.radio(key="people_new_role").set_value("translator")
    at.multiselect(key="people_new_languages").set_value(["ES"])
    at.text_input(key="people_new_email").input("Esther@Example.org")
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert not at.exception, at.exception
    assert any("Added translator esther (ES)" in plain(s.value) for s in at.success), [s.value for s in at.success]
    password = at.code[0].value
    assert len(password) >= accounts.MIN_PASSWORD_LENGTH
    stored = user(demo, "esther")
    assert stored is not None and stored.role is Role.TRANSLATOR and stored.languages == ("ES",)
    assert stored.email == "esther@example.org"
    row = audit(demo)[0]
    assert row["user"] == "lead" and row["action"] == "account_add" and row["detail"]["account"] == "esther"
    assert password not in str(audit(demo))  # the one-time password is never written down
    at.run()  # shown once: the next render no longer holds it
    assert not any(password in c.value for c in at.code)
    assert "esther" in at.dataframe[0].value["user name"].tolist()

    esther = choose_password(logged_in("esther", password), "esther-own-pass")
    assert "translator · ES" in signed_in_caption(esther)
    languages = [box.options for box in esther.selectbox if box.label == "Language"]  # the Curate page's
    assert languages == [["ES — Spanish"]], languages


def test_disabling_an_account_in_the_page_ends_its_open_session(demo: Project) -> None:
    translator = logged_in(*TRANSLATOR)
    assert signed_in_caption(translator)
    at = people_page(logged_in(*LEAD))
    at.selectbox(key="people_pick").set_value("translator").run()
    at.button(key="people_disable").click().run()
    assert not at.exception, at.exception
    assert not user(demo, "translator").disabled  # the first click only asks
    assert any("Disable **translator**?" in w.value for w in at.warning), [w.value for w in at.warning]
    at.button(key="people_disable_no").click().run()
    assert not user(demo, "translator").disabled and not at.button(key="people_disable").disabled
    at.button(key="people_disable").click().run()
    at.button(key="people_disable_yes").click().run()
    assert not at.exception, at.exception
    assert any("Disabled translator" in plain(s.value) for s in at.success)
    assert user(demo, "translator").disabled
    assert audit(demo)[0]["action"] == "account_disable"
    translator.run()  # the translator's next action
    assert not signed_in_caption(translator)
    assert any("session has ended" in plain(w.value) for w in translator.warning)
    assert logged_in(*TRANSLATOR).text_input(key="login_password") is not None  # cannot log in again
    at.button(key="people_enable").click().run()
    assert not user(demo, "translator").disabled
    assert signed_in_caption(logged_in(*TRANSLATOR))


def test_a_lead_changes_languages_and_role_and_resets_a_password(demo: Project) -> None:
    translator = logged_in(*TRANSLATOR)
    at = people_page(logged_in(*LEAD))
    at.selectbox(key="people_pick").set_value("translator").run()
    assert at.multiselect(key="people_edit_languages").value == list(user(demo, "translator").languages)
    at.multiselect(key="people_edit_languages").set_value(["RU"])
    at.button(key="FormSubmitter:people_edit-Save changes").click().run()
    assert not at.exception, at.exception
    assert user(demo, "translator").languages == ("RU",)
    assert audit(demo)[0]["detail"] == {"account": "translator", "role": "translator", "languages": ["RU"]}
    translator.run()  # still signed in, now with the new language
    assert "translator · RU" in signed_in_caption(translator)
    at.button(key="people_reset").click().run()  # asks first, as Disable does: nothing reset yet
    assert not at.code and audit(demo)[0]["action"] != "account_password_reset"
    assert any("Reset **translator**'s password?" in w.value for w in at.warning)
    assert "translator · RU" in signed_in_caption(translator.run())  # their session goes on
    at.button(key="people_reset_yes").click().run()
    password = at.code[0].value
    assert audit(demo)[0]["action"] == "account_password_reset"
    translator.run()
    assert not signed_in_caption(translator)  # the old password's session ended
    assert logged_in("translator", TRANSLATOR[1]).text_input(key="login_password") is not None
    assert "translator · RU" in signed_in_caption(choose_password(logged_in("translator", password), "new-pass-1"))


def test_a_translator_can_neither_open_the_page_nor_call_its_services(demo: Project) -> None:
    at = logged_in(*TRANSLATOR)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/people.py")
    translator = user(demo, "translator")
    before = dump(demo)
    calls = [
        lambda: people.list_people(demo, translator),
        lambda: people.add_person(demo, translator, "mallory", "lead", ()),
        lambda: people.change_person(demo, translator, "translator", "lead", (), None),
        lambda: people.set_enabled(demo, translator, "lead", False),
        lambda: people.reset_password(demo, translator, "lead"),
    ]
    for call in calls:
        with pytest.raises(PermissionDenied, match="Only a lead may"):
            call()
    assert dump(demo) == before


@pytest.mark.both_engines
def test_the_service_keeps_the_command_lines_rules_and_changes_nothing_when_refused(demo: Project) -> None:
    lead = user(demo, "lead")
    before = dump(demo)
    refusals = [
        (lambda: people.add_person(demo, lead, "no spaces allowed", "translator", ("ES",)), "User name"),
        (lambda: people.add_person(demo, lead, "nolang", "translator", ()), "needs at least one language"),
        (lambda: people.add_person(demo, lead, "translator", "translator", ("ES",)), "already exists"),
        (lambda: people.add_person(demo, lead, "mail", "translator", ("ES",), "not-an-address"), "not valid"),
        (lambda: people.change_person(demo, lead, "translator", "translator", (), None), "at least one language"),
        (lambda: people.change_person(demo, lead, "lead", "translator", ("ES",), None), "your own account"),
        (lambda: people.set_enabled(demo, lead, "lead", False), "your own account"),
        (lambda: people.reset_password(demo, lead, "nobody"), "No user named"),
    ]
    for call, message in refusals:
        with pytest.raises(UserError, match=message):
            call()
    assert dump(demo) == before  # not even an audit row


def test_a_lead_demoted_elsewhere_can_no_longer_manage_accounts(demo: Project) -> None:
    lead = user(demo, "lead")
    second = people.add_person(demo, lead, "lea2", "lead", ()).user
    accounts.set_password(demo, "lea2", "lea2-own-password")  # as if lea2 had replaced the one-time password
    people.change_person(demo, second, "lead", "translator", ("IT",), None)
    with pytest.raises(PermissionDenied):
        people.reset_password(demo, lead, "lea2")  # the stale User object still says lead: the database does not


def test_the_local_lead_of_a_project_without_accounts_adds_the_first_one(tmp_path: Path) -> None:
    project = Project.open(tmp_path / "data", create=True)
    new = people.add_person(project, LOCAL_USER, "lena", "lead", ())
    assert accounts.authenticate(project, "lena", new.password) is not None
    with pytest.raises(PermissionDenied):  # once accounts exist, the implicit local lead is nobody
        people.add_person(project, LOCAL_USER, "other", "lead", ())
