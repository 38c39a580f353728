"""The work area of Curate, Review and Double curation: what the element shows, and its events as commands.

One element (``annotator.app.curate_area``) shows an item-language — or a translator's double-curation copy — with
its card, lists, actions, thread and history. ``render`` draws it for a ``Place`` (which state it edits, the page's
navigation, the page's hooks); every event the element sends becomes one typed command
(``annotator.domain.commands``) run by the app's one action runner (``annotator.app.actions.run``) with the version
the element was drawn for. What a user may do is asked of the domain (``capabilities``), never restated here.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from annotator.app import actions, area_session, components, curate_area, faults, page_run, project_cache, session
from annotator.app.area_data import CardReads, Dismissed, Hooks, Left, Place, area_data
from annotator.app.area_session import (
    ACK_KEY,
    CHECK_KEY,
    DISMISSED_KEY,
    EVAL_KEY,
    FEEDBACK_KEY,
    LEFT_KEY,
    SHOWN_KEY,
    Shown,
    just_dismissed,
    left_behind,
    shown,
)
from annotator.app.curate_area.protocol import (
    AcceptEvent,
    AddEvent,
    AddManyEvent,
    AdvanceEvent,
    AreaEvent,
    CheckEvent,
    CommentEvent,
    DiscardEvent,
    DiscussEvent,
    DismissEvent,
    DoneEvent,
    EventRefused,
    MoveEvent,
    NextEvent,
    PreviousEvent,
    RemoveEvent,
    ReopenEvent,
    UndoEvent,
)
from annotator.domain import commands, hints, undo
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.commands import Address, Command
from annotator.domain.model import CandidateEntry, ItemLanguage, Side, User
from annotator.errors import DatabaseUnavailableError, UserError
from annotator.lexicon.base import LexiconError
from annotator.services import wordnet_hints
from annotator.services.curation import ItemView
from annotator.services.suggestions import card as suggestion_service
from annotator.services.suggestions.mt import miss_lines

__all__ = ["EVAL_KEY", "HANDLERS", "Hooks", "Place", "render", "save"]  # pages use work_area.Hooks / Place / EVAL_KEY
#: Where a refused event is logged (what the browser sent, and which rule it broke).
LOGGER = logging.getLogger("annotator.app")


def render(view: ItemView, user: User, place: Place) -> None:
    """Draw the element for ``view`` at ``place``; its events come back through ``on_event``."""
    st.session_state[SHOWN_KEY] = Shown(place, view.state.version, view.state.status, view)
    data = area_data(view, user, place, area_session.remembered(place), card_reads(view, user, place))
    curate_area.render(data, on_event)


def card_reads(view: ItemView, user: User, place: Place) -> CardReads:
    """The card's ranked suggestions and MISS lines, for an item-language (a double-curation copy is curated on its
    own: none shown there). A lexicon that cannot answer now, or an evaluation file gone or damaged, leaves the card
    without them."""
    if place.address.is_copy:
        return CardReads()
    project = project_cache.get_project()
    try:
        found = suggestion_service.shown_card(project, view.item, view.state, user)  # as the view read it
    except (UserError, LexiconError):
        return CardReads()
    try:
        lines = miss_lines(project, found.evaluation, view.item.id, view.state.lang)
    except (OSError, ValueError):
        lines = []
    return CardReads(found, tuple(lines))


# --- what the element sends: one command each ---------------------------------------------------------------------


def say(kind: str, text: str, where: str, focus: str | None = None, **extra: Any) -> None:
    """The feedback of one event, shown by the element where the eyes are (``where``), then focus ``focus``."""
    said = curate_area.text(text)  # it quotes what people typed: invisible characters made visible
    st.session_state[FEEDBACK_KEY] = {
        "id": f"{time.time_ns()}", "kind": kind, "text": said, "where": where, "focus": focus or where, **extra,
    }  # fmt: skip


def save(
    here: Shown,
    event: AreaEvent,
    command: Command,
    success: str | Callable[[ItemLanguage], str],
    where: str,
    focus: str | None = None,
    after: Callable[[ItemLanguage], None] | None = None,
    **extra: Any,
) -> ItemLanguage | None:
    """Run one command through the one action runner; say what happened where the user looks. A refusal keeps
    what they typed (the element clears a box only on success). Public: a handler in ``HANDLERS`` is a call of this,
    so a new kind of change the element sends needs no page's code (``tests/app/test_command_model_pages.py``)."""
    was = here.status if here.version == event.version else None
    outcome = actions.run(here.place.address, command, event.version, was)
    if outcome.saved is None:
        say("error", outcome.error, where, where if focus == "cursor" and where in ("good", "bad") else focus)
        if outcome.conflict:
            here.place.hooks.changed(ItemLanguage(event.item, event.lang))
        return None
    saved = outcome.saved
    say("success", success(saved) if callable(success) else success, where, focus, **extra)
    if after is not None:
        after(saved)
    return saved


def _left_behind(here: Shown, event: AreaEvent, action: str, focus: str = "area") -> Callable[[ItemLanguage], None]:
    """After Done / DISCUSS / Discard: note the item (``u`` on the next item undoes there, whether "Next item after
    Done" moved on or the user did with ``n`` / ``p``), then advance. The focus lands where the next key acts: the
    work area itself (``u``, ``n`` act), or after Done on a new item its list cursor (``focus``)."""

    def after(saved: ItemLanguage) -> None:
        here.place.hooks.left(saved)
        moved = here.place.hooks.current() not in (None, event.item)
        st.session_state[LEFT_KEY] = Left(event.item, saved.version, event.lang, action)
        feedback = st.session_state.get(FEEDBACK_KEY)
        if feedback:
            feedback["where"], feedback["focus"] = "card", (focus if moved else "area")

    return after


def _on_add(here: Shown, user: User, event: AddEvent | AddManyEvent) -> None:
    to = event.side
    name = to.value
    side = components.SIDE_NAME[to]
    if not event.text.strip():
        say("error", f"Type a candidate to add to {side}.", name)
        return
    lines = event.text.splitlines()
    if isinstance(event, AddManyEvent):
        count = sum(1 for line in lines if line.strip())
        saved = save(
            here, event, commands.AddCandidates(to, tuple(lines)), f"Added {count} candidates to {side}.", name,
            "cursor", clear={"field": f"bulk_{name}", "text": event.text},
        )  # fmt: skip
    else:  # saved: the cursor on the row just added (g adds another, d is Done); refused: the box, to fix the text
        saved = save(
            here, event, commands.AddCandidate(to, event.text), lambda s: f"Added {s.side(to)[-1].format()} to {side}.",
            name, "cursor", clear={"field": name, "text": event.text},
        )  # fmt: skip
    if saved is not None:
        st.session_state.pop(CHECK_KEY, None)


def _on_row(here: Shown, user: User, event: RemoveEvent | MoveEvent) -> None:
    """Move or Remove the row the element names; the message names the candidate as the element showed it."""
    side = event.side  # the list the row was in, as the element drew it
    name = event.text or event.key
    where = side.value if side is not None else "card"
    if isinstance(event, MoveEvent):
        to = (Side.BAD if side is Side.GOOD else Side.GOOD) if side is not None else None
        save(
            here, event, commands.MoveCandidate(event.key, to),
            lambda s: f"Moved {name} to {components.SIDE_NAME[(s.find(event.key) or (Side.GOOD, None))[0]]}.",
            where, "cursor",
        )  # fmt: skip
    else:
        from_side = components.SIDE_NAME[side] if side is not None else "the lists"
        save(here, event, commands.RemoveCandidate(event.key), f"Removed {name} from {from_side}.", where, "cursor")


def _on_done(here: Shown, user: User, event: DoneEvent) -> None:
    save(
        here, event, commands.MarkDone(), f"Marked {event.item} done. Undo (u) takes it back.", "card", "first",
        after=_left_behind(here, event, "Done", "first"),
    )  # fmt: skip


def _on_discuss(here: Shown, user: User, event: DiscussEvent) -> None:
    if not event.text.strip():  # the service refuses it too; saying so here avoids a pointless round trip
        say("error", "DISCUSS needs a note saying what a lead should look at.", "discuss")
        return
    save(
        here, event, commands.FlagDiscuss(event.text), f"Flagged {event.item} DISCUSS for a lead.", "card", "area",
        after=_left_behind(here, event, "DISCUSS flag"), close="discuss", scope=here.place.prefix,
    )  # fmt: skip


def _on_discard(here: Shown, user: User, event: DiscardEvent) -> None:
    reason = event.reason or None
    note = f" — {event.text.strip()}" if event.text.strip() else ""
    save(
        here, event, commands.Discard(reason, event.text),
        f"Discarded {event.item}: {components.REASON_NAME[reason] if reason else ''}{note}. Undo (u) takes it back.",
        "card", "area", after=_left_behind(here, event, "Discard"), close="discard", scope=here.place.prefix,
    )  # fmt: skip


def _on_reopen(here: Shown, user: User, event: ReopenEvent) -> None:
    save(
        here, event, commands.Reopen(), f"Reopened {event.item}: edit it, then Done.", "card", "area",
        after=here.place.hooks.changed,
    )  # fmt: skip


def _on_undo(here: Shown, user: User, event: UndoEvent) -> None:
    dismissed = just_dismissed(event.item, event.lang)
    st.session_state.pop(DISMISSED_KEY, None)
    if dismissed is not None:  # u right after a dismissal: the suggestion comes back (nothing else is touched)
        save(
            here, event, commands.RestoreSuggestion(dismissed.text),
            f"Undone: dismissing the suggestion {dismissed.text}; it is suggested to you again.", "suggestions", "area",
        )  # fmt: skip
        return
    left = left_behind()
    st.session_state.pop(LEFT_KEY, None)
    item, lang, version = event.item, event.lang, event.version
    if left and left.lang == event.lang:  # u right after leaving an item by Done / DISCUSS / Discard: undo there
        item, version = left.item_id, left.version
    try:
        view = session.service(user).view(item, lang)
        message = undo.outcome(undo.plan_undo(user, view.state, view.history), view.history)
    except UserError as error:
        say("error", str(error), "card", "area")
        return
    place = Place(Address(item, lang), here.place.prefix, here.place.nav, here.place.hooks)
    where = Shown(place, version, view.state.status, view)

    def back(saved: ItemLanguage) -> None:
        here.place.hooks.changed(saved)
        if item != event.item:  # show the item the undo changed
            here.place.hooks.show(item)

    there = dataclasses.replace(event, item=item, version=version)
    save(where, there, commands.Undo(), message, "card", "area", after=back)


def _on_step(here: Shown, _user: User, event: NextEvent | PreviousEvent) -> None:
    left = left_behind()
    if left is None or (left.item_id, left.lang) != (event.item, event.lang):
        st.session_state[LEFT_KEY] = None  # kept only when this step leaves the item just marked (u undoes there)
    here.place.hooks.step(+1 if isinstance(event, NextEvent) else -1)
    say("info", "", "card", "first")


def _on_comment(here: Shown, user: User, event: CommentEvent) -> None:
    save(here, event, commands.PostComment(event.text), "Comment added.", "comment",
          clear={"field": "comment", "text": event.text})  # fmt: skip


def _on_check(here: Shown, user: User, event: CheckEvent) -> None:
    """Check what is typed in an Add box and say what it would add (the text itself stays in the browser)."""
    if not event.text.strip():
        return
    st.session_state[CHECK_KEY] = {
        "scope": here.place.prefix,
        "side": event.side.value,
        "text": event.text,
        **_check(here, user, event),
    }


def _check(here: Shown, user: User, event: CheckEvent) -> dict[str, str]:
    view = here.view  # as drawn: a check reads no database
    try:
        candidate = parse_candidate(event.text, view.item.target.pos)
    except CandidateError as error:
        return {"kind": "error", "message": components.candidate_error_message(error, user.is_lead), "hint": ""}
    key = CandidateEntry(candidate.text, candidate.pos).key
    hint = hints.lexicon_hint(view.item, view.state, key) or _typed_hint(view, candidate.text)
    found = view.state.find(key)
    if found:
        return {"kind": "error", "message": f"{candidate.format()} is already in {components.SIDE_NAME[found[0]]}.",
                "hint": hint}  # fmt: skip
    warnings = " ".join(candidate.warnings)
    return {
        "kind": "ok",
        "message": f"✓ valid: will be saved as {candidate.format()}. {warnings}".strip(),
        "hint": hint,
    }


def _on_accept(here: Shown, user: User, event: AcceptEvent) -> None:
    """A suggestion taken into GOOD or BAD (a BAD word proposed for GOOD is moved); the cursor stays in the
    suggestions, on the next one."""
    side = components.SIDE_NAME[event.side]
    save(
        here, event, commands.AcceptSuggestion(event.side, event.text),
        lambda s: f"{event.text} is now in {side}.", "suggestions", "cursor",
    )  # fmt: skip


def _on_dismiss(here: Shown, user: User, event: DismissEvent) -> None:
    """A suggestion turned down for this user on this item-language (nobody else's view, no version, no history);
    ``u`` right after it brings it back."""

    def remember(_saved: ItemLanguage) -> None:
        st.session_state[DISMISSED_KEY] = Dismissed(event.item, event.lang, event.text)

    save(
        here, event, commands.DismissSuggestion(event.side, event.text),
        f"Dismissed {event.text}: it will not be suggested to you here again. Undo (u) brings it back.",
        "suggestions", "cursor", after=remember,
    )  # fmt: skip


def _typed_hint(view: ItemView, text: str) -> str:
    """Which synsets of the project's lexicons the typed word lexicalizes (σ, another sense of λ, or unrelated); ""
    when the lexicon cannot say (not a wordnet, or it cannot be opened now)."""
    try:
        return wordnet_hints.typed_word_hint(project_cache.get_project(), view.item, view.state.lang, text) or ""
    except (UserError, LexiconError):
        return ""


def _on_advance(here: Shown, _user: User, event: AdvanceEvent) -> None:
    key = here.place.nav.get("advance_key")
    if key:
        st.session_state[key] = event.on  # remembered for the user's next session with the filters


#: A handler takes the dataclass of its event's kind (``handles`` checks the pair).
Handler = Callable[[Shown, User, Any], None]
_Event = TypeVar("_Event", bound=AreaEvent)


def handles(kind: type[_Event], handler: Callable[[Shown, User, _Event], None]) -> tuple[str, Handler]:
    """One entry of ``HANDLERS``: the type checker sees that ``handler`` takes events of ``kind``."""
    return kind.KIND, handler


#: The element's events, each to the handler that turns it into one command (or a page step).
HANDLERS: dict[str, Handler] = dict(
    [
        handles(AddEvent, _on_add),
        handles(AddManyEvent, _on_add),
        handles(RemoveEvent, _on_row),
        handles(MoveEvent, _on_row),
        handles(DoneEvent, _on_done),
        handles(DiscussEvent, _on_discuss),
        handles(DiscardEvent, _on_discard),
        handles(ReopenEvent, _on_reopen),
        handles(UndoEvent, _on_undo),
        handles(NextEvent, _on_step),
        handles(PreviousEvent, _on_step),
        handles(CommentEvent, _on_comment),
        handles(CheckEvent, _on_check),
        handles(AdvanceEvent, _on_advance),
        handles(AcceptEvent, _on_accept),
        handles(DismissEvent, _on_dismiss),
    ]
)


def _handle_event() -> None:
    """One checked event, for the item-language on screen, to one handler."""
    seq = curate_area.received_seq()
    if seq is not None:
        st.session_state[ACK_KEY] = seq  # answered, whatever it was: the element sends its next event
    try:
        event = curate_area.received()
    except EventRefused as refused:  # not an event the element sends: a forged or malformed message changes nothing
        LOGGER.warning("work area event refused: %s", refused)
        say("error", f"Nothing was changed: this page sent what the server cannot act on ({refused}). Reload the "
            "page.", "card", "area")  # fmt: skip
        return
    if event is None:
        return
    user = session.current_user()
    here = shown()
    if user is None or here is None:
        return
    if (event.item, event.lang) != (here.place.address.item_id, here.place.address.lang):
        say("info", "The page had moved on to another item; nothing was changed.", "card", "first")
        return
    if not isinstance(event, UndoEvent | CheckEvent | AdvanceEvent | NextEvent | PreviousEvent):
        st.session_state[LEFT_KEY] = None  # u undoes on the item just left only right after leaving it
        st.session_state[DISMISSED_KEY] = None  # and brings a dismissed suggestion back only right after it
    with page_run.callback_checked(user):  # the action runner takes the user just checked
        HANDLERS[event.KIND](here, user, event)


def on_event() -> None:
    """The element's ``event`` callback. It runs before the page, outside its fault wrapper: a database that stops
    answering (reading the login, saving) is queued as "your last change was not saved" for the page to show; what
    was typed stays in the browser's boxes to redo."""
    try:
        _handle_event()
    except DatabaseUnavailableError as error:
        faults.say_database_fault(error)
