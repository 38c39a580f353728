"""Sample items and whole-database helpers shared by the tests: the demo builder, a dump of every row, schema
rewinding."""

from __future__ import annotations

from pathlib import Path

from annotator.project import Project

SAMPLE_ITEMS = [
    {
        "id": "shot-whiskey",
        "sentence": "He poured a shot of whiskey.",
        "target": "shot",
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00057755n",
        "source": "dibimt-figure-1",
    },
    {
        "id": "head-stream",
        "sentence": "They tracked him back toward the head of the stream.",
        "target": "head",
        "lemma": "head",
        "pos": "NOUN",
        "synset": "bn:00036083n",
        "source": "dibimt-figure-1",
    },
]


def build_demo(folder: Path) -> None:
    from annotator.commands.project import create_demo

    create_demo(str(folder), quiet=True)


def dump(project: Project) -> dict[str, list[tuple]]:
    """Every row of every table: tests compare dumps to prove a refused action changed nothing at all."""
    from sqlalchemy import select

    from annotator.store import schema

    with project.db.read() as conn:
        return {
            table.name: sorted(tuple(row) for row in conn.execute(select(table)))
            for table in schema.metadata.sorted_tables
        }


#: What each Alembic revision after 0003 adds: tables, and (table, column) added to older tables. Tests that rewind
#: a database to an older revision undo these (newest first). Add a revision's additions here with the revision.
LATER_REVISIONS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "0004": (("copies", "assignments"), ()),
    "0005": (("jobs",), ()),
    "0006": (("imports",), (("items", "import_id"), ("item_languages", "import_id"))),
    "0007": (("inspections",), ()),
    "0008": (("session_epochs", "login_throttle"), ()),
    "0009": ((), (("users", "email"), ("session_epochs", "changed_at"))),
    "0010_wordnet_domain": ((), (("items", "domain"),)),
    "eval_core_job_files": (("job_files",), ()),  # issue 22 (sorts after the numbered revisions)
    "0012_password_change": ((), (("users", "must_change_password"),)),
    "0013_suggestions": (("suggestion_dismissals", "suggestion_cache", "lexicon_records"), ()),  # issue 33
    "0015_provenance": (("item_language_sources", "provenance_sources"), ()),  # issue 41
    "0016_suggestion_kinds": ((), (("suggestion_dismissals", "source"), ("suggestion_dismissals", "relation"))),
}


#: Indexes a later revision adds to older tables (dropped first when rewinding before it).
LATER_INDEXES: dict[str, tuple[str, ...]] = {
    "0014_empty_good": ("ix_item_languages_empty_good", "ix_items_imported_at", "ix_items_flagged"),  # issue 32
}


def rewind_schema(conn, revision: str) -> None:  # type: ignore[no-untyped-def]
    """Drop what the revisions after ``revision`` created and record ``revision`` as the database's (if Alembic
    manages it), so the next ``Project.open`` migrates it forward as it would an older release's database."""
    from sqlalchemy import inspect

    for later, indexes in LATER_INDEXES.items():
        for index in indexes if later > revision else ():
            conn.exec_driver_sql(f"DROP INDEX {index}")
    for later in sorted(LATER_REVISIONS, reverse=True):
        if later <= revision:
            continue
        tables, columns = LATER_REVISIONS[later]
        for table in tables:
            conn.exec_driver_sql(f"DROP TABLE {table}")
        for table, column in columns:
            for index in inspect(conn).get_indexes(table):  # SQLite will not drop an indexed column
                if column in index["column_names"]:
                    conn.exec_driver_sql(f"DROP INDEX {index['name']}")
            conn.exec_driver_sql(f"ALTER TABLE {table} DROP COLUMN {column}")

    if revision < "0017":  # before 0017 GOOD/BAD were always written, every candidate in full
        full = """REPLACE(%s, '{"l":', '{"origin":"lexicon","pos":null,"synsets":')"""
        lists = {"good": "COALESCE(good, initial_good)", "bad": "COALESCE(bad, initial_bad)"}
        lists |= {"initial_good": "initial_good", "initial_bad": "initial_bad"}
        sets = ", ".join(f"{name} = {full % value}" for name, value in lists.items())
        conn.exec_driver_sql(f"UPDATE item_languages SET {sets}")
        if inspect(conn).has_table("copies"):
            conn.exec_driver_sql(f"UPDATE copies SET good = {full % 'good'}, bad = {full % 'bad'}")
    if inspect(conn).has_table("alembic_version"):
        conn.exec_driver_sql(f"UPDATE alembic_version SET version_num='{revision}'")
