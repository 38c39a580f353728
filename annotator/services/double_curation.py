"""Double curation: assignment, private copies, adjudication and the agreement between translators.

A lead gives an item-language to two or more translators of its language. Each edits a private copy of the
pre-populated sets with the usual rules (the same ``workflow`` functions as the curation service, applied to the
copy seen as an item-language); a translator never reads another's copy. While the assignment is open the
item-language itself is closed to ordinary curation (``rules.decide`` refuses it). A copy is read and changed
through ``CurationService`` like the item-language itself, with an ``Address`` naming the copy. When every copy is
finished (``workflow.COPY_FINISHED``) the copies lock, and a lead adjudicates (the commands ``Adjudicate`` and
``AdjudicateDiscard``, through the same ``handle``): the chosen sets become the item-language's curated sets, with
a history row naming where each candidate came from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.data_export.copy_records import agreement_records_in
from annotator.domain import commands, workflow
from annotator.domain.agreement import AgreementReport, CopyRecord, agreement_report
from annotator.domain.commands import Address
from annotator.domain.model import DiscardReason, Item, ItemLanguage, Status, User
from annotator.domain.rules import ASSIGNMENT_OPEN
from annotator.domain.unicode_rules import check_storable_lines
from annotator.errors import UserError
from annotator.services.curation import CurationService, as_item_language, discard_reason
from annotator.store.double_curation import Assignment, Copy


@dataclass(frozen=True)
class ComparisonRow:
    """One candidate across the copies: where each translator put it (``good``, ``bad`` or ``none``)."""

    key: str
    text: str
    prepopulated: str | None  # "good" / "bad" in G0 / B0, None when a translator added it
    values: dict[str, str]

    @property
    def differs(self) -> bool:
        return len(set(self.values.values())) > 1


@dataclass(frozen=True)
class Comparison:
    """The copies of one item-language side by side, for the lead's adjudication."""

    item: Item
    state: ItemLanguage
    assignment: Assignment
    copies: list[Copy]
    rows: list[ComparisonRow]

    @property
    def all_finished(self) -> bool:
        return all(c.status in workflow.COPY_FINISHED for c in self.copies)


@dataclass(frozen=True)
class AssignmentSummary:
    """An assignment as the lead's overview shows it (who, how far), without candidate sets."""

    item_id: str
    lang: str
    state: str
    annotators: dict[str, Status]

    @property
    def all_finished(self) -> bool:
        return all(s in workflow.COPY_FINISHED for s in self.annotators.values())


def compare(item: Item, state: ItemLanguage, assignment: Assignment, copies: list[Copy]) -> Comparison:
    rows: dict[str, ComparisonRow] = {}
    pre = {e.key: ("good", e) for e in state.initial_good} | {e.key: ("bad", e) for e in state.initial_bad}
    for key, (side, entry) in pre.items():
        rows[key] = ComparisonRow(key, entry.format(), side, {})
    for copy in copies:
        for entry in (*copy.good, *copy.bad):
            rows.setdefault(entry.key, ComparisonRow(entry.key, entry.format(), None, {}))
    for row in rows.values():
        for copy in copies:
            found = as_item_language(copy, state).find(row.key)
            row.values[copy.annotator] = found[0].value if found else "none"
    ordered = sorted(rows.values(), key=lambda r: (not r.differs, r.prepopulated is None, r.key))
    return Comparison(item, state, assignment, copies, ordered)


class DoubleCurationService:
    """Acts for one user; every method checks what that user may see or change."""

    def __init__(self, project: ProjectContext, user: User) -> None:
        self.project = project
        self.user = user

    # --- assignment (leads) -----------------------------------------------------------------------------

    def assign(
        self,
        lang: str,
        annotators: Sequence[str],
        item_ids: Sequence[str] | None = None,
        share: float | None = None,
        seed: int = 0,
    ) -> list[str]:
        """Give item-languages of ``lang`` to ``annotators``: the listed items, or a random ``share`` (0–1] of
        the pending, unassigned, non-excluded ones (``share=1`` for all). Returns the item ids assigned."""
        workflow.check_lead(self.user, "assign items for double curation")
        lang = lang.upper()
        names = sorted(set(annotators))
        if len(names) < 2:
            raise UserError("Double curation needs at least two different translators.")
        if (item_ids is None) == (share is None):
            raise UserError("Give either a list of items or a share of the items, not both.")
        if share is not None and not 0 < share <= 1:
            raise UserError(f"The share must be above 0 and at most 1 (100%), not {share}.")
        check_storable_lines("item id", item_ids or ())
        with self.project.db.write() as conn:
            problems = []
            for name in names:
                user = self.project.repo.get_user(conn, name)
                if user is None or user.disabled or not user.may_edit(lang):
                    problems.append(f"{name!r} is not an active account that may curate {lang}")
            assigned = self.project.repo.assigned_keys(conn)
            eligible: dict[str, ItemLanguage] = {}
            excluded = {i.id for i in self.project.repo.list_items(conn) if i.excluded}
            for il in self.project.repo.iter_item_languages(conn, lang):
                if il.status is Status.PENDING and (il.item_id, lang) not in assigned and il.item_id not in excluded:
                    eligible[il.item_id] = il
            if item_ids is not None:
                chosen = list(dict.fromkeys(item_ids))
                for item_id in chosen:
                    if item_id not in eligible:
                        problems.append(
                            f"{item_id} [{lang}] cannot be assigned: it must exist, be pending (untouched), "
                            "not excluded and not already assigned"
                        )
                if not chosen:
                    problems.append("the list of items is empty")
            else:
                if share is None:  # refused above (items or a share); this keeps the type checker informed
                    raise UserError("Give either a list of items or a share of the items, not both.")
                pool = sorted(eligible)
                chosen = sorted(random.Random(seed).sample(pool, round(share * len(pool))))
                if not chosen:
                    problems.append(f"no pending, unassigned {lang} items to assign")
            if problems:
                raise UserError("Nothing was assigned: " + "; ".join(problems) + ".")
            at = utc_now()
            self.project.repo.add_assignments(
                conn,
                [Assignment(item_id, lang, ASSIGNMENT_OPEN, self.user.name, at) for item_id in chosen],
                [
                    Copy(item_id, lang, name, Status.PENDING, 0, eligible[item_id].good, eligible[item_id].bad)
                    for item_id in chosen
                    for name in names
                ],
            )
            self.project.repo.add_audit(
                conn, self.user.name, "assign", {"lang": lang, "annotators": names, "items": chosen}
            )
        return chosen

    def eligible_translators(self, lang: str) -> list[str]:
        """The active translators of ``lang`` a lead may assign (leads curate everything and are not offered)."""
        workflow.check_lead(self.user, "assign items for double curation")
        with self.project.db.read() as conn:
            users = self.project.repo.list_users(conn)
        return [u.name for u in users if not u.is_lead and u.may_edit(lang)]

    def assignments(self, lang: str | None = None) -> list[AssignmentSummary]:
        """Every assignment with its translators' progress (leads), or only the user's own (translators)."""
        with self.project.db.read() as conn:
            found = self.project.repo.list_assignments(conn, lang)
            copies: dict[tuple[str, str], dict[str, Status]] = {}
            for copy in self.project.repo.iter_copies(conn):
                copies.setdefault((copy.item_id, copy.lang), {})[copy.annotator] = copy.status
        summaries = [AssignmentSummary(a.item_id, a.lang, a.state, copies.get((a.item_id, a.lang), {})) for a in found]
        if self.user.is_lead and not self.user.disabled:
            return summaries
        return [
            AssignmentSummary(s.item_id, s.lang, s.state, {self.user.name: s.annotators[self.user.name]})
            for s in summaries
            if self.user.name in s.annotators
        ]

    # --- the translator's copy --------------------------------------------------------------------------

    def my_copies(self, lang: str | None = None) -> list[Copy]:
        """The user's own copies (their double-curation queue), in item order."""
        with self.project.db.read() as conn:
            return self.project.repo.copies_for(conn, self.user.name, lang)

    def copy(self, item_id: str, lang: str, annotator: str | None = None) -> tuple[Item, ItemLanguage]:
        """A copy as an item-language (the item card and editor show it). Translators read only their own.
        Read and changed through ``CurationService`` with an ``Address`` naming the copy: one loader, one write path."""
        view = CurationService(self.project, self.user).view_of(Address(item_id, lang, annotator or self.user.name))
        return view.item, view.state

    # --- adjudication (leads) ---------------------------------------------------------------------------

    def comparison(self, item_id: str, lang: str) -> Comparison:
        workflow.check_lead(self.user, "compare translators' copies")
        with self.project.db.read() as conn:
            item = self.project.repo.get_item(conn, item_id)
            state = self.project.repo.get_item_language(conn, item_id, lang)
            assignment = self.project.repo.get_assignment(conn, item_id, lang)
            if item is None or state is None or assignment is None:
                raise UserError(f"{item_id} [{lang}] is not assigned for double curation.")
            copies = self.project.repo.copies_of(conn, item_id, lang)
        return compare(item, state, assignment, copies)

    def adjudicate(
        self, item_id: str, lang: str, good: list[str], bad: list[str], expected_version: int
    ) -> ItemLanguage:
        """Make ``good``/``bad`` (taken from either copy or edited) the item-language's curated sets, done: the command
        ``Adjudicate`` through ``CurationService.handle``."""
        command = commands.Adjudicate(tuple(good), tuple(bad))
        return CurationService(self.project, self.user).handle(Address(item_id, lang), command, expected_version)

    def adjudicate_discard(
        self, item_id: str, lang: str, reason: DiscardReason | str | None, note: str, expected_version: int
    ) -> ItemLanguage:
        """Discard the item-language instead: the command ``AdjudicateDiscard`` through ``CurationService.handle``."""
        command = commands.AdjudicateDiscard(discard_reason(reason), note)
        return CurationService(self.project, self.user).handle(Address(item_id, lang), command, expected_version)

    # --- agreement (leads) ------------------------------------------------------------------------------

    def agreement(self, languages: Sequence[str] = ()) -> AgreementReport:
        workflow.check_lead(self.user, "see the agreement between translators")
        return load_agreement(self.project, languages)


def agreement_records(project: ProjectContext) -> list[CopyRecord]:
    """Every copy as a ``CopyRecord`` (read in one transaction)."""
    with project.db.read() as conn:
        return agreement_records_in(project.repo, conn, list(project.repo.iter_copy_sets(conn)))


def load_agreement(project: ProjectContext, languages: Sequence[str] = ()) -> AgreementReport:
    """The agreement report of the project (the command line and the export call it without a user)."""
    return agreement_report(agreement_records(project), languages)
