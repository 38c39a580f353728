"""``store/meta.py``: project-wide values by key, and the row counts of every table."""

from __future__ import annotations

import pytest

from annotator.project import Project
from annotator.store import schema

pytestmark = pytest.mark.both_engines


def test_a_value_round_trips_and_a_second_set_replaces_it(project: Project) -> None:
    repo = project.repo
    with project.db.read() as conn:
        assert repo.get_meta(conn, "test_key") is None
        assert repo.get_meta(conn, "test_key", {"fallback": 1}) == {"fallback": 1}
    value = {"languages": ["IT", "ZH"], "note": "città 銀行", "n": 3, "nested": {"b": [1, 2], "a": None}}
    with project.db.write() as conn:
        repo.set_meta(conn, "test_key", value)
    with project.db.read() as conn:
        assert repo.get_meta(conn, "test_key") == value
    with project.db.write() as conn:
        repo.set_meta(conn, "test_key", [1, 2])
    with project.db.read() as conn:
        assert repo.get_meta(conn, "test_key") == [1, 2]
        stored = conn.execute(schema.meta.select().where(schema.meta.c.key == "test_key")).all()
    assert len(stored) == 1  # replaced, not added twice
    assert stored[0].value == "[1,2]"  # compact JSON text


def test_table_counts_name_every_table_and_follow_writes(project: Project) -> None:
    with project.db.read() as conn:
        before = project.repo.table_counts(conn)
    assert set(before) == {table.name for table in schema.metadata.sorted_tables}
    with project.db.write() as conn:
        project.repo.set_meta(conn, "one_more", True)
        project.repo.add_audit(conn, "lena", "test", {})
    with project.db.read() as conn:
        after = project.repo.table_counts(conn)
    assert after["meta"] == before["meta"] + 1
    assert after["audit"] == before["audit"] + 1
    assert {k: v for k, v in after.items() if k not in ("meta", "audit")} == {
        k: v for k, v in before.items() if k not in ("meta", "audit")
    }
