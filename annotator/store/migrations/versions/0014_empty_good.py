"""Indexes for the pages' read model: the item-languages pre-populated with an empty GOOD list (a partial index: the
Project page's block on them reads only those rows instead of scanning every item-language); the items' newest
import time, so ``read_model.data_version`` reads it from an index instead of walking every item; and the items
failing a selection filter or excluded (a partial index), which the Project page lists on every rerun and the data
version counts the excluded items from.

Revision ID: 0014_empty_good
Revises: 0013_suggestions
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_empty_good"
down_revision = "0013_suggestions"
branch_labels = None
depends_on = None

#: Written out here as it was when the revision was made (``schema.EMPTY_GOOD_WHERE`` describes the result).
EMPTY_GOOD_WHERE = "prepopulated AND initial_good = '[]'"
FLAGGED_WHERE = "filter_failures != '[]' OR excluded"


def upgrade() -> None:
    where = sa.text(EMPTY_GOOD_WHERE)
    op.create_index(
        "ix_item_languages_empty_good",
        "item_languages",
        ["item_id", "lang"],
        sqlite_where=where,
        postgresql_where=where,
    )
    op.create_index("ix_items_imported_at", "items", ["imported_at"])
    flagged = sa.text(FLAGGED_WHERE)
    op.create_index(  # ``excluded`` too: the data version counts the excluded items from the index alone
        "ix_items_flagged", "items", ["position", "excluded"], sqlite_where=flagged, postgresql_where=flagged
    )


def downgrade() -> None:
    op.drop_index("ix_items_flagged", table_name="items")
    op.drop_index("ix_items_imported_at", table_name="items")
    op.drop_index("ix_item_languages_empty_good", table_name="item_languages")
