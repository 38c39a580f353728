"""What the work area shows (Curate, Review, Double curation): the element's data, typed as its protocol says.

``area_data`` builds everything the element draws for one item-language or copy at a ``Place`` (which state, the
page's widget-key prefix, navigation and hooks). It is a pure function of its inputs: what the session remembers
(``Remembered``, read by ``area_session``) and what the card's suggestions read (``CardReads``, read by
``work_area``) are given to it. What a user may do is asked of the domain (``capabilities``); the events the element
sends back are turned into commands by ``annotator.app.work_area``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from annotator.app import components, curate_area
from annotator.app.curate_area import protocol
from annotator.app.curate_area.protocol import (
    Action,
    Actions,
    AreaData,
    CandidateList,
    Check,
    Feedback,
    Lists,
    MtLine,
    Nav,
    Notice,
    SenseLine,
    SensePart,
    Suggestions,
    Translation,
)
from annotator.domain import suggestions as sugg
from annotator.domain import undo, workflow
from annotator.domain.capabilities import Capabilities, capabilities
from annotator.domain.commands import Address
from annotator.domain.model import Comment, DiscardReason, ItemLanguage, Side, Status, User
from annotator.errors import UserError
from annotator.services.curation import ItemView
from annotator.services.suggestions import card as suggestion_service

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


@dataclass(frozen=True)
class Remembered:
    """What the browser session holds for the next drawing (``area_session.remembered`` reads it)."""

    #: A non-secret tag of the log-in: the browser keeps drafts under it.
    login: str = "local"
    #: "Next item after Done" (the page's own setting; False where the page has none).
    advance: bool = False
    #: The check of the text last typed in an Add box on this page.
    check: Check | None = None
    #: What the last event did (shown once).
    feedback: Feedback | None = None
    #: The id of the last event answered.
    ack: str | None = None
    left: Left | None = None
    dismissed: Dismissed | None = None
    #: The Evaluate translation an item was opened from, as the Evaluate page left it.
    translation: dict[str, Any] | None = None


class CardReads(NamedTuple):
    """What the card's suggestions read (none for a double-curation copy, or when the lexicon cannot answer):
    the ranked suggestions, and the MISS lines of the newest evaluation as (system, translation)."""

    found: suggestion_service.CardSuggestions | None = None
    miss_lines: tuple[tuple[str, str], ...] = ()


def caps_of(view: ItemView, user: User) -> Capabilities:
    return capabilities(user, view.state, view.copy_statuses)


def _locked(caps: Capabilities) -> str:
    """Why the lists are locked, in the domain's words, with the key that reopens when Reopen is offered."""
    return f"{caps.locked} (o)" if caps.locked and caps.reopen else caps.locked


# --- what the element shows ------------------------------------------------------------------------------------


def _undo_tip(view: ItemView, user: User, remembered: Remembered) -> tuple[bool, str]:
    """Whether Undo can act here, and what it would undo (worked out from the history the page already read)."""
    left = remembered.left
    if left and left.lang == view.state.lang and left.item_id != view.state.item_id:
        return True, f"Undo your {left.action} on {left.item_id}, the item you just left (u)."
    dismissed = remembered.dismissed
    if dismissed is not None and (dismissed.item_id, dismissed.lang) == (view.item.id, view.state.lang):
        return True, f"Bring back the suggestion {dismissed.text} you just dismissed (u)."
    try:
        plan = undo.plan_undo(user, view.state, view.history)
    except UserError as error:
        return False, f"Undo is not possible now: {error}"
    return True, f"Undo your last change on this item: {undo.describe(plan.undone)} (v{plan.undone.version}). (u)"


def _notices(view: ItemView, user: User, caps: Capabilities, remembered: Remembered) -> list[Notice]:
    il = view.state
    notices: list[tuple[Literal["info", "warning", "error"], str]] = [
        ("warning", f"Overlap: {note}") for note in il.overlaps
    ]
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
            notices.append(("info", _locked(caps)))
    elif il.status in workflow.FINISHED:
        label = components.STATUS_LABEL[il.status]
        if caps.reopen:
            notices.append(("info", f"This item is {label}. To change it, reopen it (Reopen, or the o key)."))
        else:
            may_undo, _tip = _undo_tip(view, user, remembered)
            extra = " Undo (u) takes back your own last change on it." if may_undo else ""
            notices.append(("info", f"This item is {label}; only a lead may reopen it.{extra}"))
    elif not user.may_edit(il.lang):
        notices.append(("info", f"You may not change {il.lang} items."))
    return [Notice(kind=kind, text=curate_area.text(text)) for kind, text in notices]


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


def _translation(item_id: str, lang: str, shown_tr: dict[str, Any] | None) -> Translation | None:
    """The machine translation an Evaluate MISS/BAD opened this item from, with its match marked."""
    if shown_tr is None or (shown_tr.get("item"), shown_tr.get("lang")) != (item_id, lang):
        return None
    span = shown_tr.get("span")
    ok = isinstance(span, (list, tuple)) and len(span) == 2 and all(type(n) is int for n in span)
    first, last = (span[0], span[1]) if ok and span is not None else (-1, -1)
    text, start, end = _marked(str(shown_tr.get("text") or ""), first, last)
    outcome = str(shown_tr.get("outcome") or "")
    label = curate_area.text(f"{shown_tr.get('system') or 'system'} ({outcome}):")
    return Translation(label=label, text=text, start=start, end=end, outcome=outcome)


def _marked(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``text`` with invisible characters made visible, and the span ``[start:end]`` moved to match (-1 when none)."""
    if not 0 <= start < end <= len(text):
        return curate_area.text(text), -1, -1
    before, word, after = (curate_area.text(part) for part in (text[:start], text[start:end], text[end:]))
    return before + word + after, len(before), len(before) + len(word)


#: How a suggestion's source is named on its row.
SOURCE_NAME = {sugg.TEAM: "the team's curation", sugg.RELATED: "a related sense", sugg.MT: "machine translation"}


def _miss_lines(reads: CardReads, t: Callable[[object], str]) -> list[MtLine]:
    """The machine translations of this item-language scored MISS in the newest evaluation (on every MISS item,
    not only when arriving from Evaluate); their words are the MT suggestions, reachable by the cursor."""
    found = reads.found
    if found is None:
        return []
    words = any(s.source == sugg.MT for s in found.suggestions)
    where = " Its words are among the suggestions below (f)." if words else ""
    return [MtLine(label=t(f"{system} (MISS):"), text=t(text) + where) for system, text in reads.miss_lines]


def _suggestions(found: suggestion_service.CardSuggestions | None, t: Callable[[object], str]) -> Suggestions:
    rows: list[protocol.SuggestionRow] = []
    for s in found.suggestions if found is not None else ():
        side: Literal["good", "bad", "move"] = (
            "move" if s.side == sugg.MOVE_TO_GOOD else "good" if s.side == sugg.GOOD else "bad"
        )
        where = {"good": "for GOOD", "bad": "for BAD", "move": "move from BAD to GOOD"}[side]
        source = SOURCE_NAME.get(s.source, s.source)
        relation = f" ({s.relation})" if s.relation and s.source != sugg.MT else ""
        rows.append({"key": s.key, "text": t(s.text), "side": side, "label": t(f"{where} · from {source}{relation}"),
                     "reason": t(s.reason)})  # fmt: skip
    return Suggestions(title=f"Suggestions ({len(rows)})", rows=rows)


def _lists(view: ItemView, t: Callable[[object], str], found: suggestion_service.CardSuggestions | None = None
           ) -> Lists:  # fmt: skip
    item, il = view.item, view.state
    reasons = {Side.GOOD: found.good_empty_reason if found else "", Side.BAD: found.bad_empty_reason if found else ""}
    lists: dict[str, CandidateList] = {}
    for side in (Side.GOOD, Side.BAD):
        other = Side.BAD if side is Side.GOOD else Side.GOOD
        rows: list[protocol.Row] = []
        for entry in il.side(side):
            line, tip = components.provenance(entry, item, il, side)
            text = t(entry.format())
            rows.append({"key": entry.key, "text": text, "line": t(line), "title": f"{text}\n{t(line)}\n{t(tip)}"})
        initial = il.initial_good if side is Side.GOOD else il.initial_bad
        name = components.SIDE_NAME[side]
        lists[side.value] = CandidateList(
            heading=f"{'✓' if side is Side.GOOD else '✗'} {name} ({len(rows)})",
            side=name,
            other=components.SIDE_NAME[other],
            rows=rows,
            removed=[t(e.format()) for e in initial if il.find(e.key) is None],
            empty=t(reasons[side]) if not rows else "",
        )
    return Lists(good=lists["good"], bad=lists["bad"])


def area_data(view: ItemView, user: User, place: Place, remembered: Remembered, reads: CardReads) -> AreaData:
    """Everything the element shows for one item-language, as ``curate_area.protocol.AreaData`` (text only: the
    script never parses markup). Invisible characters are made visible, as everywhere else."""
    item, il = view.item, view.state
    caps = caps_of(view, user)
    t = curate_area.text
    url = curate_area.synset_link(item.synset)
    delta, mu = item.polysemy_degree, item.sense_rank
    sense = [
        SensePart(text=f"lemma {item.target.lemma} · {item.target.pos} · synset ", link=None),
        SensePart(text=item.synset, link=url),
        SensePart(text=f" · δ(λ) = {delta if delta is not None else '?'} · μ(σ) = {mu if mu is not None else '?'}",
                  link=None),
    ]  # fmt: skip
    senses = [
        SenseLine(text=f"{s.rank}. {s.synset} — {s.gloss or '(no gloss)'}"
                       f"{'  ← this item (σ)' if s.synset == item.synset else ''}",
                  sigma=s.synset == item.synset)
        for s in item.senses
    ]  # fmt: skip
    open_status = il.status in workflow.OPEN
    undo_tip = _undo_tip(view, user, remembered)[1] if caps.undo else "Undo is not kept for a double-curation copy."
    why = _why_not(il, user, caps)  # what a key that cannot act says (x on a DISCUSS item)
    actions_data: dict[str, Action] = {
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
    good_example, bad_example = PLACEHOLDERS.get(il.lang.upper(), GENERIC_PLACEHOLDER)
    found = reads.found
    nav = place.nav
    return {
        "protocol": protocol.VERSION,
        "item": item.id,
        "lang": il.lang,
        "version": il.version,
        "editable": caps.edit,
        "locked": _locked(caps),
        "advance": remembered.advance,
        "nav": Nav(
            position=str(nav["position"]),
            progress=str(nav["progress"]),
            previous=bool(nav["previous"]),
            next=bool(nav["next"]),
        ),
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
            "notices": _notices(view, user, caps, remembered),
            "translation": _translation(item.id, il.lang, remembered.translation),
            "mt": _miss_lines(reads, t),
        },
        "actions": Actions(
            done=actions_data["done"],
            undo=actions_data["undo"],
            discuss=actions_data["discuss"],
            discard=actions_data["discard"],
            reopen=actions_data["reopen"],
        ),
        "lists": _lists(view, t, found),
        "suggestions": _suggestions(found, t),
        "placeholders": {"good": good_example, "bad": bad_example},
        "reasons": [{"value": r.value, "label": components.REASON_NAME[r]} for r in DiscardReason],
        "scope": place.prefix,
        "login": remembered.login,
        "check": remembered.check,
        "feedback": remembered.feedback,
        "ack": remembered.ack,
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
    """The DISCUSS note is in the card's notice; its copy in the thread is not shown a second time."""
    return il.status is Status.DISCUSS and comment.user == il.status_by and comment.text == il.discuss_note
