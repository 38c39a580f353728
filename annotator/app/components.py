"""Pieces the Curate and Review pages share: the item card, the GOOD/BAD editor, status actions, history.

Every button runs a widget callback that makes exactly one ``CurationService`` call with the version the page
showed, so a stale page is refused by the service (SPEC §9) instead of overwriting someone else's work; the
outcome is left as a flash message because callbacks run before the page is drawn again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Literal, ParamSpec

import streamlit as st

from annotator.app import candidate_rows, failures, safe_text, state
from annotator.app.safe_text import code, md, synset_md
from annotator.domain import workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    HistoryEntry,
    Item,
    ItemLanguage,
    Origin,
    Side,
    Status,
    User,
)
from annotator.domain.undo import BEFORE_KEY
from annotator.errors import ConflictError, DatabaseUnavailableError, RowProblemsError, UserError
from annotator.services.curation import CurationService, ItemView
from annotator.services.read_model import QueueEntry

STATUS_LABEL = {
    Status.PENDING: "pending",
    Status.IN_PROGRESS: "in progress",
    Status.DONE: "done",
    Status.DISCUSS: "DISCUSS",
    Status.DISCARDED: "discarded",
}
BadgeColor = Literal["red", "orange", "yellow", "blue", "green", "violet", "gray", "grey", "primary"]
STATUS_COLOR: dict[Status, BadgeColor] = {
    Status.PENDING: "gray",
    Status.IN_PROGRESS: "blue",
    Status.DONE: "green",
    Status.DISCUSS: "orange",
    Status.DISCARDED: "red",
}
REASON_LABEL = {
    DiscardReason.IDIOM: "idiom",
    DiscardReason.PROPER_NOUN: "proper noun",
    DiscardReason.INSUFFICIENT_CONTEXT: "insufficient context",
    DiscardReason.OTHER: "other (note required)",
}
#: A discard reason as a sentence names it ("Discarded: other — too vague"), without the form's hint.
REASON_NAME = {
    DiscardReason.IDIOM: "idiom",
    DiscardReason.PROPER_NOUN: "proper noun",
    DiscardReason.INSUFFICIENT_CONTEXT: "insufficient context",
    DiscardReason.OTHER: "other",
}
SIDE_NAME = {Side.GOOD: "GOOD", Side.BAD: "BAD"}
_Params = ParamSpec("_Params")
#: Session key: the text inputs' values kept when a database fault stopped the page (``database_faults_shown``).
_KEPT_INPUTS_KEY = "database_fault_kept_inputs"
#: Session key: an action said the database is not answering; the page, failing too, need not say it again.
_ACTION_FAULT_KEY = "database_fault_in_action"
CANDIDATE_PLACEHOLDER = "goccio · prendersi * permesso · [sparare]_VERB"
__all__ = ["code", "md", "synset_md"]  # re-exported: pages use components.md / components.code


def candidate_error_message(error: CandidateError, lead: bool = True) -> str:
    """The rule's own message and the text, as SPEC §3 asks; the rule's id only for leads (it means nothing to a
    translator, issue 21)."""
    if lead:
        return f"{error.message} (rule: {error.rule}; text: {error.text!r})"
    return f"{error.message} (text: {error.text!r})"


def status_badge(status: Status) -> None:
    st.badge(STATUS_LABEL[status], color=STATUS_COLOR[status])


def lazy_expander(label: str, key: str, expanded: bool = False) -> Any:
    """An expander whose content is only built while it is open (``.open``), to keep every rerun cheap."""
    return st.expander(label, expanded=expanded, key=key, on_change="rerun")


# --- callbacks: one service call each -------------------------------------------------------------------


def click_action(*args: Any, **kwargs: Any) -> None:
    """``run_action`` as a button's ``on_click`` (which returns nothing)."""
    run_action(*args, **kwargs)


def run_action(
    method: Callable[..., Any],
    args: tuple[Any, ...],
    success: str | Callable[[Any], str],
    reset: Mapping[str, Any] | None = None,
    toast: bool = False,
    after: Callable[[Any], None] | None = None,
    was: Status | None = None,
) -> bool:
    """Call ``method`` (a ``CurationService`` method, e.g. ``CurationService.mark_done``) with the service acting
    for the user logged in now and ``args``, and report the outcome; True when it was saved.

    Inputs named in ``reset`` are cleared only on success, so a refused or conflicting change keeps what the
    user typed and they can redo it against the current state. ``was`` is the status the page showed: given, the
    session's progress counts are moved from it to the saved status instead of re-read (see ``moved_progress``).
    """
    try:
        result = method(state.service(), *args)
    except DatabaseUnavailableError as error:  # this action's change, whichever step of it failed
        say_database_fault(error)
        return False
    except ConflictError as error:
        state.flash("error", f"Not saved — conflict. {error}")
        return False
    except CandidateError as error:
        state.flash("error", candidate_error_message(error))
        return False
    except UserError as error:
        state.flash("error", str(error))
        return False
    except Exception as error:  # unexpected (a callback runs outside the page's own handler): no traceback shown
        state.flash("error", failures.MESSAGE.format(reference=failures.report(error)))
        return False
    moved_progress(was, result)
    for key, value in (reset or {}).items():
        st.session_state[key] = value
    message = success(result) if callable(success) else success
    state.flash("toast" if toast else "success", message)
    if after is not None:
        after(result)
    return True


def say_database_fault(error: DatabaseUnavailableError) -> None:
    """An action's change met a database that is not answering: queue what became of it ("your last change was
    not saved"), shown once by ``database_faults_shown`` when the page, failing too, stops."""
    state.flash("error", error.unsaved_message)
    st.session_state[_ACTION_FAULT_KEY] = True


def database_faults_shown(run: Callable[_Params, None]) -> Callable[_Params, None]:
    """Wrap the app's whole run, and each fragment (a fragment reruns alone, outside it): a database that stops
    answering (a PostgreSQL restart, a full disk) while the page is read shows one message saying whether the last
    change was saved, never a traceback.

    An action's own message ("your last change was not saved", from ``run_action``) and the others it queued are
    drawn here instead, once, with a "Try again" button (a click runs the page again).
    The inputs the page could not draw are gone from the browser, so their text is kept and set again before
    the next run draws them: what the user typed is there to redo.
    """

    @functools.wraps(run)
    def guarded(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
        for key, value in st.session_state.pop(_KEPT_INPUTS_KEY, {}).items():
            st.session_state[key] = value  # set before its widget is drawn: the browser shows the kept text
        try:
            run(*args, **kwargs)
        except DatabaseUnavailableError as error:
            said = st.session_state.pop(_ACTION_FAULT_KEY, False)  # the action's message is queued: enough
            state.show_flash_messages([*state.take_flashes(), *([] if said else [("error", str(error))])])
            st.session_state[_KEPT_INPUTS_KEY] = {
                key: value for key, value in st.session_state.items() if isinstance(value, str) and value
            }
            st.button("Try again", key=f"database_retry|{run.__qualname__}", icon=":material/refresh:")
            st.stop()
        st.session_state.pop(_ACTION_FAULT_KEY, None)

    return guarded


def moved_progress(was: Status | None, result: Any) -> None:
    """Keep the session's cached progress counts right after one saved change.

    An edit (add, remove, move) changes at most the item's status (pending → in progress): when the status the page
    showed is known, the counts are moved by one instead of dropped, so the next run need not re-read them (the
    add → row path is timed, SPEC issue 8); otherwise they are dropped and re-read.
    """
    cached = st.session_state.get(state.PROGRESS_KEY)
    if was is None or not isinstance(result, ItemLanguage) or not cached or cached[0] != result.lang:
        st.session_state.pop(state.PROGRESS_KEY, None)
        return
    if result.status is was:
        return
    counts = dict(cached[2])
    counts[was.value] = max(counts.get(was.value, 0) - 1, 0)
    counts[result.status.value] = counts.get(result.status.value, 0) + 1
    st.session_state[state.PROGRESS_KEY] = (cached[0], cached[1], counts)


def _add(item: Item, lang: str, side: Side, version: int, input_key: str, was: Status | None = None) -> None:
    raw = st.session_state.get(input_key) or ""

    def saved(_result: Any) -> str:
        return f"Added {parse_candidate(raw, item.target.pos).format()} to {SIDE_NAME[side]}."

    run_action(
        CurationService.add_candidate,
        (item.id, lang, side, raw, version),
        saved,
        reset={input_key: ""},
        toast=True,
        was=was,
    )


def _add_many(item_id: str, lang: str, side: Side, version: int, input_key: str) -> None:
    lines = (st.session_state.get(input_key) or "").splitlines()

    def saved(_result: Any) -> str:
        return f"Added {sum(1 for line in lines if line.strip())} candidate(s) to {SIDE_NAME[side]}."

    run_action(CurationService.add_candidates, (item_id, lang, side, lines, version), saved, reset={input_key: ""})


def _remove(item_id: str, lang: str, entry: CandidateEntry | str, version: int, was: Status | None = None) -> None:
    """Remove a candidate (``entry`` is its key alone when the page no longer lists it: the service decides)."""
    message = f"Removed {_shown(entry)}."
    run_action(CurationService.remove_candidate, (item_id, lang, _key(entry), version), message, toast=True, was=was)


def _move(
    item_id: str, lang: str, entry: CandidateEntry | str, to: Side, version: int, was: Status | None = None
) -> None:
    message = f"Moved {_shown(entry)} to {SIDE_NAME[to]}."
    run_action(CurationService.move_candidate, (item_id, lang, _key(entry), to, version), message, toast=True, was=was)


def _key(entry: CandidateEntry | str) -> str:
    return entry if isinstance(entry, str) else entry.key


def _shown(entry: CandidateEntry | str) -> str:
    return entry if isinstance(entry, str) else entry.format()


def _row_clicked(key: str, item_id: str, il: ItemLanguage, side: Side, editable: bool) -> None:
    """A Move / Remove click in a candidate list (``candidate_rows``), made with the version the page showed.

    A read-only list ignores clicks, as Streamlit ignores a click on a disabled button. The progress counts are
    moved only when the page showed the version this list was drawn from (see ``moved_progress``).
    """
    click = candidate_rows.clicked(key) if editable else None
    if click is None:
        return
    action, candidate, version = click
    entry: CandidateEntry | str = next((e for e in il.side(side) if e.key == candidate), candidate)
    was = il.status if version == il.version else None
    if action == "move":
        _move(item_id, il.lang, entry, Side.BAD if side is Side.GOOD else Side.GOOD, version, was)
    else:
        _remove(item_id, il.lang, entry, version, was)


def _discuss(item_id: str, lang: str, version: int, note_key: str, after: Callable[[Any], None] | None) -> None:
    note = st.session_state.get(note_key) or ""
    if not note.strip():  # the service refuses it too; saying so here avoids a pointless round trip
        state.flash("error", "DISCUSS needs a note saying what to discuss.")
        return
    run_action(
        CurationService.flag_discuss,
        (item_id, lang, note, version),
        "Flagged DISCUSS for a lead.",
        reset={note_key: ""},
        after=after,
    )


def _discard(
    item_id: str, lang: str, version: int, reason_key: str, note_key: str, after: Callable[[Any], None] | None
) -> None:
    reason = st.session_state.get(reason_key)
    note = st.session_state.get(note_key) or ""
    suffix = f" — {note.strip()}" if note.strip() else ""
    run_action(
        CurationService.discard,
        (item_id, lang, reason, note, version),
        f"Discarded: {REASON_NAME.get(reason, reason) if reason else ''}{suffix}.",
        reset={reason_key: None, note_key: ""},
        after=after,
    )


def _resolve(item_id: str, lang: str, version: int, keys: dict[str, str]) -> None:
    to = st.session_state.get(keys["to"]) or Status.DONE
    comment = st.session_state.get(keys["comment"]) or ""
    reason = st.session_state.get(keys["reason"])
    run_action(
        CurationService.resolve,
        (item_id, lang, to, comment, version, reason),
        f"Resolved as {STATUS_LABEL[Status(to)]}.",
        reset={keys["comment"]: "", keys["reason"]: None},
    )


def _comment(item_id: str, lang: str, key: str) -> None:
    text = st.session_state.get(key) or ""
    run_action(CurationService.comment, (item_id, lang, text), "Comment added.", reset={key: ""}, toast=True)


# --- the item card ---------------------------------------------------------------------------------------


def highlight_html(sentence: str, start: int, end: int) -> str:
    """The sentence with ``sentence[start:end]`` highlighted, escaped so any text is shown literally."""
    if 0 <= start < end <= len(sentence):
        before, word, after = sentence[:start], sentence[start:end], sentence[end:]
    else:
        before, word, after = sentence, "", ""
    mark = (
        f'<mark style="background:#ffd54f;color:#000;padding:0 .25em;border-radius:.25em;font-weight:600">'
        f"{safe_text.html(word)}</mark>"
        if word
        else ""
    )
    return (
        '<div class="annotator-sentence" dir="auto" '
        'style="font-size:1.35rem;line-height:1.6;margin:.25rem 0 .5rem;unicode-bidi:isolate">'
        f"{safe_text.html(before)}{mark}{safe_text.html(after)}</div>"
    )


def sentence_html(item: Item) -> str:
    return highlight_html(item.sentence, item.target.start, item.target.end)


def sentence_html_from_entry(entry: QueueEntry) -> str:
    """For list rows: the target highlighted at its stored offsets (the word may occur twice)."""
    return highlight_html(entry.sentence, entry.target_start, entry.target_end)


def render_item_card(view: ItemView, note: str | None = None) -> None:
    """What the translator needs to judge candidates: sentence, λ, σ with gloss and rank, the other senses.

    ``note`` (Markdown) is a quiet confirmation shown in the card's header line, where it covers nothing.
    """
    item, il = view.item, view.state
    with st.container(border=True):
        # few elements: each costs on every rerun (the header is one row of two Markdown elements)
        with st.container(horizontal=True, vertical_alignment="center", wrap=False):
            source = f" · source {md(item.source)}" if item.source else ""
            st.markdown(f"**{md(item.id)}** · {md(il.lang)}{source}", width="stretch")
            confirmation = f":small[:green[:material/check_circle: {note}]] &nbsp; " if note else ""
            badge = f":{STATUS_COLOR[il.status]}-badge[{STATUS_LABEL[il.status]}]"
            st.markdown(f"{confirmation}{badge} :small[:gray[v{il.version}]]", width="content")
        delta = item.polysemy_degree
        mu = item.sense_rank
        gloss = f"  \n*{md(item.gloss)}*" if item.gloss else ""
        st.markdown(  # the sentence (escaped HTML) and the sense line (escaped Markdown) in one element
            f"{sentence_html(item)}\n\n"
            f"lemma **{md(item.target.lemma)}** · {md(item.target.pos)} · synset {synset_md(item.synset)} · "
            f"δ(λ) = **{delta if delta is not None else '?'}** · μ(σ) = **{mu if mu is not None else '?'}**{gloss}",
            unsafe_allow_html=True,
        )
        if item.senses:
            senses = lazy_expander(
                f"All {len(item.senses)} senses of “{md(item.target.lemma)}” ({md(item.target.pos)})",
                f"senses|{item.id}",
            )
            if senses.open:
                lines = []
                for sense in item.senses:
                    here = " ← **this item (σ)**" if sense.synset == item.synset else ""
                    gloss = md(sense.gloss) if sense.gloss else "*(no gloss)*"
                    lines.append(f"{sense.rank}\\. {synset_md(sense.synset)} — {gloss}{here}")
                senses.markdown("  \n".join(lines))  # one sense per line
        for note in il.overlaps:
            st.warning(f"Overlap: {md(note)}", icon=":material/warning:")
        if item.filter_failures:
            st.caption("Selection filters: " + md("; ".join(item.filter_failures)))
        if il.status is Status.DISCUSS and il.discuss_note:
            st.info(f"DISCUSS note ({md(il.status_by or '?')}): {md(il.discuss_note)}")
        if il.status is Status.DISCARDED:
            reason = REASON_LABEL.get(il.discard_reason, str(il.discard_reason)) if il.discard_reason else "?"
            note = f" — {md(il.discard_note)}" if il.discard_note else ""
            st.error(f"Discarded by {md(il.status_by or '?')}: {md(reason)}{note}")


# --- the GOOD / BAD editor -------------------------------------------------------------------------------


def draft_keys(prefix: str) -> tuple[str, ...]:
    """The inputs of one item-language whose unsaved text is kept across reloads (see ``annotator.app.drafts``)."""
    return (
        f"{prefix}add|{Side.GOOD.value}",
        f"{prefix}add|{Side.BAD.value}",
        f"{prefix}discuss_note",
        f"{prefix}discard_note",
        f"{prefix}discard_reason",
        f"{prefix}comment",
        f"{prefix}bulk|{Side.GOOD.value}",
        f"{prefix}bulk|{Side.BAD.value}",
    )


def can_edit_candidates(user: User, il: ItemLanguage) -> bool:
    """Whether to enable the edit buttons; mirrors the workflow rules the service enforces anyway."""
    if not user.may_edit(il.lang) or il.status not in workflow.EDITABLE:
        return False
    return not (il.status is Status.DISCUSS and not user.is_lead and il.status_by != user.name)


def provenance(entry: CandidateEntry, item: Item, il: ItemLanguage, side: Side) -> tuple[str, str]:
    """A short 'where it came from' line and a plain-text tooltip with the glosses of the senses it stands for."""
    if entry.origin is Origin.LEXICON:
        parts, glosses = [], []
        for synset in entry.synsets:
            rank = item.rank_of(synset)
            parts.append("σ" if synset == item.synset else (f"sense {rank}" if rank else synset))
            gloss = next((s.gloss for s in item.senses if s.synset == synset), "")
            glosses.append(f"{'σ' if synset == item.synset else f'sense {rank}'} {synset}: {gloss or '(no gloss)'}")
        line = "lexicon · " + (", ".join(parts) if parts else "no sense recorded")
        tip = "\n".join(glosses) or "Pre-populated from the lexicon."
    else:
        line, tip = "added by a translator", "Not from the lexicon: added during curation."
    other = il.initial_bad if side is Side.GOOD else il.initial_good
    if any(e.key == entry.key for e in other):
        line += f" · moved from {SIDE_NAME[Side.BAD if side is Side.GOOD else Side.GOOD]}"
    return line, tip


def _candidate_list(view: ItemView, side: Side, editable: bool, prefix: str) -> None:
    item, il = view.item, view.state
    other = Side.BAD if side is Side.GOOD else Side.GOOD
    rows = []
    for entry in il.side(side):
        line, tip = provenance(entry, item, il, side)
        rows.append((entry.key, entry.format(), line, f"{entry.format()}\n{line}\n{tip}"))
    # the whole list is one element (rows, tooltips, Move / Remove buttons): every element costs on each rerun
    key = f"{prefix}rows|{side.value}"
    removed = [e.format() for e in (il.initial_good if side is Side.GOOD else il.initial_bad) if il.find(e.key) is None]
    heading = f"{'✓' if side is Side.GOOD else '✗'} {SIDE_NAME[side]} ({len(rows)})"
    candidate_rows.render(  # with its heading and the lexicon's suggestions it no longer lists
        key,
        candidate_rows.row_data(heading, rows, removed, SIDE_NAME[side], SIDE_NAME[other], il.version, not editable),
        functools.partial(_row_clicked, key, item.id, il, side, editable),
    )
    input_key = f"{prefix}add|{side.value}"
    raw = st.text_input(
        f"Add to {SIDE_NAME[side]}",
        key=input_key,
        placeholder=CANDIDATE_PLACEHOLDER,
        disabled=not editable,
        live=True,
        help="One candidate: a lemma, a multiword, '*' as a word of its own for any words, or [text]_TAG "
        "(e.g. [sparare]_VERB) for a cross-PoS candidate. Checked as you type; see the guidelines.",
    )
    if raw and raw.strip():
        try:
            candidate = parse_candidate(raw, item.target.pos)
        except CandidateError as error:
            st.error(md(candidate_error_message(error)), icon=":material/block:")
        else:
            found = il.find(CandidateEntry(candidate.text, candidate.pos).key)
            if found:  # caught before the click, not after
                where = SIDE_NAME[found[0]]
                st.error(f"{code(candidate.format())} is already in {where}.", icon=":material/block:")
            else:
                st.caption(f"✓ valid: will be saved as {code(candidate.format())}")
            for warning in candidate.warnings:
                st.warning(md(warning))
    st.button(
        f"Add to {SIDE_NAME[side]}",
        key=f"{prefix}addbtn|{side.value}",
        on_click=_add,
        args=(item, il.lang, side, il.version, input_key, il.status),
        disabled=not editable,
        help="Enter in the box adds too.",
    )
    bulk_key = f"{prefix}bulk|{side.value}"
    bulk = lazy_expander(
        f"Paste several into {SIDE_NAME[side]}…",
        f"{prefix}exp_bulk|{side.value}",
        expanded=bool(st.session_state.get(bulk_key)),
    )
    if bulk.open:
        bulk.text_area(
            f"{SIDE_NAME[side]} candidates, one per line",
            key=bulk_key,
            height=100,
            disabled=not editable,
            help="All or nothing: if any line is not a valid candidate, nothing is added and every bad line is named.",
        )
        bulk.button(
            f"Add all to {SIDE_NAME[side]}",
            key=f"{prefix}bulkbtn|{side.value}",
            on_click=_add_many,
            args=(item.id, il.lang, side, il.version, bulk_key),
            disabled=not editable,
        )


def render_candidate_editor(view: ItemView, user: User, prefix: str) -> None:
    """GOOD and BAD side by side; every button is one saved change."""
    editable = can_edit_candidates(user, view.state)
    if not editable:
        if view.state.status in (Status.DONE, Status.DISCARDED):
            st.caption(f"This item-language is {STATUS_LABEL[view.state.status]}: reopen it to edit.")
        elif not user.may_edit(view.state.lang):
            st.caption(f"You may not change {md(view.state.lang)} items.")
        else:
            st.caption("Waiting for a lead (DISCUSS): only a lead can change it now.")
    good, bad = st.columns(2, gap="large")
    with good:  # each list draws its own heading ("✓ GOOD (n)"): one element fewer per side
        _candidate_list(view, Side.GOOD, editable, prefix)
    with bad:
        _candidate_list(view, Side.BAD, editable, prefix)


# --- status actions --------------------------------------------------------------------------------------


def render_status_actions(view: ItemView, user: User, prefix: str, after: Callable[[Any], None] | None = None) -> None:
    """Done / DISCUSS / Discard for open items, Reopen for closed ones, Resolve for leads on DISCUSS items."""
    item, il = view.item, view.state
    status = il.status
    if status in (Status.PENDING, Status.IN_PROGRESS):
        row = st.container(horizontal=True, vertical_alignment="top", wrap=False)  # one row, no column blocks
        with row:
            st.button(
                "✔ Done",
                key=f"{prefix}done",
                type="primary",
                on_click=click_action,
                args=(CurationService.mark_done, (item.id, il.lang, il.version), "Marked done."),
                kwargs={"after": after},
                help="Save this item-language as curated (needs at least one GOOD candidate).",
            )
        note_key = f"{prefix}discuss_note"
        reason_key, dnote_key = f"{prefix}discard_reason", f"{prefix}discard_note"
        with row:  # open by itself when a draft note is waiting in it
            discuss = lazy_expander("DISCUSS…", f"{prefix}exp_discuss", expanded=bool(st.session_state.get(note_key)))
        if discuss.open:
            discuss.text_area("What should a lead look at?", key=note_key, height=80)
            discuss.button(
                "Flag DISCUSS",
                key=f"{prefix}discuss",
                on_click=_discuss,
                args=(item.id, il.lang, il.version, note_key, after),
            )
        with row:
            has_draft = bool(st.session_state.get(dnote_key) or st.session_state.get(reason_key))
            discard = lazy_expander("Discard…", f"{prefix}exp_discard", expanded=has_draft)
        if discard.open:
            discard.selectbox(
                "Reason",
                list(DiscardReason),
                index=None,
                format_func=lambda r: REASON_LABEL[DiscardReason(r)],
                key=reason_key,
                placeholder="Choose a reason",
            )
            discard.text_input("Note (required for 'other')", key=dnote_key)
            discard.button(
                "Discard",
                key=f"{prefix}discard",
                on_click=_discard,
                args=(item.id, il.lang, il.version, reason_key, dnote_key, after),
            )
    elif status is Status.DISCUSS:
        if user.is_lead:
            render_resolve_form(view, prefix)
        else:
            st.info("Flagged DISCUSS: a lead will resolve it. You can add to the discussion below.")
    elif status in (Status.DONE, Status.DISCARDED):
        st.button(
            "↺ Reopen",
            key=f"{prefix}reopen",
            on_click=click_action,
            args=(CurationService.reopen, (item.id, il.lang, il.version), "Reopened."),
            help="Translators reopen their own done items; leads reopen anything.",
        )


def render_resolve_form(view: ItemView, prefix: str) -> None:
    """A lead closes a DISCUSS item as done (after any edits above) or discarded, with a comment."""
    item, il = view.item, view.state
    keys = {"to": f"{prefix}resolve_to", "comment": f"{prefix}resolve_comment", "reason": f"{prefix}resolve_reason"}
    with st.container(border=True):
        st.markdown("**Resolve this DISCUSS item**")
        to = st.radio(
            "Resolve as",
            [Status.DONE, Status.DISCARDED],
            format_func=lambda s: STATUS_LABEL[Status(s)],
            key=keys["to"],
            horizontal=True,
        )
        if to == Status.DISCARDED:
            st.selectbox(
                "Discard reason",
                list(DiscardReason),
                index=None,
                format_func=lambda r: REASON_LABEL[DiscardReason(r)],
                key=keys["reason"],
                placeholder="other (the comment is the note)",
            )
        st.text_area("Comment (required; goes into the thread)", key=keys["comment"], height=80)
        st.button(
            "Resolve",
            key=f"{prefix}resolve",
            type="primary",
            on_click=_resolve,
            args=(item.id, il.lang, il.version, keys),
        )


# --- history and discussion ------------------------------------------------------------------------------


def history_detail(entry: HistoryEntry) -> str:
    """A history row's detail as people read it (the state undo restores left out)."""
    parts = []
    for key, value in entry.detail.items():
        if value in ("", None, [], {}) or key == BEFORE_KEY:  # the state undo restores: not for reading
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{key}: {shown}")
    return "; ".join(parts)


def render_history(view: ItemView) -> None:
    rows = [
        {
            "when (UTC)": h.at[:19].replace("T", " "),
            "who": h.user,
            "action": h.action,
            "detail": history_detail(h),
            "v": h.version,
        }
        for h in reversed(view.history)
    ]
    history = lazy_expander(f"History ({len(rows)})", f"history|{view.item.id}|{view.state.lang}")
    if not history.open:
        return
    with history:
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch")
        else:
            st.caption("No changes yet.")


def render_discussion(view: ItemView, user: User, prefix: str) -> None:
    comments = view.comments
    expanded = view.state.status is Status.DISCUSS or bool(st.session_state.get(f"{prefix}comment"))
    discussion = lazy_expander(f"Discussion ({len(comments)})", f"{prefix}exp_discussion", expanded=expanded)
    if not discussion.open:
        return
    with discussion:
        for comment in comments:
            st.markdown(f"**{md(comment.user)}** · {comment.at[:16].replace('T', ' ')} UTC  \n{md(comment.text)}")
        if user.may_edit(view.state.lang):
            key = f"{prefix}comment"
            st.text_area("Add a comment", key=key, height=70)
            st.button(
                "Post comment", key=f"{prefix}comment_btn", on_click=_comment, args=(view.item.id, view.state.lang, key)
            )


def show_row_problems(error: RowProblemsError) -> None:
    """A refused file: one line of summary, then every bad row with its column and rule."""
    more = f" The first {len(error.problems)} are listed." if error.total > len(error.problems) else ""
    st.error(md(f"{error.name}: {error.total} problem(s); {error.outcome}.{more}"))
    rows = [{"row": p.row, "column": p.column, "rule": p.rule, "problem": p.message} for p in error.problems]
    st.dataframe(rows, hide_index=True, width="stretch")
