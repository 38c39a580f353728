"""Database schema (SQLAlchemy Core) and its version, so later releases can migrate old projects.

One row per item-language holds the current and pre-populated candidate sets as JSON: every edit then
is one row update guarded by ``version`` (optimistic locking), plus one append-only history row.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

#: Bump when the schema changes and add a step to ``MIGRATIONS`` in ``annotator.store.database``.
SCHEMA_VERSION = 3

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

users = Table(
    "users",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("display_name", String(200), nullable=False, default=""),
    Column("role", String(16), nullable=False),
    Column("languages", Text, nullable=False, default="[]"),
    Column("password_hash", Text, nullable=True),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("created_at", String(40), nullable=False),
)

items = Table(
    "items",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("sentence", Text, nullable=False),
    Column("target_text", String(200), nullable=False),
    Column("target_start", Integer, nullable=False),
    Column("target_end", Integer, nullable=False),
    Column("lemma", String(200), nullable=False),
    Column("pos", String(8), nullable=False),
    Column("synset", String(64), nullable=False),
    Column("source", String(200), nullable=False, default=""),
    Column("gloss", Text, nullable=False, default=""),
    Column("senses", Text, nullable=False, default="[]"),
    Column("filter_failures", Text, nullable=False, default="[]"),
    Column("excluded", Boolean, nullable=False, default=False),
    Column("content_hash", String(64), nullable=False),
    Column("imported_at", String(40), nullable=False),
    Index("ix_items_lemma", "lemma"),
    Index("ix_items_synset", "synset"),
)

item_languages = Table(
    "item_languages",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("status", String(16), nullable=False, default="pending"),
    Column("version", Integer, nullable=False, default=0),
    Column("good", Text, nullable=False, default="[]"),
    Column("bad", Text, nullable=False, default="[]"),
    Column("initial_good", Text, nullable=False, default="[]"),
    Column("initial_bad", Text, nullable=False, default="[]"),
    Column("overlaps", Text, nullable=False, default="[]"),
    Column("prepopulated", Boolean, nullable=False, default=False),
    Column("discuss_note", Text, nullable=False, default=""),
    Column("discard_reason", String(32), nullable=True),
    Column("discard_note", Text, nullable=False, default=""),
    Column("status_by", String(64), nullable=True),
    Column("updated_by", String(64), nullable=True),
    Column("updated_at", String(40), nullable=True),
    Index("ix_item_languages_lang_status", "lang", "status"),
)

history = Table(
    "history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(200), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("user", String(64), nullable=False),
    Column("at", String(40), nullable=False),
    Column("action", String(40), nullable=False),
    Column("detail", Text, nullable=False, default="{}"),
    Column("version", Integer, nullable=False),
    Index("ix_history_item_lang", "item_id", "lang"),
)

comments = Table(
    "comments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", String(200), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("user", String(64), nullable=False),
    Column("at", String(40), nullable=False),
    Column("text", Text, nullable=False),
    Index("ix_comments_item_lang", "item_id", "lang"),
)

#: Project-level changes (imports, pre-population runs, filters, exclusions, settings): who, when, what.
#: Added in schema version 2.
audit = Table(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user", String(64), nullable=False),
    Column("at", String(40), nullable=False),
    Column("action", String(40), nullable=False),
    Column("detail", Text, nullable=False, default="{}"),
)

#: Failed log-ins per user name ("user:<name>") and per client address ("addr:<ip>"), shared by every app
#: server of the project so that slowing down password guessing holds across processes. Schema version 3.
login_throttle = Table(
    "login_throttle",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("failures", Integer, nullable=False, default=0),
    Column("last_failure_at", Float, nullable=False, default=0.0),
    Column("blocked_until", Float, nullable=False, default=0.0),
)

#: A user's session epoch: every open session remembers it, and changing the password, disabling the account
#: or logging out bumps it, which ends the user's other sessions at their next action. Schema version 3.
session_epochs = Table(
    "session_epochs",
    metadata,
    Column("user", String(64), primary_key=True),
    Column("epoch", Integer, nullable=False, default=0),
)
