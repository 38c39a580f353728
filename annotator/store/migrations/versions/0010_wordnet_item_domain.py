"""An optional ``domain`` on ``items``: the text's domain when the source gives one (a WSD-framework XML file's
``<text domain>``, an item file's ``domain`` column), exported in ``dataset.jsonl`` for per-domain metrics.

Revision ID: 0010_wordnet_domain
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_wordnet_domain"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("items", sa.Column("domain", sa.String(200), nullable=False, server_default=""))
