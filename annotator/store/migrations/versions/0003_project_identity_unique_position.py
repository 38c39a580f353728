"""A project is its database: a ``project_id`` meta row; and one queue position per item (unique).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

Before this, concurrent imports on PostgreSQL could hand out the same positions: those are renumbered in
their current order first, so the unique index can be created on any existing database.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    duplicated = bind.execute(
        sa.text("SELECT count(*) FROM (SELECT position FROM items GROUP BY position HAVING count(*) > 1) d")
    ).scalar()
    if duplicated:
        ids = [row[0] for row in bind.execute(sa.text("SELECT id FROM items ORDER BY position, imported_at, id"))]
        for position, item_id in enumerate(ids, start=1):
            bind.execute(sa.text("UPDATE items SET position = :p WHERE id = :i"), {"p": position, "i": item_id})
    op.create_index("ux_items_position", "items", ["position"], unique=True)
    # An existing project (it has settings) gets its identity; a fresh database gets one at 'init'.
    has_settings = bind.execute(sa.text("SELECT count(*) FROM meta WHERE key = 'settings'")).scalar()
    has_id = bind.execute(sa.text("SELECT count(*) FROM meta WHERE key = 'project_id'")).scalar()
    if has_settings and not has_id:
        bind.execute(sa.text("INSERT INTO meta (key, value) VALUES ('project_id', :v)"), {"v": uuid.uuid4().hex})
