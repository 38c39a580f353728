"""The inspection queue on the Evaluate page: mark a result, record a lead's verdict.

Kept apart from ``evaluate.py`` so the page only has a two-line hook. Translations and candidates are untrusted text:
they are shown with ``st.text`` / ``st.code`` only, never as Markdown.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from annotator.app.project_cache import get_project
from annotator.app.session import require_lead
from annotator.errors import UserError
from annotator.evaluation.inspection import (
    VERDICTS,
    apply_verdicts,
    load_inspections,
    mark,
    queue,
    record_verdict,
    result_key,
)
from annotator.evaluation.run import AnalysedTranslation, EvaluationResult

QUEUE_LIMIT = 50


def _label(result: AnalysedTranslation) -> str:
    item_id, lang, system = result_key(result)
    return f"{item_id} · {lang} · {system}"


def _slug(result: AnalysedTranslation) -> str:
    return hashlib.sha1("\x1f".join(result_key(result)).encode("utf-8")).hexdigest()[:12]


def with_verdicts(result: EvaluationResult) -> EvaluationResult:
    """The run with the stored verdicts applied (what the metrics table shows)."""
    return apply_verdicts(result, load_inspections(get_project()))


def render_inspection(result: EvaluationResult) -> None:
    user = require_lead()
    project = get_project()
    inspections = load_inspections(project)
    st.subheader("Inspection queue")
    st.caption(
        "Results where GOOD and BAD candidates both matched, and results a lead marks. A verdict counts in the "
        "metrics (column 'inspected') while the translation and the item's candidates stay as they were."
    )
    labels = {_label(r): r for r in result.results}
    left, right = st.columns([3, 1])
    choice = left.selectbox("Mark a result for inspection", list(labels), key="inspection_mark_choice")
    if right.button("Mark", key="inspection_mark") and choice is not None:
        mark(project, user, labels[choice])
        st.rerun()
    pending = queue(result, inspections)
    if not pending:
        st.info("Nothing waits for inspection.")
        return
    st.text(
        f"{len(pending)} result(s) wait for a verdict"
        + (f"; the first {QUEUE_LIMIT} are shown" if len(pending) > QUEUE_LIMIT else "")
    )
    for analysed in pending[:QUEUE_LIMIT]:
        slug = _slug(analysed)
        with st.container(border=True):
            st.text(_label(analysed))
            st.code(analysed.translation.text, language=None)
            matched = ", ".join(f"{m.side.upper()} {m.text} ({m.step})" for m in analysed.match.matches) or "none"
            st.text(f"matcher: {analysed.outcome}; matched: {matched}")
            verdict = st.radio("Verdict", VERDICTS, key=f"inspection_verdict_{slug}", horizontal=True)
            note = st.text_input("Note", key=f"inspection_note_{slug}")
            if st.button("Record verdict", key=f"inspection_save_{slug}"):
                try:
                    record_verdict(project, user, analysed, verdict, note)
                except UserError as error:
                    st.error(str(error))
                else:
                    st.rerun()
