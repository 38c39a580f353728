"""Imports in short transactions: an ``imports`` row per import still staging, and ``import_id`` on ``items`` and
``item_languages`` so a staging import's rows stay hidden until one short transaction deletes that row.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "imports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("file", sa.Text, nullable=False),
        sa.Column("user", sa.String(64), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("heartbeat", sa.Float, nullable=False),
        sqlite_autoincrement=True,
    )
    for table in ("items", "item_languages"):
        op.add_column(table, sa.Column("import_id", sa.Integer, nullable=False, server_default="0"))
