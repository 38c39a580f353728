"""Background jobs: the ``jobs`` table (who started which import, pre-population, filters, export or evaluation;
its state, progress, result or error; the worker that runs it), read by ``annotator.store.jobs``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user", sa.String(64), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("cancel_requested", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=True),
        sa.Column("finished_at", sa.String(40), nullable=True),
        sa.Column("heartbeat_at", sa.String(40), nullable=True),
        sa.Column("worker_pid", sa.Integer, nullable=True),
        sa.Column("worker_host", sa.String(255), nullable=True),
    )
    op.create_index("ix_jobs_kind_state", "jobs", ["kind", "state"])
