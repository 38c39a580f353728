"""Single sign-on: an optional ``email`` on ``users`` (stored lower-case, unique), by which an OpenID Connect
login (Streamlit's ``st.login``) is matched to an account; roles and languages stay in this database. And
``session_epochs.changed_at``: when a logout, password change or disabled account last ended the user's sessions,
so a provider identity issued before then (still in another browser's identity cookie) is not taken again.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("email", sa.String(254), nullable=True))
    # A unique index, not a constraint: SQLite cannot add a constraint to an existing table, and both engines let
    # any number of rows leave it empty (NULL). The service stores addresses lower-cased, so this is per lower case.
    op.create_index("ux_users_email", "users", ["email"], unique=True)
    op.add_column("session_epochs", sa.Column("changed_at", sa.Float, nullable=True))
