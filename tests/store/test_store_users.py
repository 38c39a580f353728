"""``store/users.py``: accounts round-trip, are listed by name, and a duplicate or unknown name is refused."""

from __future__ import annotations

import pytest
from project_helpers import dump

from annotator.domain.model import Role, User
from annotator.errors import UserError
from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_an_account_round_trips_and_is_found_by_name_and_email(project: Project) -> None:
    ivo = User("ivo", Role.TRANSLATOR, ("IT", "ZH"), "Ivo Ünal", False, "ivo@example.org")
    with project.db.write() as conn:
        project.repo.add_user(conn, ivo, "hash-of-ivo")
        project.repo.add_user(conn, User("lena", Role.LEAD), None)
    with project.db.read() as conn:
        assert project.repo.get_user(conn, "ivo") == ivo
        assert project.repo.get_user_by_email(conn, "ivo@example.org") == ivo
        assert project.repo.get_user_by_email(conn, "nobody@example.org") is None
        assert project.repo.get_user(conn, "nobody") is None
        assert project.repo.get_password_hash(conn, "ivo") == "hash-of-ivo"
        assert project.repo.get_password_hash(conn, "lena") is None  # single sign-on only
        assert project.repo.get_password_hash(conn, "nobody") is None
        assert project.repo.get_user(conn, "lena") == User("lena", Role.LEAD)


def test_accounts_are_listed_by_name_and_counted(project: Project) -> None:
    with project.db.write() as conn:
        for name in ("zoe", "ada", "mia"):
            project.repo.add_user(conn, User(name, Role.TRANSLATOR, ("DE",)), "h")
    with project.db.read() as conn:
        assert [u.name for u in project.repo.list_users(conn)] == ["ada", "mia", "zoe"]
        assert project.repo.count_users(conn) == 3


def test_a_second_account_of_the_same_name_is_refused_and_nothing_changes(project: Project) -> None:
    with project.db.write() as conn:
        project.repo.add_user(conn, User("ivo", Role.TRANSLATOR, ("IT",)), "first")
    before = dump(project)
    with pytest.raises(UserError, match="'ivo' already exists"), project.db.write() as conn:
        project.repo.add_user(conn, User("ivo", Role.LEAD), "second")
    assert dump(project) == before


def test_an_update_changes_only_the_given_columns_and_an_unknown_name_is_refused(project: Project) -> None:
    with project.db.write() as conn:
        project.repo.add_user(conn, User("ivo", Role.TRANSLATOR, ("IT",), "Ivo"), "h")
        project.repo.update_user(conn, "ivo", languages=("IT", "DE"), role=Role.LEAD, disabled=True)
    with project.db.read() as conn:
        assert project.repo.get_user(conn, "ivo") == User("ivo", Role.LEAD, ("IT", "DE"), "Ivo", True)
        assert project.repo.get_password_hash(conn, "ivo") == "h"
    before = dump(project)
    with pytest.raises(UserError, match="No user named 'eve'"), project.db.write() as conn:
        project.repo.update_user(conn, "eve", disabled=True)
    assert dump(project) == before


def test_a_one_time_password_flag_round_trips_and_only_enabled_leads_are_counted(project: Project) -> None:
    with project.db.write() as conn:
        project.repo.add_user(conn, User("ana", Role.LEAD, must_change_password=True), "h")
        project.repo.add_user(conn, User("bo", Role.LEAD, disabled=True), "h")
        project.repo.add_user(conn, User("cy", Role.TRANSLATOR, ("IT",)), "h")
    with project.db.read() as conn:
        assert project.repo.get_user(conn, "ana") == User("ana", Role.LEAD, must_change_password=True)
        assert not project.repo.get_user(conn, "cy").must_change_password  # type: ignore[union-attr]
        assert project.repo.count_enabled_leads(conn) == 1
    with project.db.write() as conn:
        project.repo.update_user(conn, "ana", must_change_password=False)
        project.repo.update_user(conn, "bo", disabled=False)
        project.repo.update_user(conn, "cy", role=Role.LEAD)
    with project.db.read() as conn:
        assert not project.repo.get_user(conn, "ana").must_change_password  # type: ignore[union-attr]
        assert project.repo.count_enabled_leads(conn) == 3
