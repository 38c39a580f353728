"""The accounts' tables behind ``services.accounts``: session epochs, the log-in throttle's rows, the project id,
and ``store.users`` as module functions (the same functions ``project.repo`` offers)."""

from __future__ import annotations

import pytest

from annotator.domain.model import Role, User
from annotator.project import Project
from annotator.store import login_throttle, meta, sessions, users
from annotator.store.login_throttle import ThrottleRow

pytestmark = pytest.mark.both_engines


def test_an_epoch_starts_at_zero_and_each_bump_moves_it_and_notes_when(project: Project) -> None:
    with project.db.read() as conn:
        assert sessions.epoch(conn, "ivo") == 0
        assert sessions.epoch_changed_at(conn, "ivo") is None
    with project.db.write() as conn:
        sessions.bump_epoch(conn, "ivo")
    with project.db.read() as conn:
        first = sessions.epoch_changed_at(conn, "ivo")
        assert sessions.epoch(conn, "ivo") == 1 and first is not None
    with project.db.write() as conn:
        sessions.bump_epoch(conn, "ivo")
    with project.db.read() as conn:
        assert sessions.epoch(conn, "ivo") == 2
        assert (sessions.epoch_changed_at(conn, "ivo") or 0.0) >= first
        assert sessions.epoch(conn, "lena") == 0  # another account's epoch does not move


def test_throttle_rows_are_written_read_and_deleted_by_key_or_literal_suffix(project: Project) -> None:
    keys = ["user:a_b", "pair:1.2.3.4\x1fa_b", "pair:5.6.7.8\x1fa_b", "pair:1.2.3.4\x1faxb", "pair:9.9.9.9\x1fza_b"]
    with project.db.write() as conn:
        for n, key in enumerate(keys):
            login_throttle.save(conn, key, ThrottleRow(n, 10.0 + n, 0.0))
        login_throttle.save(conn, keys[0], ThrottleRow(7, 20.0, 30.0))  # an update, not a second row
    with project.db.read() as conn:
        assert login_throttle.read(conn, keys[0]) == ThrottleRow(7, 20.0, 30.0)
        assert login_throttle.read(conn, "user:nobody") is None
    with project.db.write() as conn:
        login_throttle.delete(conn, ["user:a_b"], prefix="pair:", suffix="\x1fa_b")
    with project.db.read() as conn:
        left = [key for key in keys if login_throttle.read(conn, key) is not None]
    # "_" is a character, not a wildcard: "axb" stays; "za_b" is another name ending the same way after the separator
    assert left == ["pair:1.2.3.4\x1faxb", "pair:9.9.9.9\x1fza_b"]


def test_the_project_id_is_read_as_stored(project: Project) -> None:
    with project.db.read() as conn:
        found = meta.project_id(conn)
    assert found is not None and len(found) == 32 and int(found, 16) >= 0  # the hex id the project was created with


def test_users_module_functions_are_the_repository_methods(project: Project) -> None:
    ivo = User("ivo", Role.TRANSLATOR, ("IT",), "Ivo")
    with project.db.write() as conn:
        users.add_user(conn, User("lena", Role.LEAD), "hash")
        project.repo.add_user(conn, ivo, None)
    with project.db.read() as conn:
        assert users.get_user(conn, "ivo") == project.repo.get_user(conn, "ivo") == ivo
        assert [u.name for u in users.list_users(conn)] == ["ivo", "lena"]
        assert users.count_enabled_leads(conn) == 1
        assert users.get_password_hash(conn, "lena") == "hash"
