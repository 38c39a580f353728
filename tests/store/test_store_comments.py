"""``store/comments.py``: an item-language's comments, oldest first, never another item-language's."""

from __future__ import annotations

import pytest

from annotator.domain.model import Comment
from annotator.project import Project

pytestmark = pytest.mark.both_engines


def test_comments_are_kept_per_item_language_in_the_order_written(project: Project) -> None:
    written = [
        Comment("bank-1", "IT", "ivo", "2026-01-01T10:00:00+00:00", "first"),
        Comment("bank-1", "DE", "ida", "2026-01-01T10:01:00+00:00", "another language"),
        Comment("bank-2", "IT", "ivo", "2026-01-01T10:02:00+00:00", "another item"),
        Comment("bank-1", "IT", "lena", "2026-01-01T09:00:00+00:00", "second, although its clock was behind: 銀行"),
    ]
    with project.db.write() as conn:
        for comment in written:
            project.repo.add_comment(conn, comment)
    with project.db.read() as conn:
        assert project.repo.comments(conn, "bank-1", "IT") == [written[0], written[3]]
        assert project.repo.comments(conn, "bank-1", "DE") == [written[1]]
        assert project.repo.comments(conn, "bank-3", "IT") == []
