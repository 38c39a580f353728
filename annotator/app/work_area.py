"""The work area of Curate, Review and Double curation: what the element shows, and its events as commands.

One element (``annotator.app.curate_area``) shows an item-language — or a translator's double-curation copy — with
its card, lists, actions, thread and history. ``render`` draws it for a ``Place`` (which state it edits, the page's
navigation, the page's hooks); every event the element sends becomes one typed command
(``annotator.domain.commands``) run by the app's one action runner (``annotator.app.actions.run``) with the version
the element was drawn for. What a user may do is asked of the domain (``capabilities``), never restated here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from annotator.app import actions, components, curate_area, state
from annotator.app.curate_area import Event
from annotator.domain import commands, hints, undo
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.capabilities import Capabilities, capabilities
from annotator.domain.commands import Address, Command
from annotator.domain.model import CandidateEntry, Comment, DiscardReason, ItemLanguage, Side, Status, User
from annotator.errors import DatabaseUnavailableError, UserError
from annotator.services.curation import ItemView

#: Session keys: the feedback of the last event, the last event's id (the element's acknowledgement), the check of
#: the text last typed in an Add box, what the element shows (``Shown``), the item just left by Done / DISCUSS /
#: Discard (what ``u`` undoes there), and the Evaluate translation an item was opened from.
FEEDBACK_KEY = "cur_area_feedback"
ACK_KEY = "cur_area_ack"
CHECK_KEY = "cur_area_check"
SHOWN_KEY = "cur_area_shown"
LEFT_KEY = "cur_area_left"
EVAL_KEY = "cur_eval_translation"
#: Examples in the Add boxes, in the language being curated (a German box never shows Italian); GOOD then BAD.
PLACEHOLDERS = {
    "IT": ("goccio · prendersi * permesso · [sparare]_VERB", "sparo · colpo · [tirare]_VERB"),
    "DE": ("Schluck · sich * freinehmen · [schießen]_VERB", "Schuss · Treffer · [feuern]_VERB"),
    "ES": ("trago · tomarse * libre · [disparar]_VERB", "disparo · tiro · [tirar]_VERB"),
    "FR": ("gorgée · prendre * congé · [tirer]_VERB", "coup de feu · tir · [abattre]_VERB"),
    "PT": ("gole · tirar * folga · [atirar]_VERB", "tiro · disparo · [disparar]_VERB"),
    "RU": ("глоток · взять * отгул · [стрелять]_VERB", "выстрел · удар · [палить]_VERB"),
    "ZH": ("一口 · 请 * 假 · [射击]_VERB", "枪声 · 射门 · [开枪]_VERB"),
}
GENERIC_PLACEHOLDER = ("a word · a multiword · word * word · [word]_VERB", "a word · a multiword · [word]_VERB")


def _noop(_saved: ItemLanguage) -> None:
    """A page with nothing to do after a change."""


def _stay(_delta: int) -> None:
    """A page without a queue to step through."""


def _show_here(_item_id: str) -> None:
    """A page that cannot switch items for an undo."""


@dataclass(frozen=True)
class Hooks:
    """What a page does around a change: after Done / DISCUSS / Discard (``left``, e.g. go on to the next item), after
    any other change that may move the item in its list (``changed``), Next / Previous (``step``) and showing another
    item (``show``, after undoing on the item just left)."""

    left: Callable[[ItemLanguage], None] = _noop
    changed: Callable[[ItemLanguage], None] = _noop
    step: Callable[[int], None] = _stay
    show: Callable[[str], None] = _show_here
    current: Callable[[], str | None] = lambda: None


@dataclass(frozen=True)
class Place:
    """Where the element is drawn: the state it edits, the page's widget-key prefix (drafts), navigation, hooks."""

    address: Address
    prefix: str
    nav: dict[str, Any]
    hooks: Hooks = field(default_factory=Hooks)


@dataclass(frozen=True)
class Shown:
    """What the element shows now (kept in the session): events are checked against it."""

    place: Place
    version: int
    status: Status


def shown() -> Shown | None:
    value = st.session_state.get(SHOWN_KEY)
    return value if isinstance(value, Shown) else None


def render(view: ItemView, user: User, place: Place) -> None:
    """Draw the element for ``view`` at ``place``; its events come back through ``on_event``."""
    st.session_state[SHOWN_KEY] = Shown(place, view.state.version, view.state.status)
    curate_area.render(area_data(view, user, place), on_event)


def caps_of(view: ItemView, user: User) -> Capabilities:
    return capabilities(user, view.state, view.copy_statuses)


# --- what the element shows ------------------------------------------------------------------------------------


def _undo_tip(view: ItemView, user: User) -> tuple[bool, str]:
    """Whether Undo can act here, and what it would undo (worked out from the history the page already read)."""
    left = st.session_state.get(LEFT_KEY)
    if left and left[2] == view.state.lang:
        return True, f"Undo your {left[3]} on {left[0]}, the item you just left (u)."
    try:
        plan = undo.plan_undo(user, view.state, view.history)
    except UserError as error:
        return False, f"Undo is not possible now: {error}"
    return True, f"Undo your last change on this item: {undo.describe(plan.undone)} (v{plan.undone.version}). (u)"


def _notices(view: ItemView, user: User, caps: Capabilities) -> list[dict[str, str]]:
    il = view.state
    notices = [("warning", f"Overlap: {note}") for note in il.overlaps]
    if view.item.filter_failures:
        notices.append(("info", "Selection filters: " + "; ".join(view.item.filter_failures)))
    if il.status is Status.DISCUSS:
        who = il.status_by or "?"
        notices.append(("warning", f"DISCUSS ({who}): {il.discuss_note}" if il.discuss_note else f"DISCUSS ({who})"))
        if not user.is_lead and view.copy_statuses is None:
            notices.append(("info", "A lead will resolve it; you can add to the comments below."))
    if il.status is Status.DISCARDED:
        reason = components.REASON_NAME.get(il.discard_reason, "?") if il.discard_reason else "?"
        note = f" — {il.discard_note}" if il.discard_note else ""
        notices.append(("error", f"Discarded by {il.status_by or '?'}: {reason}{note}"))
    if view.copy_statuses is not None:
        if caps.locked:
            notices.append(("info", caps.locked))
    elif il.status in (Status.DONE, Status.DISCARDED):
        label = components.STATUS_LABEL[il.status]
        if caps.reopen:
            notices.append(("info", f"This item is {label}. To change it, reopen it (Reopen, or the o key)."))
        else:
            may_undo, _tip = _undo_tip(view, user)
            extra = " Undo (u) takes back your own last change on it." if may_undo else ""
            notices.append(("info", f"This item is {label}; only a lead may reopen it.{extra}"))
    elif not user.may_edit(il.lang):
        notices.append(("info", f"You may not change {il.lang} items."))
    return [{"kind": kind, "text": curate_area.text(text)} for kind, text in notices]


def _translation(item_id: str, lang: str) -> dict[str, Any] | None:
    """The machine translation an Evaluate MISS/BAD opened this item from, with its match marked."""
    shown_tr = st.session_state.get(EVAL_KEY)
    if not isinstance(shown_tr, dict) or (shown_tr.get("item"), shown_tr.get("lang")) != (item_id, lang):
        return None
    span = shown_tr.get("span")
    ok = isinstance(span, (list, tuple)) and len(span) == 2 and all(type(n) is int for n in span)
    first, last = (span[0], span[1]) if ok and span is not None else (-1, -1)
    text, start, end = _marked(str(shown_tr.get("text") or ""), first, last)
    outcome = str(shown_tr.get("outcome") or "")
    return {
        "label": curate_area.text(f"{shown_tr.get('system') or 'system'} ({outcome}):"),
        "text": text,
        "start": start,
        "end": end,
        "outcome": outcome,
    }


def _marked(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``text`` with invisible characters made visible, and the span ``[start:end]`` moved to match (-1 when none)."""
    if not 0 <= start < end <= len(text):
        return curate_area.text(text), -1, -1
    before, word, after = (curate_area.text(part) for part in (text[:start], text[start:end], text[end:]))
    return before + word + after, len(before), len(before) + len(word)


def _lists(view: ItemView, t: Callable[[object], str]) -> dict[str, Any]:
    item, il = view.item, view.state
    lists = {}
    for side in (Side.GOOD, Side.BAD):
        other = Side.BAD if side is Side.GOOD else Side.GOOD
        rows = []
        for entry in il.side(side):
            line, tip = components.provenance(entry, item, il, side)
            text = t(entry.format())
            rows.append({"key": entry.key, "text": text, "line": t(line), "title": f"{text}\n{t(line)}\n{t(tip)}"})
        initial = il.initial_good if side is Side.GOOD else il.initial_bad
        name = components.SIDE_NAME[side]
        lists[side.value] = {
            "heading": f"{'✓' if side is Side.GOOD else '✗'} {name} ({len(rows)})",
            "side": name,
            "other": components.SIDE_NAME[other],
            "rows": rows,
            "removed": [t(e.format()) for e in initial if il.find(e.key) is None],
        }
    return lists


def area_data(view: ItemView, user: User, place: Place) -> dict[str, Any]:
    """Everything the element shows for one item-language, as JSON-ready data named as ``curate_area.protocol``
    says (text only: the script never parses markup). Invisible characters are made visible, as everywhere else."""
    item, il = view.item, view.state
    caps = caps_of(view, user)
    t = curate_area.text
    url = curate_area.synset_link(item.synset)
    delta, mu = item.polysemy_degree, item.sense_rank
    sense = [
        {"text": f"lemma {item.target.lemma} · {item.target.pos} · synset ", "link": None},
        {"text": item.synset, "link": url},
        {"text": f" · δ(λ) = {delta if delta is not None else '?'} · μ(σ) = {mu if mu is not None else '?'}",
         "link": None},
    ]  # fmt: skip
    senses = [
        {"text": f"{s.rank}. {s.synset} — {s.gloss or '(no gloss)'}"
                 f"{'  ← this item (σ)' if s.synset == item.synset else ''}",
         "sigma": s.synset == item.synset}
        for s in item.senses
    ]  # fmt: skip
    open_status = il.status in (Status.PENDING, Status.IN_PROGRESS)
    undo_tip = _undo_tip(view, user)[1] if caps.undo else "Undo is not kept for a double-curation copy."
    actions_data = {
        "done": {"shown": open_status, "enabled": caps.done,
                 "tip": "Save this item-language as curated (needs at least one GOOD candidate). (d)"},
        "undo": {"shown": caps.undo, "enabled": caps.undo, "tip": undo_tip},
        "discuss": {"shown": open_status, "enabled": caps.discuss, "tip": "Ask a lead (s)"},
        "discard": {"shown": open_status, "enabled": caps.discard, "tip": "Discard with a reason (x)"},
        "reopen": {"shown": caps.reopen, "enabled": caps.reopen,
                   "tip": "Reopen to change it; it returns to the to-do queue. (o)"},
    }  # fmt: skip
    source = f" · source {item.source}" if item.source else ""
    copy = " · your double-curation copy" if place.address.is_copy else ""
    sentence, start, end = _marked(item.sentence, item.target.start, item.target.end)
    shown_check = st.session_state.get(CHECK_KEY)
    check = shown_check if isinstance(shown_check, dict) and shown_check.get("prefix") == place.prefix else None
    feedback = st.session_state.pop(FEEDBACK_KEY, None)
    good_example, bad_example = PLACEHOLDERS.get(il.lang.upper(), GENERIC_PLACEHOLDER)
    return {
        "protocol": curate_area.PROTOCOL_VERSION,
        "item": item.id,
        "lang": il.lang,
        "version": il.version,
        "editable": caps.edit,
        "locked": caps.locked,
        "advance": bool(st.session_state.get(place.nav["advance_key"])) if place.nav.get("advance_key") else False,
        "nav": {k: v for k, v in place.nav.items() if k != "advance_key"},
        "card": {
            "title": t(f"{item.id} · {il.lang}{source}{copy}"),
            "status": il.status.value,
            "status_label": components.STATUS_LABEL[il.status],
            "sentence": sentence,
            "start": start,
            "end": end,
            "sense": [{"text": t(part["text"]), "link": part["link"]} for part in sense],
            "gloss": t(item.gloss),
            "senses_title": t(f"All {len(item.senses)} senses of “{item.target.lemma}” ({item.target.pos})"),
            "senses": [{"text": t(s["text"]), "sigma": s["sigma"]} for s in senses],
            "notices": _notices(view, user, caps),
            "translation": _translation(item.id, il.lang),
        },
        "actions": actions_data,
        "lists": _lists(view, t),
        "placeholders": {"good": good_example, "bad": bad_example},
        "reasons": [{"value": r.value, "label": components.REASON_NAME[r]} for r in DiscardReason],
        "drafts": {
            name: str(st.session_state.get(place.prefix + suffix) or "")
            for name, suffix in curate_area.DRAFT_FIELDS.items()
        },
        "check": check,
        "feedback": feedback,
        "ack": st.session_state.get(ACK_KEY),
        "comments": {
            "title": f"Comments ({len(view.comments)})",
            "rows": [
                {"who": t(c.user), "when": c.at[:16].replace("T", " ") + " UTC", "text": t(c.text)}
                for c in view.comments
                if not _is_the_note(c, il)
            ],
            "may_post": caps.comment,
            "shown": view.copy_statuses is None,
            "open": il.status is Status.DISCUSS,
        },
        "history": {
            "title": f"History ({len(view.history)})",
            "shown": view.copy_statuses is None,
            "rows": [
                {
                    "when": h.at[:19].replace("T", " "),
                    "who": t(h.user),
                    "action": h.action,
                    "detail": t(components.history_detail(h)),
                    "version": h.version,
                }
                for h in reversed(view.history)
            ],
        },
    }


def _is_the_note(comment: Comment, il: ItemLanguage) -> bool:
    """The DISCUSS note is in the card's notice; its copy in the thread is not shown a second time (issue 34)."""
    return il.status is Status.DISCUSS and comment.user == il.status_by and comment.text == il.discuss_note


# --- what the element sends: one command each ---------------------------------------------------------------------


def say(kind: str, text: str, where: str, focus: str | None = None, **extra: Any) -> None:
    """The feedback of one event, shown by the element where the eyes are (``where``), then focus ``focus``."""
    said = curate_area.text(text)  # it quotes what people typed: invisible characters made visible
    st.session_state[FEEDBACK_KEY] = {
        "id": f"{time.time_ns()}", "kind": kind, "text": said, "where": where, "focus": focus or where, **extra,
    }  # fmt: skip


def _save(
    here: Shown,
    event: Event,
    command: Command,
    success: str | Callable[[ItemLanguage], str],
    where: str,
    focus: str | None = None,
    after: Callable[[ItemLanguage], None] | None = None,
    **extra: Any,
) -> ItemLanguage | None:
    """Run one command through the one action runner; say what happened where the user looks. A refusal keeps
    what they typed (the element clears a box only on success)."""
    was = here.status if here.version == event.version else None
    outcome = actions.run(here.place.address, command, event.version, was)
    if outcome.saved is None:
        say("error", outcome.error, where, focus)
        if outcome.conflict:
            here.place.hooks.changed(ItemLanguage(event.item, event.lang))
        return None
    saved = outcome.saved
    say("success", success(saved) if callable(success) else success, where, focus, **extra)
    if after is not None:
        after(saved)
    return saved


def _left_behind(here: Shown, event: Event, action: str) -> Callable[[ItemLanguage], None]:
    """After Done / DISCUSS / Discard: note the item just left (``u`` on the next item undoes there), then advance."""

    def after(saved: ItemLanguage) -> None:
        here.place.hooks.left(saved)
        moved = here.place.hooks.current() not in (None, event.item)
        st.session_state[LEFT_KEY] = (event.item, saved.version, event.lang, action) if moved else None
        feedback = st.session_state.get(FEEDBACK_KEY)
        if feedback:  # on the next item, the card; on this one, the work area itself (where the next key acts)
            feedback["where"], feedback["focus"] = ("card", "first") if moved else ("card", "area")

    return after


def _clear_draft(here: Shown, name: str) -> None:
    st.session_state[here.place.prefix + curate_area.DRAFT_FIELDS[name]] = ""


def _on_add(here: Shown, user: User, event: Event) -> None:
    to = event.side
    if to is None:  # parse_event gives every add a side; a page bug, not the user's
        raise ValueError(f"an add event without a side: {event!r}")
    name = to.value
    side = components.SIDE_NAME[to]
    if not event.text.strip():
        say("error", f"Type a candidate to add to {side}.", name)
        return
    lines = event.text.splitlines()
    if event.type == "add_many":
        count = sum(1 for line in lines if line.strip())
        saved = _save(
            here, event, commands.AddCandidates(to, tuple(lines)), f"Added {count} candidates to {side}.", name,
            clear={"field": f"bulk_{name}", "text": event.text},
        )  # fmt: skip
    else:
        saved = _save(
            here, event, commands.AddCandidate(to, event.text), lambda s: f"Added {s.side(to)[-1].format()} to {side}.",
            name, clear={"field": name, "text": event.text},
        )  # fmt: skip
    if saved is not None:
        _clear_draft(here, name)
        st.session_state.pop(CHECK_KEY, None)


def _on_row(here: Shown, user: User, event: Event) -> None:
    """Move or Remove the row the element names; the message names the candidate as the element showed it."""
    side = event.side  # the list the row was in, as the element drew it
    name = event.text or event.key
    where = side.value if side is not None else "card"
    if event.type == "move":
        to = (Side.BAD if side is Side.GOOD else Side.GOOD) if side is not None else None
        _save(
            here, event, commands.MoveCandidate(event.key, to),
            lambda s: f"Moved {name} to {components.SIDE_NAME[(s.find(event.key) or (Side.GOOD, None))[0]]}.",
            where, "cursor",
        )  # fmt: skip
    else:
        from_side = components.SIDE_NAME[side] if side is not None else "the lists"
        _save(here, event, commands.RemoveCandidate(event.key), f"Removed {name} from {from_side}.", where, "cursor")


def _on_done(here: Shown, user: User, event: Event) -> None:
    _save(
        here, event, commands.MarkDone(), f"Marked {event.item} done. Undo (u) takes it back.", "card", "first",
        after=_left_behind(here, event, "Done"),
    )  # fmt: skip


def _on_discuss(here: Shown, user: User, event: Event) -> None:
    if not event.text.strip():  # the service refuses it too; saying so here avoids a pointless round trip
        say("error", "DISCUSS needs a note saying what a lead should look at.", "discuss")
        return
    if _save(
        here, event, commands.FlagDiscuss(event.text), f"Flagged {event.item} DISCUSS for a lead.", "card", "area",
        after=_left_behind(here, event, "DISCUSS flag"), close="discuss",
    ):  # fmt: skip
        _clear_draft(here, "discuss")


def _on_discard(here: Shown, user: User, event: Event) -> None:
    reason = DiscardReason(event.reason) if event.reason else None
    note = f" — {event.text.strip()}" if event.text.strip() else ""
    if _save(
        here, event, commands.Discard(reason, event.text),
        f"Discarded {event.item}: {components.REASON_NAME[reason] if reason else ''}{note}. Undo (u) takes it back.",
        "card", "area", after=_left_behind(here, event, "Discard"), close="discard",
    ):  # fmt: skip
        _clear_draft(here, "discard_note")
        _clear_draft(here, "discard_reason")


def _on_reopen(here: Shown, user: User, event: Event) -> None:
    _save(
        here, event, commands.Reopen(), f"Reopened {event.item}: edit it, then Done.", "card", "area",
        after=here.place.hooks.changed,
    )  # fmt: skip


def _on_undo(here: Shown, user: User, event: Event) -> None:
    left = st.session_state.pop(LEFT_KEY, None)
    item, lang, version = event.item, event.lang, event.version
    if left and left[2] == event.lang:  # u right after leaving an item by Done / DISCUSS / Discard: undo there
        item, version = left[0], left[1]
    try:
        view = state.service(user).view(item, lang)
        message = undo.outcome(undo.plan_undo(user, view.state, view.history), view.history)
    except UserError as error:
        say("error", str(error), "card", "area")
        return
    where = Shown(Place(Address(item, lang), here.place.prefix, here.place.nav, here.place.hooks), version, here.status)

    def back(saved: ItemLanguage) -> None:
        here.place.hooks.changed(saved)
        if item != event.item:  # show the item the undo changed
            here.place.hooks.show(item)

    _save(where, Event(event.type, item, lang, version, event.seq), commands.Undo(), message, "card", "area",
          after=back)  # fmt: skip


def _on_step(here: Shown, _user: User, event: Event) -> None:
    st.session_state[LEFT_KEY] = None
    here.place.hooks.step(+1 if event.type == "next" else -1)
    say("info", "", "card", "first")


def _on_comment(here: Shown, user: User, event: Event) -> None:
    if _save(here, event, commands.PostComment(event.text), "Comment added.", "comment",
             clear={"field": "comment", "text": event.text}):  # fmt: skip
        _clear_draft(here, "comment")


def _on_draft(here: Shown, user: User, event: Event) -> None:
    """Keep what is typed (a reload brings it back); for an Add box, check it and say what it would add."""
    st.session_state[here.place.prefix + curate_area.DRAFT_FIELDS[event.field]] = event.text
    if event.field not in ("good", "bad") or not event.text.strip():
        return
    st.session_state[CHECK_KEY] = {
        "prefix": here.place.prefix,
        "side": event.field,
        "text": event.text,
        **_check(here, user, event),
    }


def _check(here: Shown, user: User, event: Event) -> dict[str, str]:
    view = state.service(user).view_of(here.place.address)
    try:
        candidate = parse_candidate(event.text, view.item.target.pos)
    except CandidateError as error:
        return {"kind": "error", "message": components.candidate_error_message(error, user.is_lead), "hint": ""}
    key = CandidateEntry(candidate.text, candidate.pos).key
    hint = hints.lexicon_hint(view.item, view.state, key) or ""
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


def _on_advance(here: Shown, _user: User, event: Event) -> None:
    key = here.place.nav.get("advance_key")
    if key:
        st.session_state[key] = event.on  # remembered for the user's next session with the filters


Handler = Callable[[Shown, User, Event], None]
#: The element's events, each to the handler that turns it into one command (or a page step).
HANDLERS: dict[str, Handler] = {
    "add": _on_add,
    "add_many": _on_add,
    "remove": _on_row,
    "move": _on_row,
    "done": _on_done,
    "discuss": _on_discuss,
    "discard": _on_discard,
    "reopen": _on_reopen,
    "undo": _on_undo,
    "next": _on_step,
    "previous": _on_step,
    "comment": _on_comment,
    "draft": _on_draft,
    "advance": _on_advance,
}


def _handle_event() -> None:
    """One checked event, for the item-language on screen, to one handler."""
    seq = curate_area.received_seq()
    if seq is not None:
        st.session_state[ACK_KEY] = seq  # answered, whatever it was: the element sends its next event
    event = curate_area.received()
    if event is None:
        return  # not an event the element sends: a forged or malformed message changes nothing
    user = state.current_user()
    here = shown()
    if user is None or here is None:
        return
    if (event.item, event.lang) != (here.place.address.item_id, here.place.address.lang):
        say("info", "The page had moved on to another item; nothing was changed.", "card", "first")
        return
    if event.type not in ("undo", "draft", "advance"):
        st.session_state[LEFT_KEY] = None  # u undoes on the item just left only right after leaving it
    HANDLERS[event.type](here, user, event)


def on_event() -> None:
    """The element's ``event`` callback. It runs before the page, outside its fault wrapper: a database that stops
    answering (reading the login, saving) is queued as "your last change was not saved" for the page to show."""
    try:
        _handle_event()
    except DatabaseUnavailableError as error:
        components.say_database_fault(error)
        _keep_typed(curate_area.received())


def _keep_typed(event: Event | None) -> None:
    """What the event carried as typed text stays in its box (no database needed): the user redoes it after."""
    here = shown()
    if event is None or not event.text or here is None:
        return
    name = event.field or (event.side.value if event.side is not None and event.type.startswith("add") else "")
    if name in curate_area.DRAFT_FIELDS:
        st.session_state[here.place.prefix + curate_area.DRAFT_FIELDS[name]] = event.text
