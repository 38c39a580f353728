"""The ``comments`` table: what translators and leads write about an item-language."""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from annotator.domain.model import Comment
from annotator.store import schema


class CommentRecords:
    """An item-language's comments, oldest first; part of ``Repository``."""

    def add_comment(self, conn: Connection, comment: Comment) -> None:
        conn.execute(
            schema.comments.insert().values(
                item_id=comment.item_id, lang=comment.lang, user=comment.user, at=comment.at, text=comment.text
            )
        )

    def comments(self, conn: Connection, item_id: str, lang: str) -> list[Comment]:
        c = schema.comments
        rows = conn.execute(select(c).where(and_(c.c.item_id == item_id, c.c.lang == lang)).order_by(c.c.id))
        return [Comment(r.item_id, r.lang, r.user, r.at, r.text) for r in rows]
