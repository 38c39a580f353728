"""What the work area shows (Curate, Review, Double curation): the element's data, named as its protocol says.

``area_data`` builds everything the element draws for one item-language or copy at a ``Place`` (which state, the
page's widget-key prefix, navigation and hooks). What a user may do is asked of the domain (``capabilities``); the
events the element sends back are turned into commands by ``annotator.app.work_area``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from annotator.app import components, curate_area, project_cache
from annotator.app.session import login_session
from annotator.domain import suggestions as sugg
from annotator.domain import undo
from annotator.domain.capabilities import Capabilities, capabilities
from annotator.domain.commands import Address
from annotator.domain.model import Comment, DiscardReason, ItemLanguage, Side, Status, User
from annotator.errors import UserError
from annotator.lexicon.base import LexiconError
from annotator.services import suggestions as suggestion_service
from annotator.services.curation import ItemView

#: Session keys: the feedback of the last event, the last event's id (the element's acknowledgement), the check of
#: the text last typed in an Add box, what the element shows (``Shown``), the item just left by Done / DISCUSS /
#: Discard (what ``u`` undoes there), and the Evaluate translation an item was opened from.
FEEDBACK_KEY = "cur_area_feedback"
ACK_KEY = "cur_area_ack"
CHECK_KEY = "cur_area_check"
SHOWN_KEY = "cur_area_shown"
LEFT_KEY = "cur_area_left"
#: The suggestion just dismissed (``u`` right after it takes the dismissal back).
DISMISSED_KEY = "cur_area_dismissed"
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
    """Where the element is drawn: the state it edits, the page's key prefix (it scopes the browser's drafts),
    navigation, hooks."""

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
    #: What was drawn (the Add boxes' checks read it instead of the database).
    view: ItemView


@dataclass(frozen=True)
class Left:
    """The item just left by Done / DISCUSS / Discard (``u`` on the next item undoes there), kept in the session."""

    item_id: str
    version: int
    lang: str
    action: str


@dataclass(frozen=True)
class Dismissed:
    """The suggestion the user has just dismissed on an item-language (what ``u`` right after it brings back)."""

    item_id: str
    lang: str
    text: str


def just_dismissed(item_id: str, lang: str) -> Dismissed | None:
    value = st.session_state.get(DISMISSED_KEY)
    return value if isinstance(value, Dismissed) and (value.item_id, value.lang) == (item_id, lang) else None


def left_behind() -> Left | None:
    value = st.session_state.get(LEFT_KEY)
    return value if isinstance(value, Left) else None


def shown() -> Shown | None:
    value = st.session_state.get(SHOWN_KEY)
    return value if isinstance(value, Shown) else None


def caps_of(view: ItemView, user: User) -> Capabilities:
    return capabilities(user, view.state, view.copy_statuses)


# --- what the element shows ------------------------------------------------------------------------------------


def _undo_tip(view: ItemView, user: User) -> tuple[bool, str]:
    """Whether Undo can act here, and what it would undo (worked out from the history the page already read)."""
    left = left_behind()
    if left and left.lang == view.state.lang and left.item_id != view.state.item_id:
        return True, f"Undo your {left.action} on {left.item_id}, the item you just left (u)."
    dismissed = just_dismissed(view.item.id, view.state.lang)
    if dismissed is not None:
        return True, f"Bring back the suggestion {dismissed.text} you just dismissed (u)."
    try:
        plan = undo.plan_undo(user, view.state, view.history)
    except UserError as error:
        return False, f"Undo is not possible now: {error}"
    return True, f"Undo your last change on this item: {undo.describe(plan.undone)} (v{plan.undone.version}). (u)"


def _notices(view: ItemView, user: User, caps: Capabilities) -> list[dict[str, str]]:
    il = view.state
    notices = [("warning", f"Overlap: {note}") for note in il.overlaps]
    overlapped = {repr(note.split(":", 1)[0]) for note in il.overlaps}  # a word the Overlap banner already names
    notices += [("info", text) for text in _filter_notices(view, user, overlapped)]
    if il.status is Status.DISCUSS:
        who = il.status_by or "?"
        notices.append(("warning", f"DISCUSS ({who}): {il.discuss_note}" if il.discuss_note else f"DISCUSS ({who})"))
        if not caps.resolve and view.copy_statuses is None:
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


#: A target-language filter failure as ``selection_filters`` writes it.
_TARGET_FAILURE = re.compile(r"^target_language: (\S+) (.+) also means (\S+), which has (.+) in English$")


def _filter_notices(view: ItemView, user: User, overlapped: set[str]) -> list[str]:
    """The selection filters' findings: all of them, as the rules name them, for a lead (who decides exclusions); for
    a translator only those about their language, in their words, and not about a word an Overlap banner already
    names (one banner per word: both say it also means another sense)."""
    failures = view.item.filter_failures
    if not failures:
        return []
    if user.is_lead:
        return ["Selection filters: " + "; ".join(failures)]
    said = []
    for failure in failures:
        found = _TARGET_FAILURE.match(failure)
        if found and found.group(1) == view.state.lang and found.group(2) not in overlapped:
            word, english = found.group(2), found.group(4)
            said.append(
                f"Careful: {word} can also mean another sense of {english} ({found.group(3)}), so a translation "
                "with it is not proof the system understood this sense."
            )
    return said


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


#: How a suggestion's source is named on its row.
SOURCE_NAME = {sugg.TEAM: "the team's curation", sugg.RELATED: "a related sense", sugg.MT: "machine translation"}


def _card_suggestions(view: ItemView, user: User, place: Place) -> suggestion_service.CardSuggestions | None:
    """Why a list is empty and the ranked suggestions (issue 33), for an item-language (a double-curation copy is
    curated on its own: none shown there). A lexicon that cannot answer now leaves the card without them."""
    if place.address.is_copy:
        return None
    try:
        project = project_cache.get_project()
        return suggestion_service.shown_card(project, view.item, view.state, user)  # as the view read it
    except (UserError, LexiconError):
        return None


def _miss_lines(
    view: ItemView, place: Place, found: suggestion_service.CardSuggestions | None, t: Callable[[object], str]
) -> list[dict[str, str]]:
    """The machine translations of this item-language scored MISS in the newest evaluation (issue 33: on every MISS
    item, not only when arriving from Evaluate); their words are the MT suggestions, reachable by the cursor."""
    if found is None or place.address.is_copy:
        return []
    try:
        project = project_cache.get_project()
        lines = suggestion_service.miss_lines(project, found.evaluation, view.item.id, view.state.lang)
    except (OSError, ValueError):  # the evaluation's file is gone or damaged: the card shows the rest
        return []
    words = any(s.source == sugg.MT for s in found.suggestions)
    where = " Its words are among the suggestions below (f)." if words else ""
    return [{"label": t(f"{system} (MISS):"), "text": t(text) + where} for system, text in lines]


def _suggestions(found: suggestion_service.CardSuggestions | None, t: Callable[[object], str]) -> dict[str, Any]:
    rows = []
    for s in found.suggestions if found is not None else ():
        side = "move" if s.side == sugg.MOVE_TO_GOOD else s.side.lower()
        where = {"good": "for GOOD", "bad": "for BAD", "move": "move from BAD to GOOD"}[side]
        source = SOURCE_NAME.get(s.source, s.source)
        relation = f" ({s.relation})" if s.relation and s.source != sugg.MT else ""
        rows.append({"key": s.key, "text": t(s.text), "side": side, "label": t(f"{where} · from {source}{relation}"),
                     "reason": t(s.reason)})  # fmt: skip
    return {"title": f"Suggestions ({len(rows)})", "rows": rows}


def _lists(view: ItemView, t: Callable[[object], str], found: suggestion_service.CardSuggestions | None = None
           ) -> dict[str, Any]:  # fmt: skip
    item, il = view.item, view.state
    reasons = {Side.GOOD: found.good_empty_reason if found else "", Side.BAD: found.bad_empty_reason if found else ""}
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
            "empty": t(reasons[side]) if not rows else "",
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
    why = _why_not(il, user, caps)  # what a key that cannot act says (x on a DISCUSS item, issue 34)
    actions_data = {
        "done": {"shown": open_status, "enabled": caps.done,
                 "tip": "Save this item-language as curated (needs at least one GOOD candidate). (d)"
                 if caps.done else why},
        "undo": {"shown": caps.undo, "enabled": caps.undo, "tip": undo_tip},
        "discuss": {"shown": open_status, "enabled": caps.discuss, "tip": "Ask a lead (s)" if caps.discuss else why},
        "discard": {"shown": open_status, "enabled": caps.discard,
                    "tip": "Discard with a reason (x)" if caps.discard else why},
        "reopen": {"shown": caps.reopen, "enabled": caps.reopen,
                   "tip": "Reopen to change it; it returns to the to-do queue. (o)" if caps.reopen
                   else caps.reopen_refused or f"Only done or discarded items reopen; this one is "
                   f"{components.STATUS_LABEL[il.status]}."},
    }  # fmt: skip
    source = f" · source {item.source}" if item.source else ""
    copy = " · your double-curation copy" if place.address.is_copy else ""
    sentence, start, end = _marked(item.sentence, item.target.start, item.target.end)
    shown_check = st.session_state.get(CHECK_KEY)
    check = shown_check if isinstance(shown_check, dict) and shown_check.get("scope") == place.prefix else None
    feedback = st.session_state.pop(FEEDBACK_KEY, None)
    good_example, bad_example = PLACEHOLDERS.get(il.lang.upper(), GENERIC_PLACEHOLDER)
    found = _card_suggestions(view, user, place)
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
            "mt": _miss_lines(view, place, found, t),
        },
        "actions": actions_data,
        "lists": _lists(view, t, found),
        "suggestions": _suggestions(found, t),
        "placeholders": {"good": good_example, "bad": bad_example},
        "reasons": [{"value": r.value, "label": components.REASON_NAME[r]} for r in DiscardReason],
        "scope": place.prefix,
        "login": _login_tag(),
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


def _login_tag() -> str:
    """A non-secret tag of this log-in (the same in every tab it reaches through the cookie, another after the next
    log-in): the browser keeps drafts under it and drops other log-ins' drafts, so none come back (issue 34)."""
    session = login_session()
    if session is None:
        return "local"
    whole = f"{session.user}|{session.epoch}|{session.issued_at!r}"
    return hashlib.sha256(whole.encode("utf-8")).hexdigest()[:16]


def _why_not(il: ItemLanguage, user: User, caps: Capabilities) -> str:
    """Why Done / DISCUSS / Discard cannot act on this item now, in a translator's words."""
    if not user.may_edit(il.lang):
        return f"You may not change {il.lang} items."
    if il.status is Status.DISCUSS:
        return (
            "This item is DISCUSS: resolve it below (done or discarded, with a comment)."
            if caps.resolve
            else "This item is DISCUSS: a lead resolves it; you can add to the comments."
        )
    return f"This item is {components.STATUS_LABEL[il.status]}: " + (
        "reopen it (o) first." if caps.reopen else "only a lead may reopen it."
    )


def _is_the_note(comment: Comment, il: ItemLanguage) -> bool:
    """The DISCUSS note is in the card's notice; its copy in the thread is not shown a second time (issue 34)."""
    return il.status is Status.DISCUSS and comment.user == il.status_by and comment.text == il.discuss_note
