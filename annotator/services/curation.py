"""The curation service: every change to an item-language or a double-curation copy goes through here (browser,
sheet import, CLI) as one typed command (``annotator.domain.commands``) to ``CurationService.handle``.

It checks permissions where the change is made (not only in the page), refuses stale saves by comparing
the version the user saw, applies the pure command rules, and saves state + history in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from sqlalchemy import Connection

from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.domain import commands, limits, rules, undo, workflow
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
from annotator.domain.suggestions import Suggestion
from annotator.domain.unicode_rules import check_storable
from annotator.errors import ConflictError, PermissionDenied, UserError
from annotator.lexicon.base import LexiconError
from annotator.store.double_curation import Copy
from annotator.store.repository import Repository

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
        """The item-language, or a double-curation copy of it seen as one (no history, no thread), with every copy's
        status (what ``capabilities`` needs to say whether the copy may reopen). A translator reads only their own
        copy; a lead any."""
        if not address.is_copy:
            return self.view(address.item_id, address.lang)
        owner = address.copy_of or self.user.name
        if self.user.disabled or (owner != self.user.name and not self.user.is_lead):
            raise PermissionDenied("A translator sees only their own copy of a double-curated item.")
        _storable_ids(address.item_id, address.lang)
        with self.project.db.read() as conn:
            loaded = _load(self.project, conn, Address(address.item_id, address.lang, owner), self.user.name)
        return ItemView(loaded.item, loaded.current, [], [], tuple(c.status for c in loaded.copies))

    # --- the one write path -----------------------------------------------------------------------------

    def handle(self, address: Address, command: Command, expected_version: int | None = None) -> ItemLanguage:
        """Apply ``command`` to ``address`` (an item-language or the user's copy of it) as one saved change.

        One order for every kind and both addresses: the text no database can hold refused by name
        (``rules.check_storable``); the user's right to the language; the state loaded (the copy with its
        assignment); a stale ``expected_version`` (the version the page showed) refused with the current state;
        the command's rule (``rules.decide``); the limits; then what the decided ``Change`` says is written, in
        one transaction. A comment and a dismissal carry no version (they change no state)."""
        rules.check_storable(address, command)
        workflow.check_can_edit(self.user, address.lang)
        versioned = rules.is_versioned(command)
        if versioned and expected_version is None:
            raise ValueError(f"{type(command).__name__} needs the version the page showed")
        if address.is_copy and (address.copy_of or self.user.name) != self.user.name:
            raise PermissionDenied("Only its translator changes a double-curation copy; a lead adjudicates them.")
        wants_suggestions = rules.reads(command, commands.SUGGESTIONS) and not address.is_copy
        offered = self._offered(address.item_id, address.lang) if wants_suggestions else ()
        with self.project.db.write() as conn:
            loaded = _load(self.project, conn, address, self.user.name)
            current = loaded.current
            situation = rules.Situation(
                self.user, loaded.item, current, address, (), tuple(c.status for c in loaded.copies), offered,
                loaded.assignment, loaded.copies,
            )  # fmt: skip
            rules.admit(situation, command)
            if versioned and current.version != expected_version:
                raise ConflictError(_conflict_message(address, current), current=current)
            if rules.reads(command, commands.HISTORY) and not address.is_copy:
                situation = replace(situation, history=self.project.repo.history(conn, address.item_id, address.lang))
            change = rules.decide(situation, command)
            return self._write(conn, address, loaded, change)

    def _write(self, conn: Connection, address: Address, loaded: Loaded, change: rules.Change) -> ItemLanguage:
        """What ``change`` says is written; returns the state as saved (``loaded.current`` when nothing changed)."""
        current = loaded.current
        if change.personal is not None:  # the user's own view of the suggestions: no version, no history row
            _keep_personal(self.project.repo, conn, self.user, address, change.personal)
            return current
        limits.check_item_language(change.new, current)  # what the spreadsheet round trip could not carry
        comment = change.comment.strip()
        limits.check_note(comment, "comment")
        saved = current
        if address.is_copy:
            if change.new != current:
                new_copy = from_item_language(change.new, loaded.owner)
                saved = as_item_language(
                    self.project.repo.save_copy(conn, new_copy, current.version, utc_now()), loaded.main
                )
        elif change.records and (change.new != current or comment):
            detail = {**change.detail, undo.BEFORE_KEY: undo.before_of(current, change.new)}
            saved = self.project.repo.save_item_language(
                conn, change.new, current.version, self.user.name, change.action, detail
            )
        if comment and not address.is_copy:
            self.project.repo.add_comment(
                conn, Comment(address.item_id, address.lang, self.user.name, utc_now(), comment)
            )
        if change.closes_assignment:
            self.project.repo.set_adjudicated(conn, address.item_id, address.lang, self.user.name, utc_now())
        return saved

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
        return self.handle(Address(item_id, lang), commands.Discard(discard_reason(reason), note), expected_version)

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
        command = commands.Resolve(Status(to), comment, discard_reason(reason))
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


def discard_reason(reason: DiscardReason | str | None) -> Any:
    """A discard reason as given (the workflow names an unknown one in its refusal)."""
    if not reason:
        return None
    try:
        return DiscardReason(reason)
    except ValueError:
        return reason


class Loaded(NamedTuple):
    """What a command applies to, read in its transaction: the item, the state it changes (the item-language, or the
    copy seen as one), the item-language itself, the assignment ("" none, "open", "adjudicated"), every copy seen as
    an item-language, and whose copy it is ("" for the item-language)."""

    item: Item
    current: ItemLanguage
    main: ItemLanguage
    assignment: str
    copies: tuple[ItemLanguage, ...]
    owner: str


def _load(project: ProjectContext, conn: Connection, address: Address, user: str) -> Loaded:
    """The one loader of an item-language or a copy (``view_of`` and ``handle`` read through it)."""
    item_id, lang = address.item_id, address.lang
    item = project.repo.get_item(conn, item_id)
    main = project.repo.get_item_language(conn, item_id, lang)
    assignment = project.repo.get_assignment(conn, item_id, lang)
    owner = (address.copy_of or user) if address.is_copy else ""
    if item is None or main is None:
        if address.is_copy:
            raise UserError(f"{owner} has no copy of {item_id!r} in language {lang}.")
        raise UserError(f"No item {item_id!r} in language {lang}.")
    copies = project.repo.copies_of(conn, item_id, lang) if assignment is not None else []
    seen = tuple(as_item_language(c, main) for c in copies)
    current = main
    if address.is_copy:
        mine = next((c for c in seen if c.status_by == owner), None)
        if assignment is None or mine is None:
            raise UserError(f"{owner} has no copy of {item_id!r} in language {lang}.")
        current = mine
    return Loaded(item, current, main, assignment.state if assignment is not None else "", seen, owner)


def _conflict_message(address: Address, current: ItemLanguage) -> str:
    if address.is_copy:
        where = f"{address.item_id} [{address.lang}]"
        return f"Your copy of {where} was changed in another window; your change was not saved."
    who = current.updated_by or "someone"
    return (
        f"{address.item_id} [{address.lang}] was changed by {who} {human_time(current.updated_at)} while you were "
        "editing; your change was not saved. The current state is shown — redo your change if still needed."
    )


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
    repo: Repository, conn: Connection, user: User, address: Address, dismissal: rules.Dismissal
) -> None:
    """A dismissal (or its restoring) for ``user`` only, in the command's transaction."""
    if dismissal.restore:
        repo.remove_dismissal(conn, address.item_id, address.lang, user.name, dismissal.key)
        return
    repo.add_dismissal(
        conn, address.item_id, address.lang, user.name, dismissal.key, dismissal.text, utc_now(), dismissal.source,
        dismissal.relation,
    )  # fmt: skip
