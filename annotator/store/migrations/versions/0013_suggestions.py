"""Why a list is empty, and suggestions: what pre-population consulted per item-language
(``lexicon_records``), the costly suggestions kept with their stamp (``suggestion_cache``), and the suggestions
each user dismissed (``suggestion_dismissals``).

Revision ID: 0013_suggestions
Revises: 0012_password_change
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_suggestions"
down_revision = "0012_password_change"
branch_labels = None
depends_on = None


def _item_key() -> list[sa.Column]:
    return [
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
    ]


def upgrade() -> None:
    op.create_table("lexicon_records", *_item_key(), sa.Column("record", sa.Text, nullable=False))
    op.create_table(
        "suggestion_cache",
        *_item_key(),
        sa.Column("lexicon_stamp", sa.String(300), nullable=False),
        sa.Column("related", sa.Text, nullable=False),
        sa.Column("mt_stamp", sa.String(64), nullable=False),
        sa.Column("mt", sa.Text, nullable=False),
    )
    op.create_table(
        "suggestion_dismissals",
        *_item_key(),
        sa.Column("user", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
    )
