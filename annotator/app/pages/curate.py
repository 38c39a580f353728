"""Curate page: a translator works through the queue of one language, item by item (SPEC §5).

The sidebar holds the filters (language, queue, search); everything about the current item — the queue header,
the progress, the card, Done / DISCUSS / Discard / Undo, the GOOD/BAD lists and Add boxes, comments and history —
is one element, the work area (``annotator.app.curate_area``, issue 21), in one fragment (``item_area``). The
element owns its DOM, focus and keys and sends typed events; ``on_event`` turns each into one service call (bound
methods of ``CurationService``) with the version the element was drawn for, and only the fragment reruns.
Per fragment run the page reads the user, the progress counts (from the
(lang, status) index) and one ``view()``; the queue (the ordered ids of the chosen language/status/search) is
read once per filter and kept in the session: next/previous cost nothing, and an item that leaves the queue
(Done, DISCUSS, Discard) is dropped from the kept list instead of re-reading it.
``?item=<id>&lang=<LANG>`` opens an item (the Evaluate page links MISS items here).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from annotator.app import components, curate_area, drafts, state
from annotator.app.curate_area import Event
from annotator.app.guidelines import guidelines_button
from annotator.domain import hints, undo
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.model import CandidateEntry, DiscardReason, ItemLanguage, Side, Status, User
from annotator.errors import ConflictError, DatabaseUnavailableError, UserError
from annotator.project import Project
from annotator.services import read_model
from annotator.services.curation import CurationService, ItemView

#: Queue name -> (label, statuses it shows; empty = all).
QUEUES: dict[str, tuple[str, tuple[Status, ...]]] = {
    "todo": ("To do (pending + in progress)", (Status.PENDING, Status.IN_PROGRESS)),
    "pending": ("Pending", (Status.PENDING,)),
    "in_progress": ("In progress", (Status.IN_PROGRESS,)),
    "discuss": ("DISCUSS", (Status.DISCUSS,)),
    "discarded": ("Discarded", (Status.DISCARDED,)),
    "done": ("Done", (Status.DONE,)),
    "all": ("All", ()),
}
LANG_KEY = "cur_lang"
QUEUE_KEY = "cur_queue"
SEARCH_KEY = "cur_search"
ADVANCE_KEY = "cur_advance"
ITEM_KEY = "cur_item"
PINNED_KEY = "cur_pinned"
CACHE_KEY = "cur_queue_cache"
URL_SEEN_KEY = "cur_url_seen"
#: Filters and position kept for the user across reloads and tabs (see ``annotator.app.drafts``).
REMEMBERED_KEYS = (LANG_KEY, QUEUE_KEY, SEARCH_KEY, ADVANCE_KEY, ITEM_KEY, PINNED_KEY)
PROGRESS_TTL_S = 5.0
#: Session keys of the work area: the feedback of the last event, the last event's id (the element's acknowledgement),
#: the check of the text last typed in an Add box, what the element shows (item, lang, version, status), the item just
#: left by Done / DISCUSS / Discard (what ``u`` undoes there), and the Evaluate translation it was opened from.
FEEDBACK_KEY = "cur_area_feedback"
ACK_KEY = "cur_area_ack"
CHECK_KEY = "cur_area_check"
SHOWN_KEY = "cur_area_shown"
LEFT_KEY = "cur_area_left"
EVAL_KEY = "cur_eval_translation"
#: Examples in the Add boxes, in the language being curated (a German box never shows Italian).
PLACEHOLDERS = {
    "IT": "goccio · prendersi * permesso · [sparare]_VERB",
    "DE": "Schluck · sich * freinehmen · [schießen]_VERB",
    "ES": "trago · tomarse * libre · [disparar]_VERB",
    "FR": "gorgée · prendre * congé · [tirer]_VERB",
    "PT": "gole · tirar * folga · [atirar]_VERB",
    "RU": "глоток · взять * отгул · [стрелять]_VERB",
    "ZH": "一口 · 请 * 假 · [射击]_VERB",
}
GENERIC_PLACEHOLDER = "a word · a multiword · word * word · [word]_VERB"


def load_queue(project: Project, lang: str, queue: str, search: str) -> list[str]:
    """The item ids of the queue, read once per (language, queue, search) and kept for next/previous."""
    key = (str(project.data_dir), lang, queue, search.strip())
    cached = st.session_state.get(CACHE_KEY)
    if cached and cached[0] == key:
        return cached[1]
    ids = read_model.queue_ids(project, lang, QUEUES[queue][1], search)
    st.session_state[CACHE_KEY] = (key, ids)
    return ids


def refresh_queue(_saved: object = None) -> None:
    """Forget the kept queue so the next run re-reads it (also an ``after`` callback: the saved state is unused)."""
    st.session_state.pop(CACHE_KEY, None)


def step(delta: int) -> None:
    """Move along the queue (button and shortcut callback)."""
    cached = st.session_state.get(CACHE_KEY)
    ids: list[str] = cached[1] if cached else []
    if not ids:
        return
    current = st.session_state.get(ITEM_KEY)
    index = min(max(ids.index(current) + delta, 0), len(ids) - 1) if current in ids else 0
    st.session_state[ITEM_KEY] = ids[index]
    st.session_state[PINNED_KEY] = False


def _advance_after_status(saved: ItemLanguage) -> None:
    """After Done / DISCUSS / Discard the item leaves the queue: drop it from the kept list at once (the header and
    Next stop counting it; no re-read of the whole queue), then go to the item that followed it, or keep showing
    this one when auto-advance is off."""
    cached = st.session_state.get(CACHE_KEY)
    ids: list[str] = cached[1] if cached else []
    current = st.session_state.get(ITEM_KEY)
    following = ids[ids.index(current) + 1 :] if current in ids else []
    statuses = QUEUES[cached[0][2]][1] if cached else ()
    if cached and current in ids and statuses and saved.status not in statuses:
        st.session_state[CACHE_KEY] = (cached[0], [item_id for item_id in ids if item_id != current])
    if st.session_state.get(ADVANCE_KEY) and following:
        st.session_state[ITEM_KEY] = following[0]
        st.session_state[PINNED_KEY] = False
    else:
        st.session_state[PINNED_KEY] = True


def _open_from_url(langs: list[str]) -> None:
    """Honour ``?item=&lang=`` when it is new (a link or a reload), not when it only echoes our own position."""
    item = st.query_params.get("item")
    if not item:
        return
    lang = (st.query_params.get("lang") or st.session_state.get(LANG_KEY) or langs[0]).upper()
    if (item, lang) == st.session_state.get(URL_SEEN_KEY):
        return
    st.session_state[URL_SEEN_KEY] = (item, lang)
    if (item, lang) == (st.session_state.get(ITEM_KEY), st.session_state.get(LANG_KEY)):
        st.session_state[PINNED_KEY] = True  # a reload of the remembered item: keep the user's filters
        return
    if lang not in langs:
        st.error(f"You may not curate {components.md(lang)} items (your languages: {components.md(', '.join(langs))}).")
        return
    st.session_state[LANG_KEY] = lang
    st.session_state[QUEUE_KEY] = "all"
    st.session_state[SEARCH_KEY] = ""
    st.session_state[ITEM_KEY] = item
    st.session_state[PINNED_KEY] = True


def _sync_url(item: str, lang: str) -> None:
    """Keep the address bar on the current item, so a reload or a shared link opens it again."""
    if st.query_params.get("item") != item or st.query_params.get("lang") != lang:
        st.query_params.update({"item": item, "lang": lang})
    st.session_state[URL_SEEN_KEY] = (item, lang)


def progress_counts(project: Project, lang: str) -> dict[str, int]:
    """Status counts of ``lang``, re-read at most every few seconds unless this session changed something.

    The read is cheap (the (lang, status) index), but a rerun need not even pay that: the session's own saved
    changes drop the cached counts (``state.PROGRESS_KEY``), so they show at once.
    """
    cached = st.session_state.get(state.PROGRESS_KEY)
    now = time.monotonic()
    if cached and cached[0] == lang and now - cached[1] < PROGRESS_TTL_S:
        return cached[2]
    counts = read_model.progress_counts(project, lang)
    st.session_state[state.PROGRESS_KEY] = (lang, now, counts)
    return counts


def _progress_line(project: Project, lang: str) -> str:
    counts = progress_counts(project, lang)
    total = sum(counts.values())
    finished = counts.get(Status.DONE.value, 0) + counts.get(Status.DISCARDED.value, 0)
    parts = "".join(
        f" · {components.STATUS_LABEL[s]} {counts[s.value]}"
        for s in Status
        if s not in (Status.DONE, Status.DISCARDED) and counts.get(s.value)
    )
    return f"{lang}: {finished} of {total} finished{parts}"


def render() -> None:
    project = state.get_project()
    user = state.current_user()
    if user is None:
        st.stop()
    langs = state.curatable_languages(user, project.settings().languages)
    if not langs:
        st.warning("You have no languages to curate. Ask a lead to add one to your account.")
        return
    owner = drafts.owner(project, user)
    drafts.restore(owner, REMEMBERED_KEYS)
    _open_from_url(langs)
    if st.session_state.get(LANG_KEY) not in langs:
        st.session_state[LANG_KEY] = langs[0]
    if st.session_state.get(QUEUE_KEY) not in QUEUES:
        st.session_state[QUEUE_KEY] = "todo"

    with st.sidebar:
        st.selectbox("Language", langs, key=LANG_KEY, persist_state="session")
        st.selectbox("Queue", list(QUEUES), format_func=lambda q: QUEUES[q][0], key=QUEUE_KEY, persist_state="session")
        st.text_input("Search", key=SEARCH_KEY, type="search", placeholder="lemma, word or id", persist_state="session")
        st.button("↻ Refresh queue", on_click=refresh_queue, help="Re-read the queue (others may have changed it).")
        guidelines_button("cur_guidelines")
    drafts.remember(owner, REMEMBERED_KEYS[:3])
    item_area(owner)


def _where(ids: list[str], index: int, current: str | None, queue: str, lang: str, search: str) -> str:
    label = QUEUES[queue][0]
    if current is None:
        return f"No items in “{label}” for {lang}" + (f" matching “{search}”" if search else "")
    if index >= 0:
        return f"Item {index + 1} of {len(ids)} · {label} · {lang}"
    return f"{current} (not in the “{label}” queue) · {lang}"


@st.fragment
@state.guarded()
@components.database_faults_shown
def item_area(owner: str) -> None:
    """The current item and everything done to it; reruns alone when the work area sends an event."""
    project = state.get_project()
    user = state.current_user()  # checked again on every fragment run: an ended session stops here
    if user is None:
        st.rerun(scope="app")
        return
    lang = st.session_state[LANG_KEY]
    queue = st.session_state[QUEUE_KEY]
    search = st.session_state.get(SEARCH_KEY) or ""
    ids = load_queue(project, lang, queue, search)
    current = st.session_state.get(ITEM_KEY)
    if current is None or (current not in ids and not st.session_state.get(PINNED_KEY)):
        current = ids[0] if ids else None
        st.session_state[ITEM_KEY] = current
        st.session_state[PINNED_KEY] = False
    index = ids.index(current) if current in ids else -1
    state.show_flash_messages(state.take_flashes())  # a lead's Resolve form below reports through these
    if current is None:
        st.info(_where(ids, index, current, queue, lang, search), icon=":material/inbox:")
        return
    try:
        view = state.service(user).view(current, lang)
    except UserError as error:
        st.error(components.md(str(error)))
        return
    _sync_url(current, lang)
    prefix = f"cur|{current}|{lang}|"
    draft_keys = components.draft_keys(prefix)
    drafts.restore(owner, draft_keys)
    nav = {
        "position": _where(ids, index, current, queue, lang, search),
        "progress": _progress_line(project, lang),
        "previous": index > 0,
        "next": bool(ids) and index < len(ids) - 1,
    }
    st.session_state[SHOWN_KEY] = (current, lang, view.state.version, view.state.status)
    curate_area.render(area_data(view, user, nav, prefix), on_event)
    if view.state.status is Status.DISCUSS and user.is_lead:
        components.render_resolve_form(view, prefix)
    drafts.remember(owner, (*draft_keys, *REMEMBERED_KEYS))


# --- what the element shows ------------------------------------------------------------------------------------


def _may_reopen(user: User, il: ItemLanguage) -> bool:
    """Mirrors ``workflow.reopen``: a done item by its curator or a lead, a discarded one by a lead."""
    if not user.may_edit(il.lang):
        return False
    if il.status is Status.DONE:
        return user.is_lead or il.status_by == user.name
    return il.status is Status.DISCARDED and user.is_lead


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


def _notices(view: ItemView, user: User) -> list[list[str]]:
    il = view.state
    notices = [["warning", f"Overlap: {note}"] for note in il.overlaps]
    if view.item.filter_failures:
        notices.append(["info", "Selection filters: " + "; ".join(view.item.filter_failures)])
    if il.status is Status.DISCUSS:
        who = il.status_by or "?"
        notices.append(["warning", f"DISCUSS ({who}): {il.discuss_note}" if il.discuss_note else f"DISCUSS ({who})"])
        if not user.is_lead:
            notices.append(["info", "A lead will resolve it; you can add to the comments below."])
    if il.status is Status.DISCARDED:
        reason = components.REASON_NAME.get(il.discard_reason, "?") if il.discard_reason else "?"
        note = f" — {il.discard_note}" if il.discard_note else ""
        notices.append(["error", f"Discarded by {il.status_by or '?'}: {reason}{note}"])
    if il.status in (Status.DONE, Status.DISCARDED):
        label = components.STATUS_LABEL[il.status]
        if _may_reopen(user, il):
            notices.append(["info", f"This item is {label}. To change it, reopen it (Reopen, or the o key)."])
        else:
            may_undo, _tip = _undo_tip(view, user)
            extra = " Undo (u) takes back your own last change on it." if may_undo else ""
            notices.append(["info", f"This item is {label}; only a lead may reopen it.{extra}"])
    elif not user.may_edit(il.lang):
        notices.append(["info", f"You may not change {il.lang} items."])
    return notices


def _translation(item_id: str, lang: str) -> dict[str, Any] | None:
    """The machine translation an Evaluate MISS/BAD opened this item from, with its match marked."""
    shown = st.session_state.get(EVAL_KEY)
    if not isinstance(shown, dict) or (shown.get("item"), shown.get("lang")) != (item_id, lang):
        return None
    span = shown.get("span")
    ok = isinstance(span, (list, tuple)) and len(span) == 2 and all(type(n) is int for n in span)
    first, last = (span[0], span[1]) if ok and span is not None else (-1, -1)
    text, start, end = _marked(str(shown.get("text") or ""), first, last)
    outcome = str(shown.get("outcome") or "")
    return {
        "label": curate_area.text(f"{shown.get('system') or 'system'} ({outcome}):"),
        "text": text,
        "start": start,
        "end": end,
        "outcome": outcome,
    }


def open_from_evaluate(item_id: str, lang: str, system: str, text: str, span: Any, outcome: str) -> None:
    """Called by the Evaluate page before it switches here: show that translation on the item's card."""
    st.session_state[EVAL_KEY] = {
        "item": item_id, "lang": lang, "system": system, "text": text, "span": span, "outcome": outcome,
    }  # fmt: skip


def _marked(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``text`` with invisible characters made visible, and the span ``[start:end]`` moved to match (-1 when none)."""
    if not 0 <= start < end <= len(text):
        return curate_area.text(text), -1, -1
    before, word, after = (curate_area.text(part) for part in (text[:start], text[start:end], text[end:]))
    return before + word + after, len(before), len(before) + len(word)


def area_data(view: ItemView, user: User, nav: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Everything the element shows for one item-language, as JSON-ready data (text only: the script never parses
    markup). Invisible characters in candidates are made visible, as everywhere else."""
    item, il = view.item, view.state
    editable = components.can_edit_candidates(user, il)
    t = curate_area.text
    lists = {}
    for side in (Side.GOOD, Side.BAD):
        other = Side.BAD if side is Side.GOOD else Side.GOOD
        rows = []
        for entry in il.side(side):
            line, tip = components.provenance(entry, item, il, side)
            rows.append([entry.key, t(entry.format()), t(line), t(f"{entry.format()}\n{line}\n{tip}")])
        initial = il.initial_good if side is Side.GOOD else il.initial_bad
        name = components.SIDE_NAME[side]
        lists[side.value] = {
            "heading": f"{'✓' if side is Side.GOOD else '✗'} {name} ({len(rows)})",
            "side": name,
            "other": components.SIDE_NAME[other],
            "rows": rows,
            "removed": [t(e.format()) for e in initial if il.find(e.key) is None],
        }
    url = curate_area.synset_link(item.synset)
    delta, mu = item.polysemy_degree, item.sense_rank
    sense = [
        [f"lemma {item.target.lemma} · {item.target.pos} · synset ", None],
        [item.synset, url],
        [f" · δ(λ) = {delta if delta is not None else '?'} · μ(σ) = {mu if mu is not None else '?'}", None],
    ]
    senses = [
        [f"{s.rank}. {s.synset} — {s.gloss or '(no gloss)'}{'  ← this item (σ)' if s.synset == item.synset else ''}",
         s.synset == item.synset]
        for s in item.senses
    ]  # fmt: skip
    may_edit = user.may_edit(il.lang)
    open_status = il.status in (Status.PENDING, Status.IN_PROGRESS)
    _undo_ok, undo_tip = _undo_tip(view, user)
    actions = {
        "done": {"shown": open_status, "enabled": may_edit and open_status,
                 "tip": "Save this item-language as curated (needs at least one GOOD candidate). (d)"},
        "undo": {"shown": may_edit, "enabled": may_edit, "tip": undo_tip},
        "discuss": {"shown": open_status, "enabled": may_edit and open_status, "tip": "Ask a lead (s)"},
        "discard": {"shown": open_status, "enabled": may_edit and open_status, "tip": "Discard with a reason (x)"},
        "reopen": {"shown": _may_reopen(user, il), "enabled": _may_reopen(user, il),
                   "tip": "Reopen to change it; it returns to the to-do queue. (o)"},
    }  # fmt: skip
    source = f" · source {item.source}" if item.source else ""
    comments = view.comments
    sentence, start, end = _marked(item.sentence, item.target.start, item.target.end)
    shown_check = st.session_state.get(CHECK_KEY)
    check = shown_check if isinstance(shown_check, dict) and shown_check.get("prefix") == prefix else None
    feedback = st.session_state.pop(FEEDBACK_KEY, None)
    return {
        "item": item.id,
        "lang": il.lang,
        "version": il.version,
        "editable": editable,
        "locked": _locked_reason(user, il),
        "advance": bool(st.session_state.get(ADVANCE_KEY)),
        "nav": nav,
        "card": {
            "title": t(f"{item.id} · {il.lang}{source}"),
            "status": il.status.value,
            "status_label": components.STATUS_LABEL[il.status],
            "sentence": sentence,
            "start": start,
            "end": end,
            "sense": [[t(text), link] for text, link in sense],
            "gloss": t(item.gloss),
            "senses_title": t(f"All {len(item.senses)} senses of “{item.target.lemma}” ({item.target.pos})"),
            "senses": [[t(text), sigma] for text, sigma in senses],
            "notices": [[kind, t(text)] for kind, text in _notices(view, user)],
            "translation": _translation(item.id, il.lang),
        },
        "actions": actions,
        "lists": lists,
        "placeholder": PLACEHOLDERS.get(il.lang.upper(), GENERIC_PLACEHOLDER),
        "reasons": [[r.value, components.REASON_NAME[r]] for r in DiscardReason],
        "drafts": {
            name: str(st.session_state.get(prefix + suffix) or "") for name, suffix in curate_area.DRAFT_FIELDS.items()
        },
        "check": check,
        "feedback": feedback,
        "ack": st.session_state.get(ACK_KEY),
        "comments": {
            "title": f"Comments ({len(comments)})",
            "rows": [[t(c.user), c.at[:16].replace("T", " ") + " UTC", t(c.text)] for c in comments],
            "may_post": may_edit,
            "open": il.status is Status.DISCUSS,
        },
        "history": {
            "title": f"History ({len(view.history)})",
            "rows": [
                [h.at[:19].replace("T", " "), t(h.user), h.action, t(components.history_detail(h)), h.version]
                for h in reversed(view.history)
            ],
        },
    }


def _locked_reason(user: User, il: ItemLanguage) -> str:
    if not user.may_edit(il.lang):
        return f"You may not change {il.lang} items."
    if il.status in (Status.DONE, Status.DISCARDED):
        label = components.STATUS_LABEL[il.status]
        return f"This item is {label}: " + (
            "reopen it (o) to edit." if _may_reopen(user, il) else "only a lead may reopen it."
        )
    if il.status is Status.DISCUSS and not user.is_lead and il.status_by != user.name:
        return "Waiting for a lead (DISCUSS): only a lead can change it now."
    return ""


# --- what the element sends --------------------------------------------------------------------------------------


def _say(kind: str, text: str, where: str, focus: str | None = None, **extra: Any) -> None:
    """The feedback of one event, shown by the element where the eyes are (``where``), then focus ``focus``."""
    shown = curate_area.text(text)  # it quotes what people typed: invisible characters made visible
    st.session_state[FEEDBACK_KEY] = {
        "id": f"{time.time_ns()}", "kind": kind, "text": shown, "where": where, "focus": focus or where, **extra,
    }  # fmt: skip


def _refusal(error: UserError | CandidateError, user: User) -> str:
    if isinstance(error, ConflictError):
        return f"Not saved — conflict. {error}"
    if isinstance(error, CandidateError):
        return components.candidate_error_message(error, user.is_lead)
    return str(error)


def _save(
    user: User,
    event: Event,
    call: Callable[[], ItemLanguage],
    success: str | Callable[[ItemLanguage], str],
    where: str,
    focus: str | None = None,
    after: Callable[[ItemLanguage], None] | None = None,
    **extra: Any,
) -> ItemLanguage | None:
    """Make one service call; say what happened where the user looks. A refusal keeps what they typed."""
    try:
        saved = call()
    except DatabaseUnavailableError as error:  # said with what became of the change, by the page's fault wrapper
        components.say_database_fault(error)
        _say("error", error.unsaved_message, where, focus)
        return None
    except (UserError, CandidateError) as error:
        _say("error", _refusal(error, user), where, focus)
        if isinstance(error, ConflictError):
            refresh_queue()
        return None
    shown = st.session_state.get(SHOWN_KEY)
    components.moved_progress(shown[3] if shown and shown[2] == event.version else None, saved)
    _say("success", success(saved) if callable(success) else success, where, focus, **extra)
    if after is not None:
        after(saved)
    return saved


def _left_behind(event: Event, action: str) -> Callable[[ItemLanguage], None]:
    """After Done / DISCUSS / Discard: note the item just left (``u`` on the next item undoes there), then advance."""

    def after(saved: ItemLanguage) -> None:
        _advance_after_status(saved)
        moved = st.session_state.get(ITEM_KEY) != event.item
        st.session_state[LEFT_KEY] = (event.item, saved.version, event.lang, action) if moved else None
        if moved:
            feedback = st.session_state.get(FEEDBACK_KEY)
            if feedback:
                feedback["where"], feedback["focus"] = "card", "first"

    return after


def _clear_draft(event: Event, name: str) -> None:
    st.session_state[f"cur|{event.item}|{event.lang}|{curate_area.DRAFT_FIELDS[name]}"] = ""


def _on_add(service: CurationService, user: User, event: Event) -> None:
    to = event.side
    if to is None:  # parse_event gives every add a side; a page bug, not the user's
        raise ValueError(f"an add event without a side: {event!r}")
    name = to.value
    side = components.SIDE_NAME[to]
    if not event.text.strip():
        _say("error", f"Type a candidate to add to {side}.", name)
        return
    many = event.type == "add_many"
    lines = event.text.splitlines()
    if many:
        count = sum(1 for line in lines if line.strip())
        saved = _save(
            user, event, lambda: service.add_candidates(event.item, event.lang, to, lines, event.version),
            f"Added {count} candidates to {side}.", name, clear={"field": f"bulk_{name}", "text": event.text},
        )  # fmt: skip
    else:
        saved = _save(
            user, event, lambda: service.add_candidate(event.item, event.lang, to, event.text, event.version),
            lambda s: f"Added {s.side(to)[-1].format()} to {side}.", name,
            clear={"field": name, "text": event.text},
        )  # fmt: skip
    if saved is not None:
        _clear_draft(event, name)
        st.session_state.pop(CHECK_KEY, None)


def _on_row(service: CurationService, user: User, event: Event) -> None:
    shown = service.view(event.item, event.lang).state  # only to name the candidate in the message
    found = shown.find(event.key)
    name = found[1].format() if found else event.key
    where = found[0].value if found else "card"
    if event.type == "move":
        to = (Side.BAD if found[0] is Side.GOOD else Side.GOOD) if found else Side.GOOD
        _save(
            user, event, lambda: service.move_candidate(event.item, event.lang, event.key, to, event.version),
            f"Moved {name} to {components.SIDE_NAME[to]}.", where, "cursor",
        )  # fmt: skip
    else:
        _save(
            user, event, lambda: service.remove_candidate(event.item, event.lang, event.key, event.version),
            f"Removed {name} from {components.SIDE_NAME[found[0]] if found else 'the lists'}.", where, "cursor",
        )  # fmt: skip


def _on_done(service: CurationService, user: User, event: Event) -> None:
    _save(
        user, event, lambda: service.mark_done(event.item, event.lang, event.version),
        f"Marked {event.item} done. Undo (u) takes it back.", "card", "first", after=_left_behind(event, "Done"),
    )  # fmt: skip


def _on_discuss(service: CurationService, user: User, event: Event) -> None:
    if not event.text.strip():  # the service refuses it too; saying so here avoids a pointless round trip
        _say("error", "DISCUSS needs a note saying what a lead should look at.", "discuss")
        return
    if _save(
        user, event, lambda: service.flag_discuss(event.item, event.lang, event.text, event.version),
        f"Flagged {event.item} DISCUSS for a lead.", "card", "first", after=_left_behind(event, "DISCUSS flag"),
        close="discuss",
    ):  # fmt: skip
        _clear_draft(event, "discuss")


def _on_discard(service: CurationService, user: User, event: Event) -> None:
    reason = DiscardReason(event.reason) if event.reason else None
    note = f" — {event.text.strip()}" if event.text.strip() else ""
    if _save(
        user, event, lambda: service.discard(event.item, event.lang, reason, event.text, event.version),
        f"Discarded {event.item}: {components.REASON_NAME[reason] if reason else ''}{note}. Undo (u) takes it back.",
        "card", "first", after=_left_behind(event, "Discard"), close="discard",
    ):  # fmt: skip
        _clear_draft(event, "discard_note")
        _clear_draft(event, "discard_reason")


def _on_reopen(service: CurationService, user: User, event: Event) -> None:
    _save(
        user, event, lambda: service.reopen(event.item, event.lang, event.version),
        f"Reopened {event.item}: edit it, then Done.", "card", "first", after=refresh_queue,
    )  # fmt: skip


def _on_undo(service: CurationService, user: User, event: Event) -> None:
    left = st.session_state.pop(LEFT_KEY, None)
    item, lang, version = event.item, event.lang, event.version
    if left and left[2] == event.lang:  # u right after leaving an item by Done / DISCUSS / Discard: undo there
        item, version = left[0], left[1]
    try:
        view = service.view(item, lang)
        message = undo.outcome(undo.plan_undo(user, view.state, view.history), view.history)
    except UserError as error:
        _say("error", str(error), "card", "first")
        return

    def back(_saved: ItemLanguage) -> None:
        refresh_queue()
        if item != event.item:  # show the item the undo changed
            st.session_state[ITEM_KEY] = item
            st.session_state[PINNED_KEY] = True

    _save(user, event, lambda: service.undo(item, lang, version), message, "card", "first", after=back)


def _on_step(_service: CurationService, _user: User, event: Event) -> None:
    st.session_state[LEFT_KEY] = None
    step(+1 if event.type == "next" else -1)
    _say("info", "", "card", "first")


def _on_comment(service: CurationService, user: User, event: Event) -> None:
    try:
        service.comment(event.item, event.lang, event.text)
    except UserError as error:
        _say("error", str(error), "comment")
        return
    _clear_draft(event, "comment")
    _say("success", "Comment added.", "comment", clear={"field": "comment", "text": event.text})


def _on_draft(service: CurationService, user: User, event: Event) -> None:
    """Keep what is typed (a reload brings it back); for an Add box, check it and say what it would add."""
    prefix = f"cur|{event.item}|{event.lang}|"
    st.session_state[prefix + curate_area.DRAFT_FIELDS[event.field]] = event.text
    if event.field not in ("good", "bad") or not event.text.strip():
        return
    st.session_state[CHECK_KEY] = {
        "prefix": prefix,
        "side": event.field,
        "text": event.text,
        **_check(service, user, event),
    }


def _check(service: CurationService, user: User, event: Event) -> dict[str, str]:
    view = service.view(event.item, event.lang)
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


def _on_advance(_service: CurationService, _user: User, event: Event) -> None:
    st.session_state[ADVANCE_KEY] = event.on  # remembered for the user's next session with the filters


Handler = Callable[[CurationService, User, Event], None]
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
    if user is None:
        return
    if (event.item, event.lang) != (st.session_state.get(ITEM_KEY), st.session_state.get(LANG_KEY)):
        _say("info", "The page had moved on to another item; nothing was changed.", "card", "first")
        return
    if event.type not in ("undo", "draft", "advance"):
        st.session_state[LEFT_KEY] = None  # u undoes on the item just left only right after leaving it
    HANDLERS[event.type](state.service(user), user, event)


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
    if event is None or not event.text:
        return
    field = event.field or (event.side.value if event.side is not None else "")
    if field in curate_area.DRAFT_FIELDS:
        st.session_state[f"cur|{event.item}|{event.lang}|{curate_area.DRAFT_FIELDS[field]}"] = event.text


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
