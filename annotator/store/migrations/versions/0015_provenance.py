"""Where the published data came from: every source a project's data was taken from (an imported corpus, a lexicon)
with its licence as recorded when it was used (``provenance_sources``), and the lexicon sources each item-language's
pre-populated candidates came from (``item_language_sources``), so that a later lexicon switch or removal cannot
change what a publish owes them.

Revision ID: 0015_provenance
Revises: 0014_empty_good
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_provenance"
down_revision = "0014_empty_good"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "provenance_sources",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("provided", sa.Text, nullable=False),
        sa.Column("licence", sa.String(64), nullable=False),
        sa.Column("stated", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("citation", sa.Text, nullable=False),
        sa.Column("notice", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "item_language_sources",
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("sources", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("item_language_sources")
    op.drop_table("provenance_sources")
