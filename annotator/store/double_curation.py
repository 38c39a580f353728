"""Reading and writing double-curation assignments and translators' private copies (schema version 3).

Kept apart from ``item_languages`` (whose item-language rows it does not touch) so the two tables and their rules
live together; methods take the connection so the service composes them into one transaction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, and_, select

from annotator.domain.model import CandidateEntry, DiscardReason, Status
from annotator.errors import ConflictError
from annotator.store import schema
from annotator.store.item_languages import candidates_from_json, candidates_to_json, full_lists
from annotator.store.rows import not_staged, visible

OPEN, ADJUDICATED = "open", "adjudicated"


@dataclass(frozen=True)
class Assignment:
    item_id: str
    lang: str
    state: str
    assigned_by: str
    assigned_at: str
    adjudicated_by: str | None = None
    adjudicated_at: str | None = None


@dataclass(frozen=True)
class Copy:
    """One translator's private copy of an item-language's sets."""

    item_id: str
    lang: str
    annotator: str
    status: Status = Status.PENDING
    version: int = 0
    good: tuple[CandidateEntry, ...] = ()
    bad: tuple[CandidateEntry, ...] = ()
    discuss_note: str = ""
    discard_reason: DiscardReason | None = None
    discard_note: str = ""
    updated_at: str | None = None


def _assignment(row) -> Assignment:  # type: ignore[no-untyped-def]
    return Assignment(
        row.item_id, row.lang, row.state, row.assigned_by, row.assigned_at, row.adjudicated_by, row.adjudicated_at
    )


def _copy(row) -> Copy:  # type: ignore[no-untyped-def]
    return Copy(
        row.item_id,
        row.lang,
        row.annotator,
        Status(row.status),
        row.version,
        candidates_from_json(row.good),
        candidates_from_json(row.bad),
        row.discuss_note,
        DiscardReason(row.discard_reason) if row.discard_reason else None,
        row.discard_note,
        row.updated_at,
    )


A, C = schema.assignments, schema.copies


def _copy_values(copy: Copy) -> dict[str, object]:
    return {
        "item_id": copy.item_id,
        "lang": copy.lang,
        "status": copy.status.value,
        "version": copy.version,
        "good": candidates_to_json(copy.good),
        "bad": candidates_to_json(copy.bad),
        "discuss_note": copy.discuss_note,
        "discard_reason": copy.discard_reason.value if copy.discard_reason else None,
        "discard_note": copy.discard_note,
        "updated_at": copy.updated_at,
    }


@dataclass(frozen=True)
class CopySetsRow:
    """A copy for bulk reads (agreement, export): its candidate sets stay JSON text (exported form), decoded only as
    far as the caller needs (decoding every candidate into dataclasses dominated a 100,000-copy read)."""

    item_id: str
    lang: str
    annotator: str
    status: str
    good: str
    bad: str


class DoubleCurationRecords:
    """Assignments and translators' private copies; part of ``Repository``."""

    def add_assignments(self, conn: Connection, assignments: Sequence[Assignment], copies: Sequence[Copy]) -> None:
        if assignments:
            conn.execute(
                A.insert(),
                [
                    {
                        "item_id": a.item_id,
                        "lang": a.lang,
                        "state": a.state,
                        "assigned_by": a.assigned_by,
                        "assigned_at": a.assigned_at,
                    }
                    for a in assignments
                ],
            )
        if copies:
            conn.execute(C.insert(), [_copy_values(c) | {"annotator": c.annotator} for c in copies])

    def get_assignment(self, conn: Connection, item_id: str, lang: str) -> Assignment | None:
        row = conn.execute(select(A).where(and_(A.c.item_id == item_id, A.c.lang == lang))).first()
        return _assignment(row) if row else None

    def list_assignments(self, conn: Connection, lang: str | None = None) -> list[Assignment]:
        query = select(A).where(not_staged(A.c.item_id)).order_by(A.c.lang, A.c.item_id)
        if lang:
            query = query.where(A.c.lang == lang)
        return [_assignment(r) for r in conn.execute(query)]

    def assigned_keys(self, conn: Connection) -> set[tuple[str, str]]:
        return {(r.item_id, r.lang) for r in conn.execute(select(A.c.item_id, A.c.lang).where(not_staged(A.c.item_id)))}

    def open_keys(self, conn: Connection) -> set[tuple[str, str]]:
        """(item, lang) of the assignments not yet adjudicated: closed to ordinary curation."""
        query = select(A.c.item_id, A.c.lang).where(A.c.state == OPEN, not_staged(A.c.item_id))
        return {(r.item_id, r.lang) for r in conn.execute(query)}

    def set_adjudicated(self, conn: Connection, item_id: str, lang: str, by: str, at: str) -> None:
        conn.execute(
            A.update()
            .where(and_(A.c.item_id == item_id, A.c.lang == lang))
            .values(state=ADJUDICATED, adjudicated_by=by, adjudicated_at=at)
        )

    def copies_of(self, conn: Connection, item_id: str, lang: str) -> list[Copy]:
        query = select(C).where(and_(C.c.item_id == item_id, C.c.lang == lang)).order_by(C.c.annotator)
        return [_copy(r) for r in conn.execute(query)]

    def get_copy(self, conn: Connection, item_id: str, lang: str, annotator: str) -> Copy | None:
        row = conn.execute(
            select(C).where(and_(C.c.item_id == item_id, C.c.lang == lang, C.c.annotator == annotator))
        ).first()
        return _copy(row) if row else None

    def copies_for(self, conn: Connection, annotator: str, lang: str | None = None) -> list[Copy]:
        query = select(C).where(C.c.annotator == annotator, not_staged(C.c.item_id)).order_by(C.c.lang, C.c.item_id)
        if lang:
            query = query.where(C.c.lang == lang)
        return [_copy(r) for r in conn.execute(query)]

    def iter_copies(self, conn: Connection) -> Iterator[Copy]:
        """Every copy, ordered by item, language and translator (agreement, export)."""
        for row in conn.execute(
            select(C).where(not_staged(C.c.item_id)).order_by(C.c.item_id, C.c.lang, C.c.annotator)
        ):
            yield _copy(row)

    def iter_copy_sets(self, conn: Connection) -> Iterator[CopySetsRow]:
        query = (
            select(C.c.item_id, C.c.lang, C.c.annotator, C.c.status, full_lists(C.c.good), full_lists(C.c.bad))
            .where(not_staged(C.c.item_id))
            .order_by(C.c.item_id, C.c.lang, C.c.annotator)
        )
        for row in conn.execute(query):
            yield CopySetsRow(*row)

    def prepopulated_sets(self, conn: Connection, keys: set[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str]]:
        """(item, lang) → G0 and B0 JSON (exported form) of the given item-languages."""
        il = schema.item_languages
        langs = sorted({lang for _item, lang in keys})
        query = select(il.c.item_id, il.c.lang, full_lists(il.c.initial_good), full_lists(il.c.initial_bad)).where(
            il.c.lang.in_(langs), visible(il)
        )
        return {(i, lang): (g, b) for i, lang, g, b in conn.execute(query) if (i, lang) in keys}

    def save_copy(self, conn: Connection, new: Copy, expected_version: int, at: str) -> Copy:
        """Write ``new`` if nobody saved the copy since ``expected_version``; returns the saved copy."""
        saved = Copy(**{**new.__dict__, "version": expected_version + 1, "updated_at": at})
        values = _copy_values(saved)
        result = conn.execute(
            C.update()
            .where(
                and_(
                    C.c.item_id == new.item_id,
                    C.c.lang == new.lang,
                    C.c.annotator == new.annotator,
                    C.c.version == expected_version,
                )
            )
            .values(**values)
        )
        if result.rowcount != 1:
            raise ConflictError(f"Your copy of {new.item_id} [{new.lang}] was changed in another window; reload it.")
        return saved
