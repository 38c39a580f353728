"""The curation service: every change to an item-language goes through here (browser, sheet import, CLI).

It checks permissions where the change is made (not only in the page), refuses stale saves by comparing
the version the user saw, applies the pure workflow rules, and saves state + history in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.domain import limits, undo, workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.edits import apply_candidate_sets
from annotator.domain.model import (
    Comment,
    DiscardReason,
    HistoryEntry,
    Item,
    ItemLanguage,
    Role,
    Side,
    Status,
    User,
)
from annotator.domain.unicode_rules import check_storable, check_storable_lines
from annotator.errors import ConflictError, UserError
from annotator.store import double_curation
from annotator.store.repository import utc_now

#: The implicit user of a project without accounts (single-user, local use): a lead for every language.
LOCAL_USER = User(name="local", role=Role.LEAD, languages=(), display_name="Local user (no accounts)")


@dataclass(frozen=True)
class ItemView:
    """Everything a page shows for one item-language, read in one transaction."""

    item: Item
    state: ItemLanguage
    history: list[HistoryEntry]
    comments: list[Comment]


class CurationService:
    """Acts for one user; construct one per request/session."""

    def __init__(self, project: ProjectContext, user: User) -> None:
        self.project = project
        self.user = user

    # --- reading ----------------------------------------------------------------------------------------

    def view(self, item_id: str, lang: str) -> ItemView:
        _storable_ids(item_id, lang)
        with self.project.db.read() as conn:
            item = self.project.repo.get_item(conn, item_id)
            state = self.project.repo.get_item_language(conn, item_id, lang)
            if item is None or state is None:
                raise UserError(f"No item {item_id!r} in language {lang}.")
            return ItemView(
                item,
                state,
                self.project.repo.history(conn, item_id, lang),
                self.project.repo.comments(conn, item_id, lang),
            )

    # --- the one write path -----------------------------------------------------------------------------

    def _change(
        self,
        item_id: str,
        lang: str,
        expected_version: int,
        action: str,
        detail: dict[str, Any],
        apply: Callable[[Item, ItemLanguage], ItemLanguage],
        comment: str = "",
    ) -> ItemLanguage:
        return self._write(item_id, lang, expected_version, action, lambda _c, i, il: (apply(i, il), detail), comment)

    def _write(
        self,
        item_id: str,
        lang: str,
        expected_version: int,
        action: str,
        decide: Callable[[Connection, Item, ItemLanguage], tuple[ItemLanguage, dict[str, Any]]],
        comment: str = "",
    ) -> ItemLanguage:
        """``decide(conn, item, current)`` gives the new state and the history detail, inside the transaction;
        the detail gets the changed fields as they were (``undo.BEFORE_KEY``), so every change can be undone."""
        _storable_ids(item_id, lang)
        check_storable("comment", comment)
        workflow.check_can_edit(self.user, lang)
        with self.project.db.write() as conn:
            item = self.project.repo.get_item(conn, item_id)
            current = self.project.repo.get_item_language(conn, item_id, lang)
            if item is None or current is None:
                raise UserError(f"No item {item_id!r} in language {lang}.")
            if double_curation.is_open(conn, item_id, lang):  # issue 11: the copies, then a lead's adjudication
                raise workflow.WorkflowError(
                    f"{item_id} [{lang}] is assigned for double curation: its translators edit their own copies "
                    "(Double curation page) and a lead adjudicates them."
                )
            if current.version != expected_version:
                who = current.updated_by or "someone"
                raise ConflictError(
                    f"{item_id} [{lang}] was changed by {who} {human_time(current.updated_at)} while you were editing; "
                    "your change was not saved. The current state is shown — redo your change if still needed.",
                    current=current,
                )
            new, detail = decide(conn, item, current)
            limits.check_item_language(new, current)  # what the spreadsheet round trip could not carry
            limits.check_note(comment, "comment")
            if new == current and not comment.strip():
                return current  # nothing changed: no version bump, no history row
            detail = {**detail, undo.BEFORE_KEY: undo.before_of(current, new)}
            saved = self.project.repo.save_item_language(conn, new, expected_version, self.user.name, action, detail)
            if comment.strip():
                self.project.repo.add_comment(conn, Comment(item_id, lang, self.user.name, utc_now(), comment.strip()))
            return saved

    def undo(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        """Undo this user's last change on the item-language, as a new change (action ``undo``) that restores the
        state before it; refused, changing nothing, if anyone changed it since (see ``annotator.domain.undo``)."""

        def decide(conn: Connection, _item: Item, current: ItemLanguage) -> tuple[ItemLanguage, dict[str, Any]]:
            plan = undo.plan_undo(self.user, current, self.project.repo.history(conn, item_id, lang))
            return plan.restored, plan.detail

        return self._write(item_id, lang, expected_version, undo.UNDO_ACTION, decide)

    # --- candidate edits --------------------------------------------------------------------------------

    def add_candidate(self, item_id: str, lang: str, side: Side | str, raw: str, expected_version: int) -> ItemLanguage:
        side = Side(side)
        check_storable("candidate", raw)

        def apply(item: Item, il: ItemLanguage) -> ItemLanguage:
            candidate = parse_candidate(raw, item.target.pos)
            return _with_provenance(workflow.add_candidate(self.user, il, side, candidate), side)

        return self._change(item_id, lang, expected_version, "add", {"side": side.value, "candidate": raw}, apply)

    def add_candidates(
        self, item_id: str, lang: str, side: Side | str, lines: list[str], expected_version: int
    ) -> ItemLanguage:
        """A pasted list, one candidate per line, as one change: all or nothing, and every bad line named."""
        side = Side(side)
        entries = [(number, line.strip()) for number, line in enumerate(lines, 1) if line.strip()]
        for number, line in entries:
            check_storable(f"candidate on line {number}", line)
        if not entries:
            raise UserError("Nothing to add: write one candidate per line.")

        def apply(item: Item, il: ItemLanguage) -> ItemLanguage:
            problems, new = [], il
            for number, raw in entries:
                try:
                    new = _with_provenance(
                        workflow.add_candidate(self.user, new, side, parse_candidate(raw, item.target.pos)), side
                    )
                except CandidateError as error:
                    rule = f" (rule: {error.rule})" if self.user.is_lead else ""  # rule ids mean something to leads
                    problems.append(f"line {number} {raw!r}: {error.message}{rule}")
                except UserError as error:
                    problems.append(f"line {number} {raw!r}: {error}")
            if problems:
                raise UserError(f"Nothing added; {len(problems)} bad line(s): " + "; ".join(problems))
            return new

        detail = {"side": side.value, "candidates": [raw for _n, raw in entries]}
        return self._change(item_id, lang, expected_version, "add", detail, apply)

    def remove_candidate(self, item_id: str, lang: str, key: str, expected_version: int) -> ItemLanguage:
        check_storable("candidate", key)
        return self._change(
            item_id,
            lang,
            expected_version,
            "remove",
            {"candidate": key},
            lambda _item, il: workflow.remove_candidate(self.user, il, key),
        )

    def move_candidate(self, item_id: str, lang: str, key: str, to: Side | str, expected_version: int) -> ItemLanguage:
        to = Side(to)
        check_storable("candidate", key)
        return self._change(
            item_id,
            lang,
            expected_version,
            "move",
            {"candidate": key, "to": to.value},
            lambda _item, il: workflow.move_candidate(self.user, il, key, to),
        )

    def replace_candidates(
        self, item_id: str, lang: str, good: list[str], bad: list[str], expected_version: int, action: str = "edit"
    ) -> ItemLanguage:
        """Set G and B to exactly these candidate lines, keeping origin/provenance of ones already there."""

        check_storable_lines("GOOD candidate", good)
        check_storable_lines("BAD candidate", bad)

        def apply(item: Item, il: ItemLanguage) -> ItemLanguage:
            return apply_candidate_sets(self.user, item, il, good, bad)

        return self._change(item_id, lang, expected_version, action, {"good": good, "bad": bad}, apply)

    # --- status changes ---------------------------------------------------------------------------------

    def mark_done(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        return self._change(
            item_id, lang, expected_version, "done", {}, lambda _i, il: workflow.mark_done(self.user, il)
        )

    def flag_discuss(self, item_id: str, lang: str, note: str, expected_version: int) -> ItemLanguage:
        check_storable("DISCUSS note", note)
        return self._change(
            item_id,
            lang,
            expected_version,
            "discuss",
            {"note": note},
            lambda _i, il: workflow.flag_discuss(self.user, il, note),
            comment=note,
        )

    def update_discuss_note(self, item_id: str, lang: str, note: str, expected_version: int) -> ItemLanguage:
        """Replace the note of a DISCUSS item and post it to the thread, in one change: the stored note is what a
        sheet shows, so a re-export and a re-import see the new note (and the thread records it once). Only the
        translator who flagged the item or a lead may (``workflow.update_discuss_note``)."""
        check_storable("DISCUSS note", note)
        return self._change(
            item_id,
            lang,
            expected_version,
            "discuss_note",
            {"note": note},
            lambda _i, il: workflow.update_discuss_note(self.user, il, note),
            comment=note,
        )

    def discard(
        self, item_id: str, lang: str, reason: DiscardReason | str | None, note: str, expected_version: int
    ) -> ItemLanguage:
        check_storable("discard note", note)
        return self._change(
            item_id,
            lang,
            expected_version,
            "discard",
            {"reason": str(reason or ""), "note": note},
            lambda _i, il: workflow.discard(self.user, il, reason, note),
        )

    def reopen(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        return self._change(
            item_id, lang, expected_version, "reopen", {}, lambda _i, il: workflow.reopen(self.user, il)
        )

    def resolve(
        self,
        item_id: str,
        lang: str,
        to: Status | str,
        comment: str,
        expected_version: int,
        reason: DiscardReason | str | None = None,
    ) -> ItemLanguage:
        to = Status(to)
        check_storable("comment", comment)
        return self._change(
            item_id,
            lang,
            expected_version,
            "resolve",
            {"to": to.value, "comment": comment},
            lambda _i, il: workflow.resolve_discussion(self.user, il, to, comment, reason),
            comment=comment,
        )

    def comment(self, item_id: str, lang: str, text: str) -> None:
        """Add to the item-language's discussion thread (no state change, so no version check)."""
        _storable_ids(item_id, lang)
        check_storable("comment", text)
        workflow.check_can_edit(self.user, lang)
        if not text.strip():
            raise UserError("A comment cannot be empty.")
        limits.check_note(text, "comment")
        with self.project.db.write() as conn:
            if self.project.repo.get_item_language(conn, item_id, lang) is None:
                raise UserError(f"No item {item_id!r} in language {lang}.")
            self.project.repo.add_comment(conn, Comment(item_id, lang, self.user.name, utc_now(), text.strip()))


def _storable_ids(item_id: str, lang: str) -> None:
    """An item id or language no database can hold (a forged event's) is refused by name before any query: SQLite's
    driver cannot encode a lone surrogate and PostgreSQL refuses a NUL, each with its own error otherwise."""
    check_storable("item id", item_id)
    check_storable("language", lang)


def human_time(iso: str | None) -> str:
    """A stored UTC time stamp as people read it in a message: "on 2026-11-25 at 11:31 UTC" (the raw ISO text, with its
    microseconds and offset, is for machines)."""
    if not iso or len(iso) < 16 or iso[10] != "T":
        return "just now" if not iso else f"at {iso}"
    return f"on {iso[:10]} at {iso[11:16]} UTC"


def _with_provenance(il: ItemLanguage, side: Side) -> ItemLanguage:
    """A candidate added back after its removal gets its pre-populated origin and synsets back (it is the lexicon's
    suggestion, not a translator's addition); ``workflow.add_candidate`` appends the new entry last."""
    added = il.side(side)[-1]
    original = next((e for e in (*il.initial_good, *il.initial_bad) if e.key == added.key), None)
    if original is None or (original.origin is added.origin and original.synsets == added.synsets):
        return il
    kept = (*il.side(side)[:-1], replace(added, origin=original.origin, synsets=original.synsets))
    return replace(il, good=kept) if side is Side.GOOD else replace(il, bad=kept)
