"""Account fields and job settings holding text no database can store (NUL, lone surrogates, noncharacters) are
refused naming the field (display name, e-mail address, password, Stanza model folder) before any query, on SQLite
and PostgreSQL alike: the People page, the forced change form, the command line and the services say the same,
and nothing changes (issue 31, a second round of attacks)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from project_helpers import dump

from annotator.cli import main
from annotator.domain.jobs import JobKind
from annotator.domain.model import Role, User
from annotator.domain.unicode_rules import UnstorableTextError
from annotator.errors import UserError
from annotator.project import Project
from annotator.services import accounts, jobs, people

pytestmark = pytest.mark.both_engines

HOSTILE = ["\x00", "\ud800", "\ufffe"]


@pytest.mark.parametrize("char", HOSTILE)
def test_the_people_page_refuses_unstorable_text_naming_the_field(
    project: Project, lead: User, translator_it: User, char: str
) -> None:
    before = dump(project)
    with pytest.raises(UnstorableTextError, match="The display name holds") as display:
        people.add_person(project, lead, "newbie", Role.TRANSLATOR, ("IT",), None, f"Ne{char}wbie")
    assert display.value.field == "display name"
    with pytest.raises(UnstorableTextError, match="The e-mail address holds"):
        people.add_person(project, lead, "newbie", Role.TRANSLATOR, ("IT",), f"new{char}bie@example.org")
    with pytest.raises(UnstorableTextError, match="The e-mail address holds"):
        people.change_person(project, lead, "ivo", Role.TRANSLATOR, ("IT",), f"i{char}vo@example.org")
    assert dump(project) == before


@pytest.mark.parametrize("char", HOSTILE)
def test_the_services_refuse_an_unstorable_password_display_name_or_address(
    project: Project, lead: User, translator_it: User, char: str
) -> None:
    before = dump(project)
    with pytest.raises(UnstorableTextError, match="The password holds"):
        accounts.set_password(project, "ivo", f"long-enough{char}")
    with pytest.raises(UnstorableTextError, match="The password holds"):
        accounts.add_user(project, "other", Role.TRANSLATOR, ("IT",), f"long-enough{char}")
    with pytest.raises(UnstorableTextError, match="The display name holds"):
        accounts.add_user(project, "other", Role.TRANSLATOR, ("IT",), "long-enough", f"Ot{char}her")
    with pytest.raises(UnstorableTextError, match="The e-mail address holds"):
        accounts.set_email(project, "ivo", f"i{char}vo@example.org")
    with pytest.raises(UserError, match="is not valid"):  # a control character: storable, but no address
        accounts.set_email(project, "ivo", "i\x01vo@example.org")
    session = accounts.log_in(project, "ivo", "translator-password")
    assert session is not None
    with pytest.raises(UnstorableTextError, match="The password holds"):
        accounts.change_password(project, session, "translator-password", f"new-password{char}")
    assert accounts.authenticate(project, "ivo", f"translator{char}password") is None  # a guess, never a crash
    after = dump(project)
    after.pop("login_throttle"), before.pop("login_throttle")  # the wrong guess is counted, as any other
    assert after == before


def test_the_command_line_refuses_an_undecodable_argument_by_name(
    project: Project, lead: User, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte that is not UTF-8 in an argument reaches Python as a lone surrogate (``surrogateescape``)."""
    data = str(project.data_dir)
    before = dump(project)
    monkeypatch.setattr(sys, "stdin", io.StringIO("long-enough-password\n"))
    args = ["users", "add", "other", "--languages", "IT", "--display-name", "Ot\udcffher", "--password-stdin"]
    assert main([*args, "--data", data]) == 2
    assert "The display name holds U+DCFF" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO("long-enough-\x00password\n"))
    assert main(["users", "passwd", "lena", "--password-stdin", "--data", data]) == 2
    assert "The password holds U+0000" in capsys.readouterr().err
    assert main(["users", "email", "lena", "le\x00na@example.org", "--data", data]) == 2
    assert "The e-mail address holds U+0000" in capsys.readouterr().err
    assert dump(project) == before


@pytest.mark.parametrize("char", HOSTILE)
def test_a_job_parameter_holding_unstorable_text_is_refused_naming_it_before_any_job_is_recorded(
    project: Project, lead: User, tmp_path: Path, char: str
) -> None:
    """The Evaluate page's "Stanza model folder" box (and any other text a job takes) reaches the job's record,
    its paths and its worker: refused by name first, no job recorded."""
    translations = tmp_path / "t.jsonl"
    translations.write_text("{}\n", encoding="utf-8")
    before = dump(project)
    params = {"page": True, "analyser": "stanza", "models": f"models{char}", "current": True}
    with pytest.raises(UnstorableTextError, match="The Stanza model folder holds"):
        jobs.start(project, JobKind.EVALUATE, {**params, "translations": str(translations)}, user=lead, launch=False)
    with pytest.raises(UnstorableTextError, match="The output folder holds"):
        jobs.start(project, JobKind.EXPORT, {"out": str(tmp_path / f"out{char}")}, user=lead, launch=False)
    assert dump(project) == before and jobs.list_jobs(project) == []


def test_the_people_page_and_the_forced_form_name_the_field_in_the_browser(app_demo: Path) -> None:
    """The People page (a NUL pasted into the display name or the e-mail box) and the forced change form (a NUL in
    the new password) say which box holds it, in the page's own message; nothing is stored."""
    demo = Project.open(app_demo)
    before = dump(demo)
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/people.py").run()
    at.text_input(key="people_new_name").input("newbie")
    at.text_input(key="people_new_display").input("New\x00bie")
    at.radio(key="people_new_role").set_value("lead")
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert not at.exception, at.exception
    assert "The display name holds U+0000 NULL" in " ".join(plain(e.value) for e in at.error)
    at.text_input(key="people_new_display").input("Newbie")
    at.text_input(key="people_new_email").input("new\x00bie@example.org")
    at.button(key="FormSubmitter:people_add-Add account").click().run()
    assert "The e-mail address holds U+0000 NULL" in " ".join(plain(e.value) for e in at.error)
    after = dump(demo)
    for derived in ("login_throttle", "suggestion_cache"):  # log-ins counted; the Curate card it opened kept its
        after.pop(derived), before.pop(derived)  # suggestions (a cache of what the lexicon says, not user text)
    assert after == before

    one_time = people.reset_password(demo, accounts.find_user(demo, "lead"), "translator").password
    forced = logged_in("translator", one_time)
    forced.text_input(key="forced_new").input("own-pass\x00word")
    forced.text_input(key="forced_repeat").input("own-pass\x00word")
    forced.button(key="FormSubmitter:forced_password-Save password").click().run()
    assert not forced.exception, forced.exception
    assert "The password holds U+0000 NULL" in " ".join(plain(e.value) for e in forced.error)
    assert accounts.find_user(demo, "translator").must_change_password  # type: ignore[union-attr]
