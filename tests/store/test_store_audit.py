"""``store/audit.py``: project-level changes are read back newest first, with their detail."""

from __future__ import annotations

import pytest

from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_audit_rows_come_back_newest_first_with_their_detail_and_a_limit(project: Project) -> None:
    with project.db.read() as conn:
        existing = len(project.repo.audit(conn, limit=1000))
    with project.db.write() as conn:
        for n in range(5):
            project.repo.add_audit(conn, "lena", f"action-{n}", {"n": n, "langs": ["IT"], "note": "città"})
    with project.db.read() as conn:
        rows = project.repo.audit(conn)
        newest_two = project.repo.audit(conn, limit=2)
    assert len(rows) == existing + 5
    assert [r["action"] for r in rows[:5]] == [f"action-{n}" for n in (4, 3, 2, 1, 0)]
    assert rows[0]["detail"] == {"n": 4, "langs": ["IT"], "note": "città"}
    assert rows[0]["user"] == "lena"
    assert rows[4]["at"] <= rows[0]["at"]
    assert newest_two == rows[:2]
