"""Alembic environment: runs on the connection ``Database.create_or_migrate()`` hands over (inside its write lock).

Run from the ``alembic`` command line (``alembic -c annotator/store/migrations/alembic.ini ...``) it connects to
``ANNOTATOR_DATABASE_URL`` instead, e.g. to check ``alembic history`` or ``alembic current``.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine

from annotator.store import schema

config = context.config
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(connection=connection, target_metadata=schema.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    url = os.environ.get("ANNOTATOR_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("Set ANNOTATOR_DATABASE_URL (e.g. sqlite:///data/annotator.sqlite).")
    with create_engine(url).connect() as own:
        context.configure(connection=own, target_metadata=schema.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
