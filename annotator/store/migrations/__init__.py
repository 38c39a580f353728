"""Alembic migration scripts, shipped inside the package so ``Database.create_or_migrate()`` finds them anywhere."""
