"""A dismissed suggestion's source and relation (team / related / mt; hypernym, same sense…), kept with the
dismissal, as an accepted one's are in its history row, so the project's acceptance rate per kind can be counted.
Rows dismissed before hold "" for both.

Revision ID: 0016_suggestion_kinds
Revises: 0015_provenance
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_suggestion_kinds"
down_revision = "0015_provenance"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("suggestion_dismissals") as batch:
        batch.add_column(sa.Column("source", sa.String(20), nullable=False, server_default=""))
        batch.add_column(sa.Column("relation", sa.String(200), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("suggestion_dismissals") as batch:
        batch.drop_column("relation")
        batch.drop_column("source")
