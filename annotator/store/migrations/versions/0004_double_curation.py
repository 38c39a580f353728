"""Double curation: ``assignments`` (an item-language curated independently by several translators) and ``copies``
(each translator's private sets), read by ``annotator.store.double_curation``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("assigned_by", sa.String(64), nullable=False),
        sa.Column("assigned_at", sa.String(40), nullable=False),
        sa.Column("adjudicated_by", sa.String(64), nullable=True),
        sa.Column("adjudicated_at", sa.String(40), nullable=True),
    )
    op.create_index("ix_assignments_lang_state", "assignments", ["lang", "state"])
    op.create_table(
        "copies",
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("annotator", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("good", sa.Text, nullable=False),
        sa.Column("bad", sa.Text, nullable=False),
        sa.Column("discuss_note", sa.Text, nullable=False),
        sa.Column("discard_reason", sa.String(32), nullable=True),
        sa.Column("discard_note", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=True),
    )
    op.create_index("ix_copies_annotator_lang", "copies", ["annotator", "lang"])
