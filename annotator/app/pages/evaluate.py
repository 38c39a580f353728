"""Evaluate page (leads): score machine translations against the curation and send translators to the MISSes.

The page only gathers inputs, calls ``annotator.services.evaluate`` and shows what it returns; the result of a
run is kept in the session so browsing MISS and BAD items does not re-run the analysis.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from annotator.app import safe_text
from annotator.app.safe_text import code, md
from annotator.app.state import get_project, require_lead
from annotator.errors import UserError
from annotator.project import builtin_path
from annotator.reporting.report import report_for_result
from annotator.services.evaluate import (
    ANALYSERS,
    Dataset,
    EvaluationResult,
    create_analyser,
    evaluate,
    format_skipped,
    load_dataset,
    load_translations,
    metrics_table_rows,
)
from annotator.services.evaluate_project import dataset_from_project, split_at_span

CURATE_PAGE = Path(__file__).resolve().parent / "curate.py"
RESULT_KEY = "evaluate_result"
REPORT_KEY = "evaluate_report_built"
DEMO_TRANSLATIONS = "demo/translations.jsonl"
CURRENT = "Current curation in this project"
UPLOADED = "An exported dataset.jsonl"
BUNDLED = "The demo translations bundled with annotator"
UPLOAD = "A file (JSONL or TSV: id, lang, system, translation)"


def _saved_upload(upload: st.runtime.uploaded_file_manager.UploadedFile, folder: Path) -> Path:
    """Uploaded bytes to a file, so the service reads them with the same checks as on the command line."""
    path = folder / Path(upload.name).name
    path.write_bytes(upload.getvalue())
    return path


def _dataset(choice: str, upload, folder: Path) -> Dataset:
    if choice == CURRENT:
        return dataset_from_project(get_project())
    if upload is None:
        raise UserError("Choose the dataset.jsonl to score against.")
    return load_dataset(_saved_upload(upload, folder))


def run(
    dataset_choice: str, dataset_upload, translations_choice: str, translations_upload, analyser: str, models: str
) -> EvaluationResult:
    bar = st.progress(0.0, text="Starting…")

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(done / total if total else 0.0, text=md(f"{message} ({done}/{total})"))

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dataset = _dataset(dataset_choice, dataset_upload, folder)
        if translations_choice == BUNDLED:
            path = builtin_path(DEMO_TRANSLATIONS)
        elif translations_upload is None:
            raise UserError("Upload the translations to score.")
        else:
            path = _saved_upload(translations_upload, folder)
        translations = load_translations(path, dataset)
        result = evaluate(
            dataset, translations, create_analyser(analyser, models or None), progress, translations_source=path.name
        )
    skipped = f" {format_skipped(result.skipped)}." if result.skipped else ""
    bar.progress(1.0, text=md(f"Scored {len(result.results)} translations.{skipped}"))
    return result


def render_metrics(result: EvaluationResult) -> None:
    st.subheader("Metrics")
    st.caption(
        f"{len(result.results)} translations · analyser {md(result.analyser)} · dataset {code(result.dataset_source)}. "
        "Every percentage is followed by its count; n/a where the denominator is empty; "
        "“left out”: items without μ(σ) (MFS+, SFII) or δ(λ) (SPDI) in the dataset."
    )
    if result.skipped:
        st.warning(
            md(
                f"{format_skipped(result.skipped)}: not scored, as the dataset has nothing to score them against "
                "(an export leaves out unfinished, discarded and excluded items)."
            ),
            icon=":material/info:",
        )
    st.dataframe(pd.DataFrame(metrics_table_rows(result.metrics)), hide_index=True, width="stretch")
    chart = pd.DataFrame(
        [
            {
                "language": row.lang,
                "system": row.system,
                "Accuracy": row.accuracy.percent or 0.0,
                "% MISS": row.miss_rate.percent or 0.0,
            }
            for row in result.metrics.rows
            if row.pos == "ALL" and row.lang != "ALL" and row.system != "ALL"
        ]
    )
    if not chart.empty:
        left, right = st.columns(2)
        left.caption("Accuracy per language")
        left.bar_chart(chart, x="language", y="Accuracy", color="system", stack=False)
        right.caption("% MISS per language")
        right.bar_chart(chart, x="language", y="% MISS", color="system", stack=False)


def _highlighted(text: str, span: list[int] | None, outcome: str) -> str:
    before, match, after = split_at_span(text, span)
    colour = "#fde2e1" if outcome == "BAD" else "#dff3e4"
    marked = f'<mark style="background:{colour};padding:0 2px">{safe_text.html(match)}</mark>' if match else ""
    return safe_text.html(before) + marked + safe_text.html(after)


def render_browser(result: EvaluationResult) -> None:
    st.subheader("MISS and BAD translations")
    st.caption(
        "A MISS often means a GOOD or BAD candidate is missing: open the item in Curate, add it, and run the "
        "evaluation again — it scores against the current curation."
    )
    rows = [r.to_dict() for r in result.results if str(r.outcome) in ("MISS", "BAD")]
    cols = st.columns(3)
    outcome = cols[0].segmented_control("Result", ["MISS", "BAD"], default="MISS", key="evaluate_outcome")
    langs = sorted({r["lang"] for r in rows})
    systems = sorted({r["system"] for r in rows})
    lang = cols[1].selectbox("Language", ["all", *langs], key="evaluate_lang")
    system = cols[2].selectbox("System", ["all", *systems], key="evaluate_system")
    shown = [
        r
        for r in rows
        if r["result"] == (outcome or "MISS") and lang in ("all", r["lang"]) and system in ("all", r["system"])
    ]
    st.caption(f"{len(shown)} translation(s)")
    for row in shown[:200]:
        with st.container(border=True):
            head, link = st.columns([5, 1], vertical_alignment="center")
            head.markdown(
                f"**{md(row['id'])}** · {md(row['lang'])} · {md(row['system'])} · "
                f"lemma *{md(row['lemma'])}* ({md(row['pos'])})"
            )
            if link.button(
                "Open in Curate",
                key=f"eval_open|{row['id']}|{row['lang']}|{row['system']}",
                icon=":material/edit_note:",
            ):
                st.switch_page(CURATE_PAGE, query_params={"item": row["id"], "lang": row["lang"]})
            st.markdown(f"EN: {md(row['sentence'])}")
            st.markdown(
                f"{safe_text.html(row['lang'])}: {_highlighted(row['translation'], row['span'], row['result'])}",
                unsafe_allow_html=True,
            )
            if row["omega"]:
                omega = row["omega"]
                flag = " · both GOOD and BAD matched: inspect" if row["both_matched"] else ""
                senses = ", ".join(code(synset) for synset in row["omega_synsets"]) or "none"
                st.caption(f"matched BAD candidate ω = {code(omega)} (step: {md(row['step'])}, senses {senses}){flag}")
    if len(shown) > 200:
        st.caption("Showing the first 200; narrow the filters to see the rest.")


def render_report(result: EvaluationResult) -> None:
    """The per-system report (DiBiMT Tables 3–6, appendix D) of this run: its charts here, the HTML to download."""
    st.subheader("Report")
    built = st.session_state.get(REPORT_KEY)
    if built is None or built[0] != result.created:
        if not st.button("Build the report (charts, consistency heat maps, tables)", key="evaluate_report"):
            return
        with st.spinner("Building the report…"):
            report, page = report_for_result(result)
        built = st.session_state[REPORT_KEY] = (result.created, report, page)
    _created, report, page = built
    st.download_button(
        "Download the report (one HTML file, works offline)",
        data=page.encode("utf-8"),
        file_name="report.html",
        mime="text/html",
        key="evaluate_report_download",
    )
    columns = st.columns(2)
    for index, (_name, chart) in enumerate(report.charts):
        columns[index % 2].altair_chart(chart, width="content")


def render() -> None:
    require_lead()
    st.header("Evaluate machine translations")
    st.caption("DiBiMT §3.4: each translation is GOOD, BAD or MISS against the GOOD/BAD candidates of its item.")
    with st.form("evaluate_inputs", border=True):
        left, right = st.columns(2)
        dataset_choice = left.radio("Score against", [CURRENT, UPLOADED], key="evaluate_dataset_choice")
        dataset_upload = left.file_uploader("dataset.jsonl", type=["jsonl"], key="evaluate_dataset_file")
        translations_choice = right.radio("Translations", [UPLOAD, BUNDLED], key="evaluate_translations_choice")
        translations_upload = right.file_uploader(
            "Translations file", type=["jsonl", "tsv", "txt"], key="evaluate_translations_file"
        )
        analyser = left.selectbox(
            "Analyser",
            ANALYSERS,
            key="evaluate_analyser",
            help="default: simplemma + jieba, no downloads; stanza: needs its models",
        )
        models = right.text_input("Stanza model folder (stanza only)", key="evaluate_models")
        submitted = st.form_submit_button("Run evaluation", type="primary")
    if submitted:
        try:
            st.session_state[RESULT_KEY] = run(
                dataset_choice, dataset_upload, translations_choice, translations_upload, analyser, models
            )
        except UserError as error:
            st.error(md(error))
    result: EvaluationResult | None = st.session_state.get(RESULT_KEY)
    if result is None:
        st.info("Choose the translations and run the evaluation.")
        return
    from annotator.app.pages.evaluate_inspection import render_inspection, with_verdicts  # issue 9

    result = with_verdicts(result)
    render_metrics(result)
    render_report(result)
    render_browser(result)
    render_inspection(result)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
