"""Database schema (SQLAlchemy Core): the tables as the newest Alembic revision leaves them.

The tables are created and changed only by the revisions in ``annotator/store/migrations/versions`` (see
docs/ARCHITECTURE.md, "Schema changes"); this module describes the result for the repository's queries.

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
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    false,
    text,
)

from annotator.domain.model import ITEM_FIELD_MAX

metadata = MetaData()

#: An item that failed a selection filter or that a lead excluded (the Project page's list; revision 0014's partial
#: index ``ix_items_flagged``).
FLAGGED_WHERE = "filter_failures != '[]' OR excluded"
#: An item-language pre-populated with an empty GOOD list (revision 0014's partial index). Queries that want the
#: index write this very text (``literal_column``), not a bound parameter: a planner uses a partial index only when
#: the query's condition shows it holds.
EMPTY_GOOD_WHERE = "prepopulated AND initial_good = '[]'"

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
    #: Revision 0009: the address a single sign-on login is matched by; lower-case, unique, optional.
    Column("email", String(254), nullable=True),
    Index("ux_users_email", "email", unique=True),
    #: Revision 0012: a one-time password (a reset) that must be replaced at the next log-in before anything else.
    Column("must_change_password", Boolean, nullable=False, default=False, server_default=false()),
)

items = Table(
    "items",
    metadata,
    Column("id", String(ITEM_FIELD_MAX["id"]), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("sentence", Text, nullable=False),
    Column("target_text", String(ITEM_FIELD_MAX["target"]), nullable=False),
    Column("target_start", Integer, nullable=False),
    Column("target_end", Integer, nullable=False),
    Column("lemma", String(ITEM_FIELD_MAX["lemma"]), nullable=False),
    Column("pos", String(8), nullable=False),
    Column("synset", String(ITEM_FIELD_MAX["synset"]), nullable=False),
    Column("source", String(ITEM_FIELD_MAX["source"]), nullable=False, default=""),
    Column("gloss", Text, nullable=False, default=""),
    Column("senses", Text, nullable=False, default="[]"),
    Column("filter_failures", Text, nullable=False, default="[]"),
    Column("excluded", Boolean, nullable=False, default=False),
    Column("content_hash", String(64), nullable=False),
    Column("imported_at", String(40), nullable=False),
    #: The import that wrote the row; hidden while that import is still in ``imports`` (revision 0006).
    Column("import_id", Integer, nullable=False, default=0, server_default="0"),
    #: The text's domain, when the source gives one (revision wordnet_domain); "" otherwise.
    Column("domain", String(ITEM_FIELD_MAX["domain"]), nullable=False, default="", server_default=""),
    Index("ix_items_lemma", "lemma"),
    Index("ix_items_synset", "synset"),
    Index("ux_items_position", "position", unique=True),  # revision 0003: one queue position per item
    # revision 0014: ``read_model.data_version`` reads the newest import time from this one, and counts the excluded
    # items from the next (every excluded item is flagged)
    Index("ix_items_imported_at", "imported_at"),
    Index(
        "ix_items_flagged",
        "position",
        "excluded",  # so that counting the excluded items reads the index alone
        sqlite_where=text(FLAGGED_WHERE),
    ),  # and the Project page's flagged items, without reading every item
)

item_languages = Table(
    "item_languages",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("status", String(16), nullable=False, default="pending"),
    Column("version", Integer, nullable=False, default=0),
    # GOOD/BAD: NULL while they are still G0/B0 (``initial_good``/``initial_bad``), so a pre-populated row holds its
    # lists once; readers go through ``item_languages.CURRENT_GOOD``/``CURRENT_BAD`` or ``item_language_from_row``
    Column("good", Text, nullable=True),
    Column("bad", Text, nullable=True),
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
    Column("import_id", Integer, nullable=False, default=0, server_default="0"),
    Index("ix_item_languages_lang_status", "lang", "status"),
    # the item-languages pre-populated with an empty GOOD list (the Project page's block on them), a few rows
    Index(
        "ix_item_languages_empty_good",
        "item_id",
        "lang",
        sqlite_where=text(EMPTY_GOOD_WHERE),
    ),
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

#: Double curation, schema version 3. One row per item-language a lead gave to two or more translators;
#: ``state`` is ``open`` until a lead adjudicates the copies into the item-language's sets (``adjudicated``).
assignments = Table(
    "assignments",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("state", String(16), nullable=False, default="open"),
    Column("assigned_by", String(64), nullable=False),
    Column("assigned_at", String(40), nullable=False),
    Column("adjudicated_by", String(64), nullable=True),
    Column("adjudicated_at", String(40), nullable=True),
    Index("ix_assignments_lang_state", "lang", "state"),
)

#: Each assigned translator's private copy of the item-language's sets (same JSON form as ``item_languages``).
copies = Table(
    "copies",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("annotator", String(64), primary_key=True),
    Column("status", String(16), nullable=False, default="pending"),
    Column("version", Integer, nullable=False, default=0),
    Column("good", Text, nullable=False, default="[]"),
    Column("bad", Text, nullable=False, default="[]"),
    Column("discuss_note", Text, nullable=False, default=""),
    Column("discard_reason", String(32), nullable=True),
    Column("discard_note", Text, nullable=False, default=""),
    Column("updated_at", String(40), nullable=True),
    Index("ix_copies_annotator_lang", "annotator", "lang"),
)

#: Background jobs (import, pre-population, filters, export, evaluation) run by a worker process outside the
#: browser session: who started what, its state and progress, and its result or error. Added in Alembic revision 0005.
jobs = Table(
    "jobs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("user", String(64), nullable=False),
    Column("params", Text, nullable=False, default="{}"),
    Column("state", String(16), nullable=False),
    Column("done", Integer, nullable=False, default=0),
    Column("total", Integer, nullable=False, default=0),
    Column("message", Text, nullable=False, default=""),
    Column("result", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("cancel_requested", Boolean, nullable=False, default=False),
    Column("created_at", String(40), nullable=False),
    Column("started_at", String(40), nullable=True),
    Column("finished_at", String(40), nullable=True),
    Column("heartbeat_at", String(40), nullable=True),
    Column("worker_pid", Integer, nullable=True),
    Column("worker_host", String(255), nullable=True),
    Index("ix_jobs_kind_state", "kind", "state"),
)

#: Imports still being staged (Alembic revision 0006). Rows of ``items`` and ``item_languages`` whose ``import_id`` is
#: listed here are invisible to every reader; deleting the one row here commits the whole import at once.
#: AUTOINCREMENT, so an id is never reused and a committed import's rows can never be hidden again.
imports = Table(
    "imports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("file", Text, nullable=False),
    Column("user", String(64), nullable=False),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", String(40), nullable=False),
    #: Seconds since the epoch, refreshed by every staging batch: a stale heartbeat means the import died.
    Column("heartbeat", Float, nullable=False),
    sqlite_autoincrement=True,
)


#: Human inspection of evaluation results: a lead marks a result (item, language, system) for inspection
#: and records a verdict. The verdict holds only while ``verdict_hash`` (translation + candidates) is unchanged.
#: Added in Alembic revision 0007.
inspections = Table(
    "inspections",
    metadata,
    Column("item_id", String(200), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("system", String(200), primary_key=True),
    Column("marked_by", String(64), nullable=True),
    Column("marked_at", String(40), nullable=True),
    Column("verdict", String(8), nullable=True),
    Column("note", Text, nullable=False, default=""),
    Column("verdict_hash", String(64), nullable=True),
    Column("decided_by", String(64), nullable=True),
    Column("decided_at", String(40), nullable=True),
)

#: Failed log-ins per user name ("user:<name>") and per client address ("addr:<ip>"), shared by every app
#: server of the project so that slowing down password guessing holds across processes. Alembic revision 0008.
login_throttle = Table(
    "login_throttle",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("failures", Integer, nullable=False, default=0),
    Column("last_failure_at", Float, nullable=False, default=0.0),
    Column("blocked_until", Float, nullable=False, default=0.0),
)

#: A user's session epoch: every open session remembers it, and changing the password, disabling the account
#: or logging out bumps it, which ends the user's other sessions at their next action. Alembic revision 0008.
session_epochs = Table(
    "session_epochs",
    metadata,
    Column("user", String(64), primary_key=True),
    Column("epoch", Integer, nullable=False, default=0),
    #: Revision 0009: when the epoch last moved (Unix time); a single sign-on identity issued before it is stale.
    Column("changed_at", Float, nullable=True),
)

#: The files a job wrote (an export's folder, the Evaluate page's results), kept so that every app server of the
#: project offers them: each file as numbered parts (``part`` 0, 1, …) of at most 1 MiB before compression, each
#: part zlib-compressed on its own, so neither side ever holds a whole file as one value.
job_files = Table(
    "job_files",
    metadata,
    Column("job_id", Integer, ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True),
    Column("name", String(255), primary_key=True),
    Column("part", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)

#: Alembic revision 0013_suggestions. What pre-population consulted for each item-language: the lexicons asked
#: (by id, or BabelNet's sources) and what each returned, so an empty GOOD or BAD list has an exact reason.
lexicon_records = Table(
    "lexicon_records",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("record", Text, nullable=False),
)

#: The suggestions of an item-language that are costly to find (related senses in the lexicons; words of MISS
#: translations), kept with the stamp of what they were computed from; a stale stamp means computing them again.
suggestion_cache = Table(
    "suggestion_cache",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("lexicon_stamp", String(300), nullable=False, default=""),
    Column("related", Text, nullable=False, default="[]"),
    Column("mt_stamp", String(64), nullable=False, default=""),
    Column("mt", Text, nullable=False, default="[]"),
)

#: A suggestion a user dismissed on an item-language: not offered to that user there again (nobody else's view, no
#: version or history changes). ``source`` / ``relation`` (revision 0016_suggestion_kinds): the suggestion's kind when
#: it was dismissed ("" when the text was not one offered then), what acceptance rates per kind count.
suggestion_dismissals = Table(
    "suggestion_dismissals",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("user", String(64), primary_key=True),
    Column("key", String(300), primary_key=True),
    Column("text", String(200), nullable=False),
    Column("at", String(40), nullable=False),
    Column("source", String(20), nullable=False, server_default=""),
    Column("relation", String(200), nullable=False, server_default=""),
)

#: Revision 0015_provenance. Every source the project's data was taken from, with its licence as recorded when it
#: was used: ``corpus:<import id>`` (an import's sentences: the licence read beside its file or given with it) and
#: ``lexicon:…`` (a wordnet lexicon, a snapshot, BabelNet). ``licence`` is a licence id or ``unknown``; ``notice``
#: the licence text the source ships, when it asks for it to travel with every copy. Rows are never deleted.
provenance_sources = Table(
    "provenance_sources",
    metadata,
    Column("key", String(300), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("label", Text, nullable=False),
    Column("provided", Text, nullable=False),
    Column("licence", String(64), nullable=False),
    Column("stated", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("citation", Text, nullable=False),
    Column("notice", Text, nullable=False),
    Column("recorded_at", String(40), nullable=False),
)

#: The lexicon sources (keys of ``provenance_sources``, a JSON list) an item-language's last pre-population took its
#: G0/B0 and Ω(λ) from. No row: pre-populated before sources were recorded (or never).
item_language_sources = Table(
    "item_language_sources",
    metadata,
    Column("item_id", String(200), ForeignKey("items.id", ondelete="CASCADE"), primary_key=True),
    Column("lang", String(8), primary_key=True),
    Column("sources", Text, nullable=False),
)


def add_postgresql_conditions() -> None:
    """Give the partial indexes their PostgreSQL condition (the same text as SQLite's).

    Called when a PostgreSQL engine is made, before any DDL is compiled for it: naming the condition in the tables
    above would load SQLAlchemy's PostgreSQL dialect, and every driver it lists, in each process on SQLite.
    """
    partial = (
        (items, "ix_items_flagged", FLAGGED_WHERE),
        (item_languages, "ix_item_languages_empty_good", EMPTY_GOOD_WHERE),
    )
    for table, name, where in partial:
        index = next(index for index in table.indexes if index.name == name)
        index.dialect_kwargs["postgresql_where"] = text(where)
