"""Human inspection of evaluation results: ``inspections``, one row per (item, language, system) a lead marked or
decided; a verdict holds only while ``verdict_hash`` (the translation and the candidates) is unchanged.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inspections",
        sa.Column("item_id", sa.String(200), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("system", sa.String(200), primary_key=True),
        sa.Column("marked_by", sa.String(64), nullable=True),
        sa.Column("marked_at", sa.String(40), nullable=True),
        sa.Column("verdict", sa.String(8), nullable=True),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("verdict_hash", sa.String(64), nullable=True),
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.Column("decided_at", sa.String(40), nullable=True),
    )
