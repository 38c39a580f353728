"""The head revision read from the shipped revision files is Alembic's own head, and opening a database at the
head does not import Alembic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from annotator.store import schema_migrations
from annotator.store.database import Database, sqlite_url


def test_the_revision_files_name_alembics_revisions_and_head() -> None:
    known, head = schema_migrations._alembic_revisions()
    assert schema_migrations.revision_files() == (known, head)
    assert schema_migrations.head_revision() == head


def test_a_database_at_the_head_opens_without_importing_alembic(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "project.sqlite")
    created = Database(url)
    created.create_or_migrate()
    created.dispose()
    script = (
        "import sys\n"
        "from annotator.store.database import Database\n"
        f"db = Database({url!r})\n"
        "db.create_or_migrate()\n"
        "print(db.schema_revision(), 'alembic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [schema_migrations.head_revision(), "False"]
