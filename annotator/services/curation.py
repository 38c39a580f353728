"""The curation service: every change to an item-language or a double-curation copy goes through here (browser,
sheet import, CLI) as one typed command (``annotator.domain.commands``) to ``CurationService.handle``.

It checks permissions where the change is made (not only in the page), refuses stale saves by comparing
the version the user saw, applies the pure command rules, and saves state + history in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.domain import commands, limits, undo, workflow
from annotator.domain.commands import Address, Command
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
from annotator.domain.suggestions import Suggestion, candidate_key, valid_candidate
from annotator.domain.unicode_rules import check_storable
from annotator.errors import ConflictError, PermissionDenied, UserError
from annotator.lexicon.base import LexiconError
from annotator.store import double_curation
from annotator.store import suggestions as suggestion_rows
from annotator.store.double_curation import Copy
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
    #: For a double-curation copy: every copy's status (None for the item-language itself).
    copy_statuses: tuple[Status, ...] | None = None


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

    def view_of(self, address: Address) -> ItemView:
        """The item-language, or the user's double-curation copy of it seen as one (no history, no thread), with
        every copy's status (what ``capabilities`` needs to say whether the copy may reopen)."""
        if not address.is_copy:
            return self.view(address.item_id, address.lang)
        owner = address.copy_of or self.user.name
        if self.user.disabled or (owner != self.user.name and not self.user.is_lead):
            raise PermissionDenied("A translator sees only their own copy of a double-curated item.")
        with self.project.db.read() as conn:
            item, main, copy, _assignment = _load_copy(self.project, conn, address.item_id, address.lang, owner)
            statuses = tuple(c.status for c in double_curation.copies_of(conn, address.item_id, address.lang))
        return ItemView(item, as_item_language(copy, main), [], [], statuses)

    # --- the one write path -----------------------------------------------------------------------------

    def handle(self, address: Address, command: Command, expected_version: int | None = None) -> ItemLanguage:
        """Apply ``command`` to ``address`` (an item-language or the user's copy of it) as one saved change.

        Checks the user may change the language, refuses a stale ``expected_version`` (the version the page showed)
        with the current state, applies the command's rule (``annotator.domain.commands``) and saves state, history
        and any comment in one transaction. A comment carries no version (it changes no state). Text no database
        can hold is refused by name first (``commands.check_storable``)."""
        commands.check_storable(address, command)
        workflow.check_can_edit(self.user, address.lang)
        unversioned = isinstance(command, commands.UNVERSIONED)
        personal = isinstance(command, commands.PERSONAL)
        if not unversioned and not personal and expected_version is None:
            raise ValueError(f"{type(command).__name__} needs the version the page showed")
        if address.is_copy:
            return self._handle_copy(address, command, expected_version or 0)
        item_id, lang = address.item_id, address.lang
        offered = self._offered(item_id, lang) if isinstance(command, commands.NEEDS_SUGGESTIONS) else ()
        with self.project.db.write() as conn:
            item = self.project.repo.get_item(conn, item_id)
            current = self.project.repo.get_item_language(conn, item_id, lang)
            if item is None or current is None:
                raise UserError(f"No item {item_id!r} in language {lang}.")
            if not unversioned and double_curation.is_open(conn, item_id, lang):  # issue 11
                raise workflow.WorkflowError(
                    f"{item_id} [{lang}] is assigned for double curation: its translators edit their own copies "
                    "(Double curation page) and a lead adjudicates them."
                )
            if not unversioned and not personal and current.version != expected_version:
                who = current.updated_by or "someone"
                raise ConflictError(
                    f"{item_id} [{lang}] was changed by {who} {human_time(current.updated_at)} while you were editing; "
                    "your change was not saved. The current state is shown — redo your change if still needed.",
                    current=current,
                )
            history = (
                self.project.repo.history(conn, item_id, lang) if isinstance(command, commands.NEEDS_HISTORY) else ()
            )
            situation = commands.Situation(self.user, item, current, address, history, suggestions=offered)
            change = commands.decide(situation, command)
            if personal:  # the user's own view of the suggestions: no version, no history row, nobody else's page
                _keep_personal(conn, self.user, item_id, lang, command, offered)
                return current
            new, comment = change.new, change.comment
            limits.check_item_language(new, current)  # what the spreadsheet round trip could not carry
            limits.check_note(comment, "comment")
            if unversioned:
                self.project.repo.add_comment(conn, Comment(item_id, lang, self.user.name, utc_now(), comment.strip()))
                return current
            if new == current and not comment.strip():
                return current  # nothing changed: no version bump, no history row
            detail = {**change.detail, undo.BEFORE_KEY: undo.before_of(current, new)}
            saved = self.project.repo.save_item_language(
                conn, new, current.version, self.user.name, change.action, detail
            )
            if comment.strip():
                self.project.repo.add_comment(conn, Comment(item_id, lang, self.user.name, utc_now(), comment.strip()))
            return saved

    def _handle_copy(self, address: Address, command: Command, expected_version: int) -> ItemLanguage:
        """A copy: only its owner, only while the assignment is open, version-checked; no history, no thread."""
        owner = address.copy_of or self.user.name
        if owner != self.user.name:
            raise PermissionDenied("Only its translator changes a double-curation copy; a lead adjudicates them.")
        item_id, lang = address.item_id, address.lang
        with self.project.db.write() as conn:
            item, main, copy, assignment = _load_copy(self.project, conn, item_id, lang, owner)
            if not assignment.is_open:
                raise workflow.WorkflowError(f"{item_id} [{lang}] has been adjudicated; the copies are closed.")
            current = as_item_language(copy, main)
            if copy.version != expected_version:
                raise ConflictError(
                    f"Your copy of {item_id} [{lang}] was changed in another window; your change was not saved.",
                    current=current,
                )
            statuses = tuple(c.status for c in double_curation.copies_of(conn, item_id, lang))
            situation = commands.Situation(self.user, item, current, address, (), statuses)
            new = commands.decide(situation, command).new
            limits.check_item_language(new, current)
            if new == current:
                return current
            saved = double_curation.save_copy(conn, from_item_language(new, owner), expected_version, utc_now())
            return as_item_language(saved, main)

    def _offered(self, item_id: str, lang: str) -> tuple[Suggestion, ...]:
        """What the user is offered now on the item-language (what an accepted or dismissed suggestion must be to
        count as one); none when the lexicon cannot say now (an accept is then an ordinary add)."""
        from annotator.services.suggestions.card import card_view

        try:
            return card_view(self.project, item_id, lang, self.user).suggestions
        except (UserError, LexiconError):
            return ()

    # --- the commands by name (the command line, the sheet import and scripts call these) ---------------

    def undo(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        """Undo this user's last change on the item-language, as a new change (action ``undo``) that restores the
        state before it; refused, changing nothing, if anyone changed it since (see ``annotator.domain.undo``)."""
        return self.handle(Address(item_id, lang), commands.Undo(), expected_version)

    def add_candidate(self, item_id: str, lang: str, side: Side | str, raw: str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.AddCandidate(Side(side), raw), expected_version)

    def add_candidates(
        self, item_id: str, lang: str, side: Side | str, lines: list[str], expected_version: int
    ) -> ItemLanguage:
        """A pasted list, one candidate per line, as one change: all or nothing, and every bad line named."""
        return self.handle(Address(item_id, lang), commands.AddCandidates(Side(side), tuple(lines)), expected_version)

    def remove_candidate(self, item_id: str, lang: str, key: str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.RemoveCandidate(key), expected_version)

    def move_candidate(self, item_id: str, lang: str, key: str, to: Side | str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.MoveCandidate(key, Side(to)), expected_version)

    def replace_candidates(
        self, item_id: str, lang: str, good: list[str], bad: list[str], expected_version: int, action: str = "edit"
    ) -> ItemLanguage:
        """Set G and B to exactly these candidate lines, keeping origin/provenance of ones already there."""
        command = commands.ReplaceCandidates(tuple(good), tuple(bad), action)
        return self.handle(Address(item_id, lang), command, expected_version)

    def mark_done(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.MarkDone(), expected_version)

    def flag_discuss(self, item_id: str, lang: str, note: str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.FlagDiscuss(note), expected_version)

    def update_discuss_note(self, item_id: str, lang: str, note: str, expected_version: int) -> ItemLanguage:
        """Replace the note of a DISCUSS item and post it to the thread, in one change: the stored note is what a
        sheet shows, so a re-export and a re-import see the new note (and the thread records it once). Only the
        translator who flagged the item or a lead may (``workflow.update_discuss_note``)."""
        return self.handle(Address(item_id, lang), commands.UpdateDiscussNote(note), expected_version)

    def discard(
        self, item_id: str, lang: str, reason: DiscardReason | str | None, note: str, expected_version: int
    ) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.Discard(_reason(reason), note), expected_version)

    def reopen(self, item_id: str, lang: str, expected_version: int) -> ItemLanguage:
        return self.handle(Address(item_id, lang), commands.Reopen(), expected_version)

    def resolve(
        self,
        item_id: str,
        lang: str,
        to: Status | str,
        comment: str,
        expected_version: int,
        reason: DiscardReason | str | None = None,
    ) -> ItemLanguage:
        command = commands.Resolve(Status(to), comment, _reason(reason))
        return self.handle(Address(item_id, lang), command, expected_version)

    def comment(self, item_id: str, lang: str, text: str) -> None:
        """Add to the item-language's discussion thread (no state change, so no version check)."""
        self.handle(Address(item_id, lang), commands.PostComment(text))


def as_item_language(copy: Copy, main: ItemLanguage) -> ItemLanguage:
    """The copy seen as an item-language, so the ordinary workflow rules apply to it unchanged."""
    return ItemLanguage(
        copy.item_id,
        copy.lang,
        status=copy.status,
        version=copy.version,
        good=copy.good,
        bad=copy.bad,
        initial_good=main.initial_good,
        initial_bad=main.initial_bad,
        prepopulated=main.prepopulated,
        discuss_note=copy.discuss_note,
        discard_reason=copy.discard_reason,
        discard_note=copy.discard_note,
        status_by=copy.annotator,
    )


def from_item_language(il: ItemLanguage, annotator: str) -> Copy:
    return Copy(
        il.item_id, il.lang, annotator, il.status, il.version, il.good, il.bad,
        il.discuss_note, il.discard_reason, il.discard_note,
    )  # fmt: skip


def _reason(reason: DiscardReason | str | None) -> Any:
    """A discard reason as given (the workflow names an unknown one in its refusal)."""
    if not reason:
        return None
    try:
        return DiscardReason(reason)
    except ValueError:
        return reason


def _load_copy(project: ProjectContext, conn: Connection, item_id: str, lang: str, annotator: str) -> Any:
    item = project.repo.get_item(conn, item_id)
    main = project.repo.get_item_language(conn, item_id, lang)
    copy = double_curation.get_copy(conn, item_id, lang, annotator)
    assignment = double_curation.get_assignment(conn, item_id, lang)
    if item is None or main is None or copy is None or assignment is None:
        raise UserError(f"{annotator} has no copy of {item_id!r} in language {lang}.")
    return item, main, copy, assignment


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


def _keep_personal(
    conn: Connection, user: User, item_id: str, lang: str, command: Command, offered: Sequence[Suggestion]
) -> None:
    """A dismissal (with the suggestion's source and relation, when it was one the user is offered: what the
    acceptance rates per kind count) or its restoring, for ``user`` only, in the command's transaction."""
    text = command.text if isinstance(command, (commands.DismissSuggestion, commands.RestoreSuggestion)) else ""
    shown = valid_candidate(text) or " ".join(text.split())
    key = candidate_key(shown)
    if isinstance(command, commands.RestoreSuggestion):
        suggestion_rows.undismiss(conn, item_id, lang, user.name, key)
        return
    found = next((s for s in offered if s.key == key), None)
    source, relation = (found.source, found.relation) if found is not None else ("", "")
    shown = found.text if found is not None else shown  # as it was offered
    suggestion_rows.dismiss(conn, item_id, lang, user.name, key, shown[:200], utc_now(), source, relation)
