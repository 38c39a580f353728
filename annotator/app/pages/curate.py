"""Curate page: a translator works through the queue of one language, item by item (SPEC §5).

The sidebar holds the filters (language, queue, search); everything about the current item — the queue header,
the progress, the card, Done / DISCUSS / Discard / Undo, the GOOD/BAD lists and Add boxes, comments and history —
is one element, the work area (``annotator.app.work_area``, shared with Review and Double curation), in one fragment
(``item_area``). The element owns its DOM, focus and keys and sends typed events; each becomes one command run with
the version the element was drawn for, and only the fragment reruns; this page supplies the queue around it.
Per fragment run the page reads the user, the progress counts (from the
(lang, status) index) and one ``view()``; the queue (the ordered ids of the chosen language/status/search) is
read once per filter and kept in the session: next/previous cost nothing, and an item that leaves the queue
(Done, DISCUSS, Discard) is dropped from the kept list instead of re-reading it.
``?item=<id>&lang=<LANG>`` opens an item (the Evaluate page links MISS items here).
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from annotator.app import components, drafts, guards, messages, page_run, project_cache, resolve, session, work_area
from annotator.app.area_data import caps_of
from annotator.app.guidelines import guidelines_button
from annotator.domain import queue_navigation, workflow
from annotator.domain.commands import Address
from annotator.domain.languages import language_label
from annotator.domain.model import ItemLanguage, Status
from annotator.domain.queue_navigation import QueueCache
from annotator.errors import UserError
from annotator.project import Project
from annotator.services import read_model

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
#: Session key of the queue read once and kept for next/previous (a ``QueueCache``).
CACHE_KEY = "cur_queue_cache"
URL_SEEN_KEY = "cur_url_seen"
#: Filters and position kept for the user across reloads and tabs (see ``annotator.app.drafts``).
REMEMBERED_KEYS = (LANG_KEY, QUEUE_KEY, SEARCH_KEY, ADVANCE_KEY, ITEM_KEY, PINNED_KEY)
PROGRESS_TTL_S = 5.0
#: The main column's top padding on this page: the work area's own scroll margin (``.ca`` in
#: curate_area/assets/area.css).
WORK_AREA_TOP = "4rem"


def kept_queue() -> QueueCache | None:
    cached: QueueCache | None = st.session_state.get(CACHE_KEY)
    return cached


def load_queue(project: Project, lang: str, queue: str, search: str) -> list[str]:
    """The item ids of the queue, read once per (language, queue, search) and kept for next/previous."""
    wanted = (str(project.data_dir), lang, queue, search.strip())
    cached = kept_queue()
    if cached and cached.serves(*wanted):
        return cached.ids
    ids = read_model.queue_ids(project, lang, QUEUES[queue][1], search)
    st.session_state[CACHE_KEY] = QueueCache(*wanted, ids)
    return ids


def refresh_queue(_saved: ItemLanguage | None = None) -> None:
    """Forget the kept queue so the next run re-reads it (also an ``after`` callback: the saved state is unused)."""
    st.session_state.pop(CACHE_KEY, None)


def step(delta: int) -> None:
    """Move along the queue (button and shortcut callback)."""
    cached = kept_queue()
    target = queue_navigation.step(cached.ids if cached else [], st.session_state.get(ITEM_KEY), delta)
    if target is None:
        return
    st.session_state[ITEM_KEY] = target
    st.session_state[PINNED_KEY] = False


def _advance_after_status(saved: ItemLanguage) -> None:
    """After Done / DISCUSS / Discard the item leaves the queue: drop it from the kept list at once (the header and
    Next stop counting it; no re-read of the whole queue), then go to the item that followed it, or keep showing
    this one when auto-advance is off."""
    cached = kept_queue()
    ids: list[str] = cached.ids if cached else []
    current = st.session_state.get(ITEM_KEY)
    following = queue_navigation.following(ids, current)
    statuses = QUEUES[cached.queue][1] if cached else ()
    if cached and current in ids and statuses and saved.status not in statuses:
        st.session_state[CACHE_KEY] = cached._replace(ids=queue_navigation.without(ids, current))
    if st.session_state.get(ADVANCE_KEY) and following is not None:
        st.session_state[ITEM_KEY] = following
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
    st.session_state[QUEUE_KEY] = queue_holding(item, lang)
    st.session_state[SEARCH_KEY] = ""
    st.session_state[ITEM_KEY] = item
    st.session_state[PINNED_KEY] = True


def queue_holding(item: str, lang: str) -> str:
    """The narrowest queue the item opened by a link is in (To do, DISCUSS, Done, …): Next then goes on among items
    like it — after "Open in Curate" on the Evaluate page, the rest of that language's work — not through "All"."""
    project = project_cache.get_project()
    try:
        for name, (_label, statuses) in QUEUES.items():
            if statuses and item in read_model.queue_ids(project, lang, statuses, item):
                return name
    except UserError:  # an id no database can search for (a NUL): the card names what is wrong with it
        pass
    return "all"  # an id the language does not have: the card says so, the queue stays the widest


def _sync_url(item: str, lang: str) -> None:
    """Keep the address bar on the current item, so a reload or a shared link opens it again."""
    if st.query_params.get("item") != item or st.query_params.get("lang") != lang:
        st.query_params.update({"item": item, "lang": lang})
    st.session_state[URL_SEEN_KEY] = (item, lang)


def progress_counts(project: Project, lang: str) -> dict[str, int]:
    """Status counts of ``lang``, re-read at most every few seconds unless this session changed something.

    The read is cheap (the (lang, status) index), but a rerun need not even pay that: the session's own saved
    changes drop the cached counts (``project_cache.PROGRESS_KEY``), so they show at once.
    """
    cached: project_cache.ProgressCache | None = st.session_state.get(project_cache.PROGRESS_KEY)
    now = time.monotonic()
    if cached and cached.lang == lang and now - cached.read_at < PROGRESS_TTL_S:
        return cached.counts
    counts = read_model.progress_counts(project, lang)
    st.session_state[project_cache.PROGRESS_KEY] = project_cache.ProgressCache(lang, now, counts)
    return counts


def _progress_line(project: Project, lang: str) -> str:
    counts = progress_counts(project, lang)
    total = sum(counts.values())
    finished = sum(counts.get(s.value, 0) for s in workflow.FINISHED)
    parts = "".join(
        f" · {components.STATUS_LABEL[s]} {counts[s.value]}"
        for s in Status
        if s not in workflow.FINISHED and counts.get(s.value)
    )
    return f"{lang}: {finished} of {total} finished{parts}"


def render() -> None:
    project = project_cache.get_project()
    user = session.current_user()
    if user is None:
        st.stop()
    langs = session.curatable_languages(user, project.settings().languages)
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

    # the work area's top stays put from item to item: it scrolls itself 4rem below the window's top on each item,
    # which a page shorter than the window could not reach (the top then sat 3rem lower: a 49 px jump at 768 px)
    st.html(f"<style>.stMainBlockContainer {{ padding-top: {WORK_AREA_TOP}; }}</style>")
    with page_run.sidebar_controls():
        st.selectbox("Language", langs, key=LANG_KEY, format_func=language_label, persist_state="session")
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
@guards.guarded()
def item_area(owner: str) -> None:
    """The current item and everything done to it; reruns alone when the work area sends an event."""
    project = project_cache.get_project()
    user = session.current_user()  # checked again on every fragment run: an ended session stops here
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
    where = queue_navigation.position(ids, current)
    index = where.at
    messages.show_flash_messages(messages.take_flashes())  # a lead's Resolve form below reports through these
    if current is None:
        st.info(_where(ids, index, current, queue, lang, search), icon=":material/inbox:")
        return
    try:
        view = session.service(user).view(current, lang)
    except UserError as error:
        st.error(components.md(str(error)))
        return
    _sync_url(current, lang)
    prefix = f"cur|{current}|{lang}|"
    nav = {
        "position": _where(ids, index, current, queue, lang, search),
        "progress": _progress_line(project, lang),
        "previous": where.has_previous,
        "next": where.has_next,
        "advance_key": ADVANCE_KEY,
    }
    work_area.render(view, user, work_area.Place(Address(current, lang), prefix, nav, HOOKS))
    if caps_of(view, user).resolve:  # the domain's answer, as the work area's buttons have it
        resolve.render_resolve_form(view, prefix)
    drafts.remember(owner, REMEMBERED_KEYS)


def open_from_evaluate(item_id: str, lang: str, system: str, text: str, span: Any, outcome: str) -> None:
    """Called by the Evaluate page before it switches here: show that translation on the item's card."""
    st.session_state[work_area.EVAL_KEY] = {
        "item": item_id, "lang": lang, "system": system, "text": text, "span": span, "outcome": outcome,
    }  # fmt: skip


def _current() -> str | None:
    value = st.session_state.get(ITEM_KEY)
    return value if isinstance(value, str) else None


def _show(item_id: str) -> None:
    """Show ``item_id`` (the item an undo changed), pinned even when it has left the queue."""
    st.session_state[ITEM_KEY] = item_id
    st.session_state[PINNED_KEY] = True


#: What the Curate page does around the work area's changes.
HOOKS = work_area.Hooks(left=_advance_after_status, changed=refresh_queue, step=step, show=_show, current=_current)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
