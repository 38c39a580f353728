"""The repository: one object giving typed access to every table of the curation data.

Each aggregate's reads and writes live in a module of its own (``users``, ``items``, ``item_languages``,
``queues``, ``staging``…, see the imports below); ``Repository`` only composes them, so a caller keeps one
``project.repo`` and a newcomer finds each table's code by its file name. Every method takes the connection from
``Database.read()`` or ``Database.write()``, so a caller composes several of them into one all-or-nothing
transaction. Outside the store, tables are reached only through this class (the row types are imported, never a
store module's functions).

The row types and helpers that callers imported from here before the split are re-exported (``__all__``).
"""

from __future__ import annotations

from annotator.clock import utc_now
from annotator.store.audit import AuditRecords
from annotator.store.comments import CommentRecords
from annotator.store.data_version import DataVersionRecords
from annotator.store.database import Database
from annotator.store.double_curation import DoubleCurationRecords
from annotator.store.evaluation_rows import EvaluationRow, EvaluationRowRecords
from annotator.store.history import HistoryRecords
from annotator.store.inspections import InspectionRecords
from annotator.store.item_languages import (
    CandidateSetsRow,
    ItemLanguageRecords,
    PreparedSaves,
    candidates_from_json,
    candidates_to_json,
)
from annotator.store.item_statuses import ItemStatusRecords
from annotator.store.items import ItemRecords
from annotator.store.job_files import JobFileRecords
from annotator.store.jobs import JobRecords
from annotator.store.languages import LanguageRecords
from annotator.store.login_throttle import LoginThrottleRecords
from annotator.store.meta import MetaRecords
from annotator.store.prepopulation import PrepopulationRecords, PrepopulationTodo
from annotator.store.provenance import ProvenanceRecords
from annotator.store.queues import QueueEntry, QueueRecords, ReviewState
from annotator.store.rows import not_staged, visible
from annotator.store.sessions import SessionRecords
from annotator.store.staging import StagingImport, StagingRecords
from annotator.store.suggestions import SuggestionRecords
from annotator.store.users import UserRecords

__all__ = [
    "CandidateSetsRow",
    "EvaluationRow",
    "PreparedSaves",
    "PrepopulationTodo",
    "QueueEntry",
    "Repository",
    "ReviewState",
    "StagingImport",
    "candidates_from_json",
    "candidates_to_json",
    "not_staged",
    "utc_now",
    "visible",
]


class Repository(
    MetaRecords,
    UserRecords,
    SessionRecords,
    LoginThrottleRecords,
    StagingRecords,  # before ItemRecords: staging inserts items, so it extends them
    ItemRecords,
    ItemLanguageRecords,
    PrepopulationRecords,
    QueueRecords,
    EvaluationRowRecords,
    HistoryRecords,
    InspectionRecords,
    CommentRecords,
    AuditRecords,
    LanguageRecords,
    JobRecords,
    JobFileRecords,
    DoubleCurationRecords,
    SuggestionRecords,
    ProvenanceRecords,
    DataVersionRecords,
    ItemStatusRecords,
):
    """Typed access to the tables; methods take the connection so callers own the transaction.

    A composition of the per-aggregate record classes (stateless, no method names shared): one object, so the
    composition root hands callers a single ``repo`` and their calls (``repo.list_items(conn)``) stay as they were.
    """

    def __init__(self, database: Database) -> None:
        self.db = database
