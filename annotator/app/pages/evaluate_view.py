"""The Evaluate page's code (leads): score machine translations against the curation and send translators to the
MISSes. ``pages/evaluate.py`` is the page script and only calls ``render``.

The page gathers the inputs and starts an evaluation job (``annotator.services.jobs``): the scoring runs in a
worker outside the browser session, any lead follows it in the jobs panel, and when it ends the page shows the
newest run's results, kept in the database (every app server shows them) and read once per run, so browsing MISS
and BAD items re-runs nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd
import streamlit as st

from annotator.app import safe_text
from annotator.app.guards import guarded_file
from annotator.app.jobs_panel import SEEN_ACTIVE_KEY, render_jobs
from annotator.app.project_cache import get_project
from annotator.app.safe_text import code, md
from annotator.app.session import require_lead
from annotator.domain.jobs import JobKind
from annotator.domain.languages import language_label
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.evaluation.inputs import format_skipped
from annotator.evaluation.presenters import metrics_table_rows
from annotator.evaluation.run import ANALYSERS, EvaluationResult
from annotator.project import builtin_path
from annotator.services import jobs
from annotator.services.evaluate_project import load_result, split_at_span

if TYPE_CHECKING:  # Altair and the report load when a result is drawn: the set-up alone needs neither
    import altair as alt

    from annotator.reporting.report import Report

CURATE_PAGE = Path(__file__).resolve().parent / "curate.py"
#: Session key of the newest finished evaluation, read once per job (a ``KeptResult``).
RESULT_KEY = "evaluate_result"
#: Session key of the report built for a run (a ``BuiltReport``).
REPORT_KEY = "evaluate_report_built"


class KeptResult(NamedTuple):
    job_id: int
    result: EvaluationResult


class BuiltReport(NamedTuple):
    """A run's report: which run (its creation time), the report and its self-contained HTML page."""

    created: str
    report: Report
    page: str


DEMO_TRANSLATIONS = "demo/translations.jsonl"
CURRENT = "Current curation in this project"
UPLOADED = "An exported dataset.jsonl"
BUNDLED = "The demo translations bundled with annotator"
UPLOAD = "A file (JSONL or TSV: id, lang, system, translation)"


def _upload(upload: st.runtime.uploaded_file_manager.UploadedFile) -> str:
    """Uploaded bytes to a file under the project's data folder, where the worker reads them with the same checks
    as on the command line (the browser's copy lives only in this session)."""
    return str(jobs.save_upload(get_project(), upload.name, upload.getvalue()))


def kept_translations(user: User) -> tuple[str, str] | None:
    """(path, file name) of the translations this lead last uploaded for a page evaluation, while the kept copy
    exists: the page offers them again after a trip to Curate (a browser's upload does not survive leaving the page),
    after a reload and on another day, without uploading the file again."""
    project = get_project()
    folder = jobs.jobs_folder(project).resolve()
    for job in jobs.list_jobs(project, limit=50, kinds=[JobKind.EVALUATE]):
        path = Path(str(job.params.get("translations") or ""))
        if job.user != user.name or not job.params.get("page") or path.parent != folder:
            continue
        if path.name.startswith("upload-") and path.is_file():
            return str(path), str(job.params.get("translations_name") or path.name)
    return None


def kept_label(kept: tuple[str, str]) -> str:
    return f"The file of my last run: {kept[1]}"


def shown_choice(option: str, kept: tuple[str, str] | None) -> str:
    """A translations choice as the radio shows it: option labels are Markdown, and the kept file's name is the
    user's text, shown literally."""
    if kept is not None and option == kept_label(kept):
        return f"The file of my last run: {md(kept[1])}"
    return option


def job_params(
    dataset_choice: str,
    dataset_upload,
    translations_choice: str,
    translations_upload,
    analyser: str,
    models: str,
    kept: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """What the evaluation job needs; a missing upload is refused here, before any job is recorded."""
    if dataset_choice != CURRENT and dataset_upload is None:
        raise UserError("Choose the dataset.jsonl to score against.")
    reuse = kept is not None and translations_choice == kept_label(kept)
    if translations_choice != BUNDLED and not reuse and translations_upload is None:
        raise UserError("Upload the translations to score.")
    params: dict[str, Any] = {"page": True, "analyser": analyser}
    if models:
        params["models"] = models
    if dataset_choice == CURRENT:
        params["current"] = True
    else:
        params.update(dataset=_upload(dataset_upload), dataset_name=Path(dataset_upload.name).name)
    if translations_choice == BUNDLED:
        path = builtin_path(DEMO_TRANSLATIONS)
        params.update(translations=str(path), translations_name=path.name)
    elif reuse and kept is not None:
        params.update(translations=kept[0], translations_name=kept[1])
    else:
        params.update(translations=_upload(translations_upload), translations_name=Path(translations_upload.name).name)
    return params


def start(params: dict[str, Any]) -> None:
    """Start the evaluation as a background job: it runs outside this session, so leaving the page (or closing
    the tab) does not stop it, and every lead sees its progress in the jobs panel."""
    job = jobs.start(get_project(), JobKind.EVALUATE, params, user=require_lead())
    st.session_state.setdefault(SEEN_ACTIVE_KEY, set()).add(job.id)
    st.info(f"Evaluation job {job.id} started in the background; its progress is shown under Jobs.")


def latest_result() -> EvaluationResult | None:
    """The newest evaluation the page started that finished, read from the database (whichever server ran it)
    once per job."""
    job = jobs.latest_done(get_project(), JobKind.EVALUATE, page=True)
    if job is None:
        return None
    kept: KeptResult | None = st.session_state.get(RESULT_KEY)
    if kept is not None and kept.job_id == job.id:
        return kept.result
    result = load_result(get_project(), job.id)
    st.session_state[RESULT_KEY] = KeptResult(job.id, result)
    return result


#: Columns shown only when some row is not 0, and what their absence says.
OPTIONAL_COLUMNS = {
    "no prov.": "no BAD match without provenance",
    "inspected": "no result inspected yet",
}
#: Widths that fit the metrics table in a 1366 px window (percentages with their counts in full).
METRICS_COLUMNS: dict[str, Any] = {
    "system": st.column_config.TextColumn("system", width=100),
    "lang": st.column_config.TextColumn("lang", width=45),
    "pos": st.column_config.TextColumn("pos", width=50),
    "n": st.column_config.TextColumn("n", width=45),
    "no prov.": st.column_config.TextColumn("no prov.", width=65, help="BAD matches whose ω has no provenance"),
    "inspected": st.column_config.TextColumn("inspected", width=75),
}


def bar_chart(chart: pd.DataFrame, measure: str) -> alt.Chart:
    """Bars per language and system with every label written horizontally (Streamlit's own bar chart turns the
    language codes and the measure's name 90°)."""
    import altair as alt

    return (
        alt.Chart(chart)
        .mark_bar()
        .encode(
            x=alt.X("language:N", axis=alt.Axis(labelAngle=0, title=None)),
            xOffset="system:N",
            y=alt.Y(
                f"{measure}:Q",
                axis=alt.Axis(
                    title=f"{measure} (%)", titleAngle=0, titleAlign="left", titleAnchor="end", titleY=-8, titleX=0
                ),
            ),
            color=alt.Color("system:N", legend=alt.Legend(orient="bottom", title=None)),
            tooltip=["language", "system", alt.Tooltip(f"{measure}:Q", format=".1f")],
        )
        .properties(height=260)
    )


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
                f"{format_skipped(result.skipped)}: the dataset has nothing to score them against "
                "(an export leaves out unfinished, discarded and excluded items)."
            ),
            icon=":material/info:",
        )
    table = pd.DataFrame(metrics_table_rows(result.metrics))
    quiet = [name for name in OPTIONAL_COLUMNS if name in table and (table[name] == "0").all()]
    if quiet:  # columns of zeros only: said once here, so the table fits the page without scrolling sideways
        table = table.drop(columns=quiet)
        st.caption(" · ".join(OPTIONAL_COLUMNS[name] for name in quiet))
    st.container(key="evaluate_metrics").dataframe(
        table, hide_index=True, width="stretch", column_config=METRICS_COLUMNS
    )
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
        left.altair_chart(bar_chart(chart, "Accuracy"), width="stretch")
        right.caption("% MISS per language")
        right.altair_chart(bar_chart(chart, "% MISS"), width="stretch")


def _highlighted(text: str, span: list[int] | None, outcome: str) -> str:
    before, match, after = split_at_span(text, span)
    colour = "#fde2e1" if outcome == "BAD" else "#dff3e4"
    marked = f'<mark style="background:{colour};padding:0 2px">{safe_text.html(match)}</mark>' if match else ""
    return safe_text.html(before) + marked + safe_text.html(after)


#: The row last opened in Curate (its container's key), and each filter's value kept while the page is not shown
#: (Streamlit forgets a widget's value when its page is left).
OPENED_KEY = "evaluate_opened_row"
KEPT_PREFIX = "evaluate_kept|"
#: Scrolls the row opened in Curate back into view once it is drawn (after Back, the page opens at the top).
SCROLL_TO = """<script>
(() => { let tries = 0; const find = () => {
  const row = window.parent.document.querySelector('.st-key-ANCHOR') || document.querySelector('.st-key-ANCHOR');
  if (row) { row.scrollIntoView({block: 'center'}); } else if (++tries < 50) { setTimeout(find, 100); }
}; find(); })();
</script>"""


def row_anchor(row: dict[str, Any]) -> str:
    """A CSS-safe key for a result's container (ids may hold any character)."""
    digest = hashlib.sha256(f"{row['id']}|{row['lang']}|{row['system']}".encode()).hexdigest()[:16]
    return f"eval_row_{digest}"


def restore_filters(options: dict[str, list[str]]) -> None:
    """Give each filter back the value it had before the page was left (when that value is still offered)."""
    for key, offered in options.items():
        kept = st.session_state.get(KEPT_PREFIX + key)
        if key not in st.session_state and kept in offered:
            st.session_state[key] = kept


def keep_filters(keys: tuple[str, ...]) -> None:
    for key in keys:
        st.session_state[KEPT_PREFIX + key] = st.session_state.get(key)


def render_browser(result: EvaluationResult) -> None:
    st.subheader("MISS and BAD translations")
    st.caption(
        "A MISS often means a GOOD or BAD candidate is missing: open the item in Curate, add it, and run the "
        "evaluation again — it scores against the current curation."
    )
    rows = [r.to_dict() for r in result.results if str(r.outcome) in ("MISS", "BAD")]
    cols = st.columns(3)
    langs = ["all", *sorted({r["lang"] for r in rows})]
    systems = ["all", *sorted({r["system"] for r in rows})]
    restore_filters({"evaluate_outcome": ["MISS", "BAD"], "evaluate_lang": langs, "evaluate_system": systems})
    outcome = cols[0].segmented_control("Result", ["MISS", "BAD"], default="MISS", key="evaluate_outcome")
    lang = cols[1].selectbox(
        "Language",
        langs,
        key="evaluate_lang",
        format_func=lambda c: "all languages" if c == "all" else language_label(c),
    )
    system = cols[2].selectbox("System", systems, key="evaluate_system")
    keep_filters(("evaluate_outcome", "evaluate_lang", "evaluate_system"))
    opened = st.session_state.pop(OPENED_KEY, None)
    shown = [
        r
        for r in rows
        if r["result"] == (outcome or "MISS") and lang in ("all", r["lang"]) and system in ("all", r["system"])
    ]
    st.caption(f"{len(shown)} translation(s)")
    for row in shown[:200]:
        anchor = row_anchor(row)
        with st.container(border=True, key=anchor):
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
                from annotator.app.pages import curate  # the card there shows this translation

                st.session_state[OPENED_KEY] = anchor  # back on this page, the list opens at this row

                curate.open_from_evaluate(
                    row["id"], row["lang"], row["system"], row["translation"], row["span"], row["result"]
                )
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
    if opened and any(row_anchor(row) == opened for row in shown[:200]):
        st.html(SCROLL_TO.replace("ANCHOR", opened), unsafe_allow_javascript=True)


def render_report(result: EvaluationResult) -> None:
    """The per-system report (DiBiMT Tables 3–6, appendix D) of this run: its charts here, the HTML to download."""
    st.subheader("Report")
    built: BuiltReport | None = st.session_state.get(REPORT_KEY)
    if built is None or built.created != result.created:
        if not st.button("Build the report (charts, consistency heat maps, tables)", key="evaluate_report"):
            return
        with st.spinner("Building the report…"):
            from annotator.reporting.report import report_for_result

            report, page = report_for_result(result)
        built = st.session_state[REPORT_KEY] = BuiltReport(result.created, report, page)
    report, page = built.report, built.page
    st.download_button(
        "Download the report (one HTML file, works offline)",
        data=guarded_file(lambda: page.encode("utf-8"), lead=True),  # handed over on the click, if still a lead
        file_name="report.html",
        mime="text/html",
        key="evaluate_report_download",
        on_click="ignore",  # a download needs no rerun (see pages/dataset.py, DEFERRED_CLICK)
    )
    # one chart per row at its own size: a heat map of many languages never overflows (and clips in) a half column;
    # Vega's own sizing (theme=None), as in report.html: Streamlit's theme fits the whole chart, legend and title
    # included, into the plot's height, which squashed the plot and clipped the title
    for _name, chart in report.charts:
        st.altair_chart(chart, width="content", theme=None)


def render() -> None:
    lead = require_lead()
    kept = kept_translations(lead)
    st.header("Evaluate machine translations")
    st.caption("DiBiMT §3.4: each translation is GOOD, BAD or MISS against the GOOD/BAD candidates of its item.")
    with st.container(border=True):  # not a form: each choice shows only the inputs it needs, at once
        left, right = st.columns(2)
        dataset_choice = left.radio("Score against", [CURRENT, UPLOADED], key="evaluate_dataset_choice")
        dataset_upload = None
        if dataset_choice == UPLOADED:
            dataset_upload = left.file_uploader("dataset.jsonl", type=["jsonl"], key="evaluate_dataset_file")
        translations_choice = right.radio(
            "Translations",
            [kept_label(kept), UPLOAD, BUNDLED] if kept else [UPLOAD, BUNDLED],
            format_func=lambda option: shown_choice(option, kept),
            key="evaluate_translations_choice",
        )
        translations_upload = None
        if translations_choice == UPLOAD:
            translations_upload = right.file_uploader(
                "Translations file", type=["jsonl", "tsv", "txt"], key="evaluate_translations_file"
            )
        analyser = left.selectbox(
            "Analyser",
            ANALYSERS,
            key="evaluate_analyser",
            help="default: simplemma + jieba, no downloads; stanza: needs its models",
        )
        models = ""
        if analyser == "stanza":
            models = right.text_input(
                "Stanza model folder", key="evaluate_models", help="empty: Stanza's own folder on the server"
            )
        submitted = st.button("Run evaluation", type="primary", key="evaluate_run")
    if submitted:
        try:
            params = job_params(
                dataset_choice, dataset_upload, translations_choice, translations_upload, analyser, models, kept
            )
            start(params)
        except UserError as error:
            st.error(md(error))
    render_jobs(kinds=[JobKind.EVALUATE])
    try:
        result = latest_result()
    except UserError as error:
        st.error(md(error))
        return
    if result is None:
        st.info("Choose the translations and run the evaluation.")
        return
    skipped = f" {format_skipped(result.skipped)}." if result.skipped else ""
    st.caption(md(f"Results of the run of {result.created} (UTC): {len(result.results)} translations scored.{skipped}"))
    from annotator.app.pages.evaluate_inspection import render_inspection, with_verdicts

    result = with_verdicts(result)
    render_metrics(result)
    render_report(result)
    render_browser(result)
    render_inspection(result)
