"""Schema version 1 (release 0.1.0): meta, users, items, item-languages, history, comments.

Revision ID: 0001
Revises:
Create Date: 2026-11-23

Frozen copy of the tables as 0.1.0 created them: a revision never imports ``annotator.store.schema``, whose
tables describe the newest state.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "users",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("languages", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "items",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("sentence", sa.Text, nullable=False),
        sa.Column("target_text", sa.String(200), nullable=False),
        sa.Column("target_start", sa.Integer, nullable=False),
        sa.Column("target_end", sa.Integer, nullable=False),
        sa.Column("lemma", sa.String(200), nullable=False),
        sa.Column("pos", sa.String(8), nullable=False),
        sa.Column("synset", sa.String(64), nullable=False),
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("gloss", sa.Text, nullable=False),
        sa.Column("senses", sa.Text, nullable=False),
        sa.Column("filter_failures", sa.Text, nullable=False),
        sa.Column("excluded", sa.Boolean, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("imported_at", sa.String(40), nullable=False),
    )
    op.create_index("ix_items_lemma", "items", ["lemma"])
    op.create_index("ix_items_synset", "items", ["synset"])
    op.create_table(
        "item_languages",
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("good", sa.Text, nullable=False),
        sa.Column("bad", sa.Text, nullable=False),
        sa.Column("initial_good", sa.Text, nullable=False),
        sa.Column("initial_bad", sa.Text, nullable=False),
        sa.Column("overlaps", sa.Text, nullable=False),
        sa.Column("prepopulated", sa.Boolean, nullable=False),
        sa.Column("discuss_note", sa.Text, nullable=False),
        sa.Column("discard_reason", sa.String(32), nullable=True),
        sa.Column("discard_note", sa.Text, nullable=False),
        sa.Column("status_by", sa.String(64), nullable=True),
        sa.Column("updated_by", sa.String(64), nullable=True),
        sa.Column("updated_at", sa.String(40), nullable=True),
    )
    op.create_index("ix_item_languages_lang_status", "item_languages", ["lang", "status"])
    op.create_table(
        "history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("user", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("ix_history_item_lang", "history", ["item_id", "lang"])
    op.create_table(
        "comments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("user", sa.String(64), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_index("ix_comments_item_lang", "comments", ["item_id", "lang"])
