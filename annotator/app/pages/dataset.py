"""Dataset page (leads): the DiBiMT tables for what an export would hold, progress, the export, spreadsheets.

The statistics shown are computed (once per change of the data, ``services.read_model``) by the same
``collect``/``Selection`` the export uses, with the same two
options, so what the lead sees here is what ``stats.json`` will say. The options change only which items are
exported and the counts; the refinement statistics cover every done item-language of the non-excluded items
(SPEC §6).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pandas as pd
import streamlit as st

from annotator.app import jobs_panel
from annotator.app.components import STATUS_LABEL, bars_per_language, show_row_problems, when_utc
from annotator.app.guards import guarded_file
from annotator.app.project_cache import get_project
from annotator.app.publish_panel import render_publish
from annotator.app.safe_text import code, md
from annotator.app.session import current_user, require_lead, service
from annotator.atomic_files import write_bytes_atomic
from annotator.data_export.dataset import ExportOptions, default_export_root, nothing_to_export
from annotator.data_export.sheet_names import sheet_file_name
from annotator.domain.jobs import JobKind
from annotator.domain.languages import language_label
from annotator.domain.model import Status
from annotator.domain.refinement_stats import NA, format_value
from annotator.errors import UserError
from annotator.project import Project
from annotator.services import job_files, jobs
from annotator.services.read_model_dataset import DatasetOverview, dataset_overview

STAT_COLUMNS = {"added_pct": "% added", "removed_pct": "% removed", "shared_pct": "% shared"}


def refinement_frame(selection: DatasetOverview) -> pd.DataFrame:
    """Table 2 as text (n/a where a denominator is empty), one row per language plus Mean."""
    table = selection.refinement()
    rows: list[dict[str, Any]] = []
    for row in table.languages:
        rows.append(
            {
                "language": row.lang,
                "done item-languages": row.item_languages,
                "% added": format_value(row.added_pct),
                "% removed": format_value(row.removed_pct),
                "% shared": format_value(row.shared_pct),
                "same-synset pairs": row.pairs,
                "mean Jaccard": format_value(row.mean_jaccard, 3),
            }
        )
    mean = table.mean
    rows.append(
        {
            "language": "Mean",
            "done item-languages": None,
            "% added": format_value(mean["added_pct"]),
            "% removed": format_value(mean["removed_pct"]),
            "% shared": format_value(mean["shared_pct"]),
            "same-synset pairs": None,
            "mean Jaccard": format_value(mean["mean_jaccard"], 3),
        }
    )
    frame = pd.DataFrame(rows)
    for column in ("done item-languages", "same-synset pairs"):  # the Mean row has no count: shown empty
        frame[column] = ["" if value is None or pd.isna(value) else str(int(value)) for value in frame[column]]
    return frame


def chart_frame(selection: DatasetOverview) -> pd.DataFrame:
    """The three percentages per language as numbers (n/a left empty) for the bar chart."""
    table = selection.refinement()
    data = {label: [getattr(row, name) for row in table.languages] for name, label in STAT_COLUMNS.items()}
    return pd.DataFrame(data, index=[row.lang for row in table.languages], dtype="float64")


def counts_frame(selection: DatasetOverview) -> pd.DataFrame:
    counts = selection.counts()
    return pd.DataFrame(
        [row[1:] for row in counts.rows()], index=[row[0] for row in counts.rows()], columns=list(counts.columns)
    )


def progress_frame(selection: DatasetOverview, languages: Sequence[str]) -> pd.DataFrame:
    """The progress per language; its counts come with the overview (read once per change of the data)."""
    counts = selection.progress
    rows = []
    for lang in languages:
        by_status = counts.get(lang, {})
        total = sum(by_status.values())
        rows.append({"language": lang, **{STATUS_LABEL[s]: by_status.get(s.value, 0) for s in Status}, "total": total})
    return pd.DataFrame(rows)


def render_progress(selection: DatasetOverview, languages: Sequence[str]) -> None:
    st.subheader("Progress per language")
    frame = progress_frame(selection, languages)
    st.dataframe(frame, hide_index=True, width="stretch")
    for row in frame.to_dict("records"):
        done, total = int(row["done"]), int(row["total"])
        st.progress(done / total if total else 0.0, text=f"{row['language']}: {done} of {total} done")


def render_statistics(selection: DatasetOverview) -> None:
    st.subheader("Refinement statistics (DiBiMT Table 2)")
    st.caption(
        "Over every done item-language of the items not excluded (whatever the export options). % added: share "
        "of final GOOD candidates the translators added; % removed: share of pre-populated GOOD candidates "
        f"removed; % shared: same-synset item pairs with identical GOOD sets. {NA}: nothing to count yet. "
        "Mean: unweighted mean of the languages that have a value."
    )
    st.dataframe(refinement_frame(selection), hide_index=True, width="stretch")
    chart = chart_frame(selection)
    if chart.notna().to_numpy().any():
        bars_per_language(chart, "%")
    st.subheader("Dataset counts (DiBiMT Table 1)")
    st.dataframe(counts_frame(selection), width="stretch")
    left = ", ".join(f"{n} {why}" for why, n in selection.left_out.items() if n)
    if left:
        st.caption(f"Left out of the export: {left}.")


#: Why the buttons whose file is made when clicked (``data`` a callable) do not rerun the page: a rerun registers
#: the file under a new id and drops the old one, while the browser asks for the old one at the same moment; when
#: the rerun won, the download failed ("Failed to generate file for download"). A download needs no rerun.
DEFERRED_CLICK: Final = "ignore"


def render_export(project: Project, options: ExportOptions, selection: DatasetOverview | None = None) -> None:
    st.subheader("Export")
    st.caption(
        f"Writes a new folder under {default_export_root(project)}: dataset.jsonl, discarded.jsonl, stats.json, "
        "manifest.json and the line schema. By default it holds the items done in every language; items a lead "
        "excluded and items discarded in any language are left out (see the two options above)."
    )
    empty = selection is not None and not selection.items
    if empty and selection is not None:  # refused as the command line refuses it, with the same reason
        unfinished = selection.left_out.get("incomplete", 0)
        offer = (
            f" Tick “Include items not yet done in every language” above to export the {unfinished} unfinished "
            "item(s) with their current candidates."
            if unfinished and not options.include_incomplete
            else ""
        )
        st.warning(md(nothing_to_export(selection.left_out) + offer))
    jobs_panel.start_button(  # a background job: a click elsewhere does not stop it, any lead sees it
        JobKind.EXPORT,
        "Write export",
        "dataset_export",
        lambda: {"out": str(default_export_root(project)), **options.to_json()},
        disabled=empty,
    )
    jobs_panel.render_jobs([JobKind.EXPORT])
    last = jobs.latest_done(project, JobKind.EXPORT)
    names = job_files.file_names(project, last.id) if last is not None else []
    if last is not None and names:  # kept in the database: the same on every app server, whichever wrote it
        folder = Path(str((last.result or {}).get("path", f"export-{last.id}"))).name
        st.markdown(f"Last export: {code(folder)} (job {last.id}, {when_utc(last.finished_at)})")
        # one row that wraps, each button as wide as its file name: none cut, the same gap between all
        row = st.container(horizontal=True, gap="small", wrap=True)
        for name in names:  # read when clicked, not per rerun
            row.download_button(
                name,
                data=guarded_file(functools.partial(job_files.read_bytes, project, last.id, name), lead=True),
                file_name=name,
                key=f"dataset_dl_{name}",
                on_click=DEFERRED_CLICK,
                width="content",
            )
        row.download_button(
            "all (.zip)",
            data=guarded_file(functools.partial(job_files.zip_bytes, project, last.id, names), lead=True),
            file_name=f"{folder}.zip",
            mime="application/zip",
            key="dataset_dl_zip",
            on_click=DEFERRED_CLICK,
            width="content",
        )


def render_sheets(project: Project, languages: Sequence[str]) -> None:
    st.subheader("Spreadsheets")
    st.caption(
        "One .xlsx per language for offline curation: edit GOOD/BAD (one candidate per line), status, "
        "reason and note; import it back here. All rows are checked first; nothing is applied if any is "
        "wrong."
    )
    left, right = st.columns(2)
    with left:
        lang = st.selectbox("Language", languages, key="dataset_sheet_lang", format_func=language_label)
        st.download_button(
            f"Download the {lang} sheet",
            data=guarded_file(lambda: _sheet_bytes(project, lang), lead=True),
            file_name=sheet_file_name(lang),
            mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            key="dataset_sheet_download",
            on_click=DEFERRED_CLICK,
        )
    with right:
        uploaded = st.file_uploader("Import an edited sheet", type=["xlsx"], key="dataset_sheet_upload")
        if uploaded is not None and st.button("Apply the sheet", key="dataset_sheet_apply"):
            _import_uploaded(uploaded.name, uploaded.getvalue())


def _sheet_bytes(project: Project, lang: str) -> bytes:
    """The language's workbook, made when the download is clicked: the workbook library loads only then."""
    from annotator.data_export.spreadsheet import sheet_bytes

    return sheet_bytes(project, lang)[1]


def _import_uploaded(name: str, data: bytes) -> None:
    from annotator.services.sheet_import import SheetImportError, import_sheet

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(name).name
        write_bytes_atomic(path, data)
        try:
            report = import_sheet(service(), path)
        except SheetImportError as error:
            show_row_problems(error)
            return
        except UserError as error:
            st.error(md(error))
            return
    st.success(md(f"{name}: {report.summary()}"))
    if report.changed:
        st.dataframe(
            pd.DataFrame([{"row": c.row, "item": c.item_id, "actions": ", ".join(c.actions)} for c in report.changed]),
            hide_index=True,
        )


def render() -> None:
    require_lead()
    user = current_user()
    project = get_project()
    st.header("Dataset")
    if user is not None:
        st.caption(f"Signed in as {md(user.name)}: sheet imports are applied as your edits.")
    first, second = st.columns(2)
    include_incomplete = first.checkbox(
        "Include items not yet done in every language", key="dataset_include_incomplete"
    )
    keep_partial = second.checkbox(
        "Keep items discarded in some language (for their other languages)", key="dataset_keep_partial"
    )
    with_annotators = first.checkbox(  # each double-curating translator's sets, anonymised
        "Include each double-curating translator's own sets (anonymous ids)", key="dataset_with_annotators"
    )
    options = ExportOptions(
        include_incomplete=include_incomplete, keep_partially_discarded=keep_partial, with_annotators=with_annotators
    )
    selection = dataset_overview(project, options)  # computed once per change of the data
    render_statistics(selection)
    languages = project.settings().languages  # read once for the page's parts
    render_progress(selection, languages)
    render_export(project, options, selection)
    render_publish(project, include_incomplete)  # the Hugging Face folder as a zip
    render_sheets(project, languages)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
