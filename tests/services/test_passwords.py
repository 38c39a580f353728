"""Passwords a person owns (issue 31), on SQLite and PostgreSQL: a reset gives a one-time password that logs in only to
be replaced; everyone changes their own password with the current one and the command line's rules; a lead cannot
reset their own password; a project's first account is a lead and no change leaves it without an enabled lead."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pytest
from project_helpers import dump

from annotator.cli import main
from annotator.domain.model import Role, User
from annotator.errors import PermissionDenied, UserError
from annotator.project import Project
from annotator.services import accounts, people
from annotator.services.curation import LOCAL_USER

pytestmark = pytest.mark.both_engines


def stored(project: Project, name: str) -> User:
    with project.db.read() as conn:
        user = project.repo.get_user(conn, name)
    assert user is not None
    return user


def test_a_reset_gives_a_one_time_password_that_only_lets_its_owner_replace_it(
    project: Project, lead: User, translator_it: User
) -> None:
    before = accounts.log_in(project, "ivo", "translator-password")
    assert before is not None and accounts.session_user(project, before) is not None
    one_time = accounts.reset_password(project, "ivo")
    assert len(one_time) >= accounts.MIN_PASSWORD_LENGTH
    assert stored(project, "ivo").must_change_password
    assert accounts.session_user(project, before) is None  # the open session ended
    assert accounts.authenticate(project, "ivo", "translator-password") is None

    session = accounts.log_in(project, "ivo", one_time)
    assert session is not None
    # the session serves nothing but the change: every check of a request refuses it, the change form names it
    assert accounts.session_user(project, session) is None
    due = accounts.password_change_due(project, session)
    assert due is not None and due.name == "ivo"
    with pytest.raises(UserError, match="at least 8 characters"):
        accounts.replace_one_time_password(project, session, "short")
    with pytest.raises(UserError, match="one-time password: choose one of your own"):
        accounts.replace_one_time_password(project, session, one_time)
    assert stored(project, "ivo").must_change_password  # refused: nothing changed

    renewed = accounts.replace_one_time_password(project, session, "ivo-own-password")
    user = accounts.session_user(project, renewed)
    assert user is not None and user.name == "ivo" and not user.must_change_password
    assert accounts.password_change_due(project, renewed) is None
    assert accounts.session_user(project, session) is None  # the one-time session is replaced, not kept
    assert accounts.password_change_due(project, session) is None
    assert accounts.authenticate(project, "ivo", one_time) is None  # the one-time password works no more
    assert accounts.authenticate(project, "ivo", "ivo-own-password") is not None
    with pytest.raises(UserError, match="already been changed"):
        accounts.replace_one_time_password(project, renewed, "yet-another-one")


def test_everyone_changes_their_own_password_with_the_current_one_and_the_command_lines_rules(
    project: Project, lead: User, translator_it: User, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    session = accounts.log_in(project, "ivo", "translator-password")
    other_tab = accounts.log_in(project, "ivo", "translator-password")
    assert session is not None and other_tab is not None
    with pytest.raises(UserError, match="current password is not right"):
        accounts.change_password(project, session, "wrong-password", "ivo-new-password")
    # the command line's rule, in the command line's words
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    data = str(project.data_dir)
    assert main(["users", "passwd", "ivo", "--password-stdin", "--data", data]) == 2
    cli_message = capsys.readouterr().err
    with pytest.raises(UserError) as refused:
        accounts.change_password(project, session, "translator-password", "short")
    assert str(refused.value) in cli_message
    with pytest.raises(UserError, match="is the current one"):
        accounts.change_password(project, session, "translator-password", "translator-password")
    assert accounts.authenticate(project, "ivo", "translator-password") is not None  # refused: unchanged
    assert accounts.session_user(project, other_tab) is not None

    renewed = accounts.change_password(project, session, "translator-password", "ivo-new-password")
    assert accounts.session_user(project, renewed) is not None  # this browser stays logged in
    assert accounts.session_user(project, session) is None
    assert accounts.session_user(project, other_tab) is None  # the other sessions end
    assert accounts.authenticate(project, "ivo", "translator-password") is None
    assert accounts.authenticate(project, "ivo", "ivo-new-password") is not None
    accounts.end_sessions(project, "ivo")  # logged out elsewhere: an ended session changes nothing
    with pytest.raises(UserError, match="session has ended"):
        accounts.change_password(project, renewed, "ivo-new-password", "ivo-third-password")


def test_a_lead_cannot_reset_their_own_password_and_stays_logged_in(project: Project, lead: User) -> None:
    session = accounts.log_in(project, "lena", "lead-password")
    assert session is not None
    before = dump(project)
    with pytest.raises(PermissionDenied, match="cannot reset your own password") as refused:
        people.reset_password(project, lead, "lena")
    assert "Change password" in str(refused.value)  # and says what to do instead
    assert dump(project) == before  # no password, no audit row, no ended session
    assert accounts.session_user(project, session) is not None
    # another lead's reset of it works, and is a one-time password
    second = people.add_person(project, lead, "lea2", "lead", ())
    assert stored(project, "lea2").must_change_password  # a new account's password is a one-time one too
    accounts.set_password(project, "lea2", "lea2-own-password")
    new = people.reset_password(project, stored(project, "lea2"), "lena")
    assert second.user.name == "lea2" and stored(project, "lena").must_change_password
    assert accounts.authenticate(project, "lena", new.password) is not None


def test_a_lead_who_must_replace_a_one_time_password_manages_nobody_meanwhile(project: Project, lead: User) -> None:
    people.add_person(project, lead, "lea2", "lead", ())
    before = dump(project)
    with pytest.raises(PermissionDenied, match="one-time password first"):
        people.add_person(project, stored(project, "lea2"), "mallory", "lead", ())
    assert dump(project) == before


def test_the_first_account_must_be_a_lead_in_the_service_the_people_service_and_the_command_line(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    before = dump(project)
    with pytest.raises(accounts.FirstAccountNotLead, match="first account of a project must be a lead"):
        accounts.add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    with pytest.raises(UserError, match="first account of a project must be a lead"):
        people.add_person(project, LOCAL_USER, "ivo", "translator", ("IT",))
    monkeypatch.setenv("ANNOTATOR_PASSWORD", "translator-password")
    data = str(project.data_dir)
    assert main(["users", "add", "ivo", "--languages", "IT", "--data", data]) == 2
    assert "first account of a project must be a lead" in capsys.readouterr().err
    assert dump(project) == before
    assert main(["users", "add", "lena", "--role", "lead", "--data", data]) == 0
    assert main(["users", "add", "nolang", "--data", data]) == 2  # the command line names its flag
    assert "needs at least one language (--languages IT,DE)" in capsys.readouterr().err
    assert main(["users", "add", "ivo", "--languages", "IT", "--data", data]) == 0  # then anyone
    assert [(u.name, u.role) for u in accounts.list_users(project)] == [("ivo", Role.TRANSLATOR), ("lena", Role.LEAD)]


def test_no_change_leaves_the_project_without_an_enabled_lead(
    project: Project, lead: User, translator_it: User, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    before = dump(project)
    with pytest.raises(accounts.LastLead, match="'lena' is the last enabled lead"):
        accounts.set_role(project, "lena", Role.TRANSLATOR, ("IT",))
    with pytest.raises(accounts.LastLead, match="'lena' is the last enabled lead"):
        accounts.set_disabled(project, "lena", True)
    data = str(project.data_dir)
    assert main(["users", "disable", "lena", "--data", data]) == 2
    assert "last enabled lead" in capsys.readouterr().err
    assert dump(project) == before

    # a second lead, disabled: still only one enabled lead, so the same refusals, through the People service too
    second = people.add_person(project, lead, "lea2", "lead", ()).user
    accounts.set_password(project, "lea2", "lea2-own-password")
    people.set_enabled(project, lead, "lea2", False)
    with pytest.raises(accounts.LastLead):
        accounts.set_role(project, "lena", Role.TRANSLATOR, ("IT",))
    with pytest.raises(accounts.LastLead):
        accounts.set_disabled(project, "lena", True)
    # enabled again, either lead may be demoted or disabled, but not both
    people.set_enabled(project, lead, "lea2", True)
    people.change_person(project, second, "lena", "translator", ("IT",), None)
    with pytest.raises(accounts.LastLead):
        accounts.set_disabled(project, "lea2", True)
    with project.db.read() as conn:
        assert project.repo.count_enabled_leads(conn) == 1
    accounts.set_disabled(project, "ivo", True)  # translators come and go freely
    accounts.set_role(project, "lena", Role.LEAD, ())


def test_two_leads_demoting_each_other_at_once_leave_one_lead(project: Project, lead: User) -> None:
    accounts.add_user(project, "lea2", Role.LEAD, (), "lea2-password")
    other = Project.open(project.data_dir)
    results: list[object] = []
    barrier = threading.Barrier(2)

    def demote(on: Project, name: str) -> None:
        barrier.wait()
        try:
            results.append(accounts.set_role(on, name, Role.TRANSLATOR, ("IT",)))
        except UserError as error:
            results.append(error)

    threads = [threading.Thread(target=demote, args=args) for args in ((project, "lena"), (other, "lea2"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(type(r).__name__ for r in results) == ["LastLead", "User"], results
    with project.db.read() as conn:
        assert project.repo.count_enabled_leads(conn) == 1


def test_the_command_line_resets_to_a_one_time_password_it_prints_once(
    project: Project, lead: User, translator_it: User, capsys
) -> None:
    data = str(project.data_dir)
    session = accounts.log_in(project, "ivo", "translator-password")
    assert session is not None
    capsys.readouterr()
    assert main(["users", "passwd", "ivo", "--reset", "--data", data]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert "must be replaced at the next log-in" in printed[0]
    one_time = printed[-1]
    assert stored(project, "ivo").must_change_password
    assert accounts.session_user(project, session) is None
    new_session = accounts.log_in(project, "ivo", one_time)
    assert new_session is not None and accounts.password_change_due(project, new_session) is not None
    assert main(["users", "passwd", "ivo", "--reset", "--password-stdin", "--data", data]) == 2
    assert main(["users", "passwd", "nobody", "--reset", "--data", data]) == 2
    assert "No user named 'nobody'" in capsys.readouterr().err
