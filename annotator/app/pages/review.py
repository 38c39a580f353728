"""Review page (leads): the DISCUSS queue across languages, the discarded list, progress (SPEC §5).

DISCUSS and discarded item-languages are few, so they are listed in full on each render; only the one item
the lead opened is read in detail (one ``view()``) and shown in the work area Curate uses (``work_area``); resolving
it and reopening a discarded one are commands run by the same action runner as every change.
"""

from __future__ import annotations

import functools
from typing import Any

import streamlit as st

from annotator.app import actions, components, guards, project_cache, resolve, session, work_area
from annotator.app.area_data import caps_of
from annotator.domain import commands, queue_navigation, throughput, workflow
from annotator.domain.capabilities import capabilities
from annotator.domain.commands import Address
from annotator.domain.model import ItemLanguage, Status
from annotator.errors import UserError
from annotator.project import Project
from annotator.services import read_model
from annotator.services.read_model import QueueEntry, ReviewState
from annotator.services.throughput import team_throughput, throughput_csv

DISCUSS_PICK = "rev_discuss_pick"
DISCARDED_PICK = "rev_discarded_pick"
TAB_KEY = "rev_tab"


def item_languages_in(project: Project, langs: tuple[str, ...], status: Status) -> list[tuple[QueueEntry, ReviewState]]:
    """Every item-language in ``status`` over ``langs``, in queue order, with its full state (notes, reasons)."""
    return read_model.review_list(project, langs, status)  # one query, not one per row


def _key(entry: QueueEntry) -> str:
    return f"{entry.item_id}\x1f{entry.lang}"


def _when(at: str | None) -> str:
    return (at or "")[:16].replace("T", " ")


def _pick(label: str, rows: list[tuple[QueueEntry, ReviewState]], key: str) -> tuple[QueueEntry, ReviewState]:
    by_key = {_key(entry): (entry, il) for entry, il in rows}
    if st.session_state.get(key) not in by_key:
        st.session_state[key] = next(iter(by_key))
    chosen = st.selectbox(
        label,
        list(by_key),
        key=key,
        format_func=lambda k: f"{by_key[k][0].item_id} [{by_key[k][0].lang}] — {by_key[k][0].lemma}",
    )
    return by_key[chosen]


def render_discuss(project: Project, langs: tuple[str, ...]) -> None:
    rows = item_languages_in(project, langs, Status.DISCUSS)
    if not rows:
        st.success("Nothing waiting for discussion.")
        return
    st.markdown(f"**{len(rows)}** item-language(s) flagged DISCUSS.")
    st.dataframe(
        [
            {
                "item": e.item_id,
                "lang": e.lang,
                "lemma": e.lemma,
                "POS": e.pos,
                "note": il.discuss_note,
                "flagged by": il.status_by,
                "last change (UTC)": _when(il.updated_at),
            }
            for e, il in rows
        ],
        hide_index=True,
        width="stretch",
    )
    entry, _il = _pick("Open", rows, DISCUSS_PICK)
    user = session.require_lead()  # Review is a lead's page: anyone else is stopped with a message
    try:
        view = session.service().view(entry.item_id, entry.lang)
    except UserError as error:
        st.error(components.md(str(error)))
        return
    keys = [_key(e) for e, _il in rows]
    where = queue_navigation.position(keys, _key(entry))
    nav = {
        "position": f"DISCUSS {where.at + 1} of {where.total} · {entry.item_id} [{entry.lang}]",
        "progress": "Edit the lists if needed, then resolve below.",
        "previous": where.has_previous,
        "next": where.has_next,
    }
    prefix = f"rev|{entry.item_id}|{entry.lang}|"
    hooks = work_area.Hooks(step=functools.partial(_step, keys), current=lambda: st.session_state.get(DISCUSS_PICK))
    work_area.render(view, user, work_area.Place(Address(entry.item_id, entry.lang), prefix, nav, hooks))
    if caps_of(view, user).resolve:  # the domain's answer, as the work area's buttons have it
        resolve.render_resolve_form(view, prefix)


def _step(keys: list[str], delta: int) -> None:
    """Next / Previous in the work area: the neighbouring DISCUSS item of the list."""
    target = queue_navigation.step(keys, st.session_state.get(DISCUSS_PICK), delta)
    if target is not None:
        st.session_state[DISCUSS_PICK] = target


def render_discarded(project: Project, langs: tuple[str, ...]) -> None:
    rows = item_languages_in(project, langs, Status.DISCARDED)
    if not rows:
        st.info("No discarded item-languages.")
        return
    st.markdown(f"**{len(rows)}** discarded item-language(s).")
    st.dataframe(
        [
            {
                "item": e.item_id,
                "lang": e.lang,
                "lemma": e.lemma,
                "reason": components.REASON_LABEL.get(il.discard_reason, "") if il.discard_reason else "",
                "note": il.discard_note,
                "by": il.status_by,
                "last change (UTC)": _when(il.updated_at),
            }
            for e, il in rows
        ],
        hide_index=True,
        width="stretch",
    )
    entry, il = _pick("Reopen one", rows, DISCARDED_PICK)
    st.markdown(components.sentence_html_from_entry(entry), unsafe_allow_html=True)
    may = capabilities(
        session.require_lead(), ItemLanguage(il.item_id, il.lang, il.status, il.version, status_by=il.status_by)
    )
    st.button(
        components.md(f"↺ Reopen {entry.item_id} [{entry.lang}]"),
        key="rev_reopen",
        disabled=not may.reopen,
        help=may.reopen_refused or None,
        on_click=actions.run_and_flash,
        args=(Address(entry.item_id, entry.lang), commands.Reopen(), il.version),
        kwargs={"success": f"Reopened {entry.item_id} [{entry.lang}]."},
    )


def progress_rows(counts: dict[str, dict[str, int]], langs: tuple[str, ...]) -> list[dict[str, Any]]:
    rows = []
    for lang in langs:
        by_status = counts.get(lang, {})
        total = sum(by_status.values())
        finished = sum(by_status.get(s.value, 0) for s in workflow.FINISHED)
        row: dict[str, Any] = {"lang": lang}
        row.update({components.STATUS_LABEL[s]: by_status.get(s.value, 0) for s in Status})
        row.update({"total": total, "finished": (100.0 * finished / total) if total else 0.0})
        rows.append(row)
    return rows


def translator_rows(by_user: list[tuple[str, str, str, int]]) -> list[dict[str, Any]]:
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for user, lang, status, count in by_user:
        row = table.setdefault(
            (user, lang), {"user": user, "lang": lang} | {components.STATUS_LABEL[s]: 0 for s in Status}
        )
        row[components.STATUS_LABEL[Status(status)]] += count
    return [table[k] for k in sorted(table)]


def render_progress(project: Project, langs: tuple[str, ...]) -> None:
    counts, by_user = read_model.status_counts_with_users(project)
    st.markdown("**Per language** (excluded items left out)")
    st.dataframe(
        progress_rows(counts, langs),
        hide_index=True,
        width="stretch",
        column_config={
            "finished": st.column_config.ProgressColumn("finished", format="%.0f%%", min_value=0, max_value=100)
        },
    )
    st.markdown("**Per translator** (by who last set each item-language's status)")
    rows = translator_rows(by_user)
    if rows:
        st.dataframe(rows, hide_index=True, width="stretch")
    else:
        st.caption("Nobody has set a status yet.")
    render_throughput(project)


def throughput_rows(figures: throughput.Throughput) -> list[dict[str, Any]]:
    """One row per translator and language, then the team's (``all``) per language and in total."""
    return [
        {
            "translator": "all" if row.user == throughput.ALL else row.user,
            "lang": "all" if row.lang == throughput.ALL else row.lang,
            "done today": row.done_today,
            "done this week": row.done_week,
            "median time per item": throughput.format_seconds(row.median_seconds),
            "items timed": row.measured,
        }
        for row in (*figures.rows, *figures.team)
    ]


def render_throughput(project: Project) -> None:
    """This week's pace from the history (how time per item is measured: ``annotator.domain.throughput``)."""
    user = session.require_lead()  # Review is a lead's page: anyone else is stopped with a message
    figures = team_throughput(project, user)
    st.markdown(
        f"**Throughput** (week from {figures.week_start:%a %d %b}, UTC) · team rate "
        f"**{figures.rate():.1f} items/day** over {figures.days} day(s)"
        + (f" (from the week's first change, {figures.since:%a %d %b})" if figures.since else "")
    )
    if not figures.rows:
        st.caption("Nobody has marked an item done this week.")
        return
    st.dataframe(throughput_rows(figures), hide_index=True, width="stretch")
    st.caption(
        "Done: items marked Done (an undone Done is not counted). Time per item: from the translator's previous "
        f"change on another item to this item's Done, within a work session (changes at most "
        f"{throughput.SESSION_GAP_S // 60} minutes apart: longer breaks are not counted); the first item of a session "
        "counts from its first change. Items timed: how many Done items the median is taken over."
    )
    st.download_button(
        "Download throughput (CSV)",
        data=guards.guarded_file(lambda: throughput_csv(figures), lead=True),  # made on the click, if still a lead
        file_name="throughput.csv",
        mime="text/csv",
        key="rev_throughput_csv",
        on_click="ignore",  # a download needs no rerun (see pages/dataset.py, DEFERRED_CLICK)
        icon=":material/download:",
    )


def render() -> None:
    session.require_lead()
    project = project_cache.get_project()
    langs = project.settings().languages
    st.header("Review")
    # only the open tab is built: progress per translator scans every item-language, the others need not
    discuss, discarded, progress = st.tabs(["DISCUSS queue", "Discarded", "Progress"], key=TAB_KEY, on_change="rerun")
    if discuss.open:
        with discuss:
            render_discuss(project, langs)
    if discarded.open:
        with discarded:
            render_discarded(project, langs)
    if progress.open:
        with progress:
            render_progress(project, langs)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
