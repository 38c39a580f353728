"""The accounts' tables behind ``services.accounts``, through ``project.repo``: session epochs, the log-in
throttle's rows, the project id and the users."""

from __future__ import annotations

import pytest

from annotator.domain.model import Role, User
from annotator.project import Project
from annotator.store.login_throttle import ThrottleRow

pytestmark = pytest.mark.both_engines


def test_an_epoch_starts_at_zero_and_each_bump_moves_it_and_notes_when(project: Project) -> None:
    with project.db.read() as conn:
        assert project.repo.session_epoch(conn, "ivo") == 0
        assert project.repo.session_epoch_changed_at(conn, "ivo") is None
    with project.db.write() as conn:
        project.repo.bump_session_epoch(conn, "ivo")
    with project.db.read() as conn:
        first = project.repo.session_epoch_changed_at(conn, "ivo")
        assert project.repo.session_epoch(conn, "ivo") == 1 and first is not None
    with project.db.write() as conn:
        project.repo.bump_session_epoch(conn, "ivo")
    with project.db.read() as conn:
        assert project.repo.session_epoch(conn, "ivo") == 2
        assert (project.repo.session_epoch_changed_at(conn, "ivo") or 0.0) >= first
        assert project.repo.session_epoch(conn, "lena") == 0  # another account's epoch does not move


def test_throttle_rows_are_written_read_and_deleted_by_key_or_literal_suffix(project: Project) -> None:
    keys = ["user:a_b", "pair:1.2.3.4\x1fa_b", "pair:5.6.7.8\x1fa_b", "pair:1.2.3.4\x1faxb", "pair:9.9.9.9\x1fza_b"]
    with project.db.write() as conn:
        for n, key in enumerate(keys):
            project.repo.write_throttle(conn, key, ThrottleRow(n, 10.0 + n, 0.0))
        project.repo.write_throttle(conn, keys[0], ThrottleRow(7, 20.0, 30.0))  # an update, not a second row
    with project.db.read() as conn:
        assert project.repo.read_throttle(conn, keys[0]) == ThrottleRow(7, 20.0, 30.0)
        assert project.repo.read_throttle(conn, "user:nobody") is None
    with project.db.write() as conn:
        project.repo.delete_throttles(conn, ["user:a_b"], prefix="pair:", suffix="\x1fa_b")
    with project.db.read() as conn:
        left = [key for key in keys if project.repo.read_throttle(conn, key) is not None]
    # "_" is a character, not a wildcard: "axb" stays; "za_b" is another name ending the same way after the separator
    assert left == ["pair:1.2.3.4\x1faxb", "pair:9.9.9.9\x1fza_b"]


def test_the_project_id_is_read_as_stored(project: Project) -> None:
    with project.db.read() as conn:
        found = project.repo.project_id(conn)
    assert found is not None and len(found) == 32 and int(found, 16) >= 0  # the hex id the project was created with


def test_users_are_added_read_counted_and_updated(project: Project) -> None:
    ivo = User("ivo", Role.TRANSLATOR, ("IT",), "Ivo")
    with project.db.write() as conn:
        project.repo.add_user(conn, User("lena", Role.LEAD), "hash")
        project.repo.add_user(conn, ivo, None)
    with project.db.read() as conn:
        assert project.repo.get_user(conn, "ivo") == ivo
        assert [u.name for u in project.repo.list_users(conn)] == ["ivo", "lena"]
        assert project.repo.count_enabled_leads(conn) == 1
        assert project.repo.get_password_hash(conn, "lena") == "hash"
