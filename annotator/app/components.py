"""What the pages share in words and looks: status and reason labels, a candidate rule's message, where a candidate
came from, a history row as people read it, the highlighted sentence, and a database fault shown once.

Changes are not made here: every change goes through the one action runner (``annotator.app.actions``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import streamlit as st

from annotator.app import project_cache, safe_text
from annotator.app.safe_text import code, md, synset_md
from annotator.domain.candidates import CandidateError
from annotator.domain.model import (
    CandidateEntry,
    DiscardReason,
    HistoryEntry,
    Item,
    ItemLanguage,
    Origin,
    Side,
    Status,
    SuggestedFrom,
)
from annotator.domain.undo import BEFORE_KEY
from annotator.errors import RowProblemsError
from annotator.services.read_model import QueueEntry

if TYPE_CHECKING:
    import pandas as pd

STATUS_LABEL = {
    Status.PENDING: "pending",
    Status.IN_PROGRESS: "in progress",
    Status.DONE: "done",
    Status.DISCUSS: "DISCUSS",
    Status.DISCARDED: "discarded",
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
#: Re-exported: pages use components.md / components.code.
__all__ = ["code", "md", "synset_md"]


def candidate_error_message(error: CandidateError, lead: bool = True) -> str:
    """The rule's own message and the text, as SPEC §3 asks; the rule's id only for leads (it means nothing to a
    translator)."""
    if lead:
        return f"{error.message} (rule: {error.rule}; text: {error.text!r})"
    return f"{error.message} (text: {error.text!r})"


def when_utc(stamp: str | None) -> str:
    """A stored ISO timestamp as people read it: ``2026-11-28 22:17 UTC`` (no seconds' fractions, no "T", no
    offset); "" for none, the text itself when it is not a timestamp."""
    if not stamp:
        return ""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def moved_progress(was: Status | None, result: Any) -> None:
    """Keep the session's cached progress counts right after one saved change.

    An edit (add, remove, move) changes at most the item's status (pending → in progress): when the status the page
    showed is known, the counts are moved by one instead of dropped, so the next run need not re-read them (the
    add → row path is the one a translator waits on); otherwise they are dropped and re-read.
    """
    cached: project_cache.ProgressCache | None = st.session_state.get(project_cache.PROGRESS_KEY)
    if was is None or not isinstance(result, ItemLanguage) or not cached or cached.lang != result.lang:
        st.session_state.pop(project_cache.PROGRESS_KEY, None)
        return
    if result.status is was:
        return
    counts = dict(cached.counts)
    counts[was.value] = max(counts.get(was.value, 0) - 1, 0)
    counts[result.status.value] = counts.get(result.status.value, 0) + 1
    st.session_state[project_cache.PROGRESS_KEY] = cached._replace(counts=counts)


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


def sentence_html_from_entry(entry: QueueEntry) -> str:
    """For list rows: the target highlighted at its stored offsets (the word may occur twice)."""
    return highlight_html(entry.sentence, entry.target_start, entry.target_end)


# --- the candidate lists -------------------------------------------------------------------------------


#: A suggestion's source as a card names it.
SUGGESTION_SOURCE = {"team": "the team's curation", "related": "a related sense", "mt": "machine translation"}


def accepted_from(origin: SuggestedFrom, item: Item) -> str:
    """Where an accepted suggestion came from, in words: "hypernym of σ (wn:drink-n)", "the team's curation (same
    sense)", "machine translation (MISS translation: sys-a)"."""
    if origin.source == "related" and origin.synset:
        if origin.synset == item.synset:
            return "this sense, in a lexicon not allowed for the language"
        rank = item.rank_of(origin.synset)
        where = f"sense {rank} of “{item.target.lemma}”" if rank else origin.synset
        return f"{origin.relation or 'a relation'} of σ ({where})"
    source = SUGGESTION_SOURCE.get(origin.source, origin.source or "a suggestion")
    return f"{source} ({origin.relation})" if origin.relation else source


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
        line, tip = "added during curation", "Not from the lexicon: added by a translator or a lead."
    if entry.suggested is not None:
        accepted = accepted_from(entry.suggested, item)
        line = f"{line} · " if entry.origin is Origin.LEXICON else ""
        line += f"accepted from: {accepted}"
        tip += f"\nAccepted from a suggestion: {accepted}."
    other = il.initial_bad if side is Side.GOOD else il.initial_good
    if any(e.key == entry.key for e in other):
        line += f" · moved from {SIDE_NAME[Side.BAD if side is Side.GOOD else Side.GOOD]}"
    return line, tip


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


def show_row_problems(error: RowProblemsError) -> None:
    """A refused file: one line of summary, then every bad row with its column and rule."""
    more = f" The first {len(error.problems)} are listed." if error.total > len(error.problems) else ""
    st.error(md(f"{error.name}: {error.total} problem(s); {error.outcome}.{more}"))
    rows = [{"row": p.row, "column": p.column, "rule": p.rule, "problem": p.message} for p in error.problems]
    st.dataframe(rows, hide_index=True, width="stretch")


# --- charts -------------------------------------------------------------------------------------------------


def bars_per_language(frame: pd.DataFrame, y_label: str) -> None:
    """One group of bars per language (the frame's index), one bar per column, empty values left out.

    Drawn from a Vega-Lite spec rather than ``st.bar_chart``, which imports Altair (a large package) on the first
    chart of the process: a page with one such chart rendered its first time that much slower."""
    series = list(frame.columns)
    long = frame.rename_axis("language").reset_index().melt("language", var_name="figure", value_name="value")
    spec = {
        "mark": {"type": "bar", "tooltip": True},
        "encoding": {
            "x": {"field": "language", "type": "nominal", "sort": list(frame.index), "axis": {"labelAngle": 0}},
            "xOffset": {"field": "figure", "type": "nominal", "sort": series},
            "y": {"field": "value", "type": "quantitative", "title": y_label},
            "color": {
                "field": "figure",
                "type": "nominal",
                "sort": series,
                "title": None,
                "legend": {"orient": "bottom"},
            },
        },
    }
    st.vega_lite_chart(long.dropna(subset=["value"]), spec, width="stretch")
