"""An item-language's GOOD and BAD are stored as NULL while they are still its G0 and B0 (``initial_good``,
``initial_bad``): a pre-populated list nobody edited is held once instead of twice; and a lexicon candidate without
tag or suggestion is stored in short form (``{"l":[synsets],"text":…}``). The columns become nullable, every row
whose GOOD (BAD) is the very text of its G0 (B0) is rewritten to NULL and every list to the short form. The
downgrade writes the lists back in full (the translators' copies too).

One pass over the table on either engine: PostgreSQL drops the NOT NULL and updates the rows; SQLite, which must
rebuild a table to change a column's nullability, copies the rows into the new table already rewritten (an update
after the copy would leave each row's page as large as before, the table's size unchanged).

Revision ID: 0017_good_bad_unless_edited
Revises: 0016_suggestion_kinds
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_good_bad_unless_edited"
down_revision = "0016_suggestion_kinds"
branch_labels = None
depends_on = None

#: The partial index of revision 0014, written out as it was made.
EMPTY_GOOD_INDEX = "ix_item_languages_empty_good"
EMPTY_GOOD_WHERE = "prepopulated AND initial_good = '[]'"
#: The columns of ``item_languages`` in the order they were made (revisions 0001 and 0006).
COLUMNS = (
    "item_id, lang, status, version, good, bad, initial_good, initial_bad, overlaps, prepopulated, discuss_note, "
    "discard_reason, discard_note, status_by, updated_by, updated_at, import_id"
)
#: A lexicon candidate without tag or suggestion, written out in full and in short form (``item_languages``'s
#: ``FULL_LEXICON`` / ``SHORT_LEXICON`` as they were made); inside a JSON string every quote is escaped, so either
#: text only ever starts such a candidate's object.
FULL = """'{"origin":"lexicon","pos":null,"synsets":'"""
SHORT = """'{"l":'"""


def _run(sql: str) -> None:
    """Through the driver as written: ``op.execute`` would take the ``:null`` in ``FULL`` for a parameter."""
    op.get_bind().exec_driver_sql(sql)


def _short(column: str) -> str:
    return f"REPLACE({column}, {FULL}, {SHORT})"


def _full(column: str) -> str:
    return f"REPLACE({column}, {SHORT}, {FULL})"


#: Column -> its new value, upgrading: GOOD/BAD NULL where they are G0/B0's very text, every list in short form.
TO_NULL = {
    "good": f"CASE WHEN good = initial_good THEN NULL ELSE {_short('good')} END",
    "bad": f"CASE WHEN bad = initial_bad THEN NULL ELSE {_short('bad')} END",
    "initial_good": _short("initial_good"),
    "initial_bad": _short("initial_bad"),
}
#: Downgrading: every list written out in full, as the earlier revisions read them.
FROM_NULL = {
    "good": _full("COALESCE(good, initial_good)"),
    "bad": _full("COALESCE(bad, initial_bad)"),
    "initial_good": _full("initial_good"),
    "initial_bad": _full("initial_bad"),
}


def _item_languages(name: str, nullable: bool) -> None:
    """``item_languages`` as revisions 0001 and 0006 made it, GOOD/BAD ``nullable`` or not, under ``name``."""
    op.create_table(
        name,
        sa.Column("item_id", sa.String(200), sa.ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("lang", sa.String(8), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("good", sa.Text, nullable=nullable),
        sa.Column("bad", sa.Text, nullable=nullable),
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
        sa.Column("import_id", sa.Integer, nullable=False, server_default="0"),
    )


def _rewrite(nullable: bool, values: dict[str, str]) -> None:
    if op.get_bind().dialect.name != "sqlite":
        update = "UPDATE item_languages SET " + ", ".join(f"{name} = {value}" for name, value in values.items())
        if not nullable:
            _run(update)  # no NULL is left before the columns refuse them again
        for column in ("good", "bad"):
            op.alter_column("item_languages", column, existing_type=sa.Text(), nullable=nullable)
        if nullable:
            _run(update)
        return
    _item_languages("item_languages_rewritten", nullable)
    selected = ", ".join(values.get(name, name) for name in COLUMNS.split(", "))
    _run(f"INSERT INTO item_languages_rewritten ({COLUMNS}) SELECT {selected} FROM item_languages")
    op.drop_table("item_languages")  # its indexes with it
    op.rename_table("item_languages_rewritten", "item_languages")
    op.create_index("ix_item_languages_lang_status", "item_languages", ["lang", "status"])
    where = sa.text(EMPTY_GOOD_WHERE)
    op.create_index(EMPTY_GOOD_INDEX, "item_languages", ["item_id", "lang"], sqlite_where=where)


def upgrade() -> None:
    _rewrite(True, TO_NULL)


def downgrade() -> None:
    _rewrite(False, FROM_NULL)
    # a translator's copy written since holds lexicon candidates in short form too
    _run(f"UPDATE copies SET good = {_full('good')}, bad = {_full('bad')}")
