"""The files a job wrote (an export's folder, an evaluation's results) kept in the database, so every app server of
the project offers them, whichever server's worker ran the job: ``job_files``, each file as numbered parts of at
most 1 MiB, each compressed on its own.

Revision ID: eval_core_job_files
Revises: 0010_wordnet_domain
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "eval_core_job_files"
down_revision = "0010_wordnet_domain"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job_files",
        sa.Column("job_id", sa.Integer, sa.ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("part", sa.Integer, primary_key=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
