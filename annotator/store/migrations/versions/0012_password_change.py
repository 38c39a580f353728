"""One-time passwords that must be replaced: ``users.must_change_password``. A password a lead reset (or
``annotator users passwd --reset`` printed) logs in once, and the app then serves nothing but the change-password
form until its owner has chosen a new one.

Revision ID: 0012_password_change
Revises: eval_core_job_files
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_password_change"
down_revision = "eval_core_job_files"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing passwords were chosen or handed over before the rule: they stay valid (false for every row).
    op.add_column("users", sa.Column("must_change_password", sa.Boolean, nullable=False, server_default=sa.false()))
