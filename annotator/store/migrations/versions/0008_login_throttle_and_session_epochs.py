"""Log-in safety: ``login_throttle`` (failed log-ins per user name and per client address, shared by every app
server) and ``session_epochs`` (a password change, a disabled account or a logout ends the user's other sessions).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_failure_at", sa.Float, nullable=False),
        sa.Column("blocked_until", sa.Float, nullable=False),
    )
    op.create_table(
        "session_epochs",
        sa.Column("user", sa.String(64), primary_key=True),
        sa.Column("epoch", sa.Integer, nullable=False),
    )
