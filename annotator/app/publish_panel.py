"""The Dataset page's "Publish" block: the Hugging Face dataset folder, offered as a zip.

The folder is made when the lead clicks "Prepare" (a progress bar while it is written), zipped, and kept in the
lead's session as bytes for the download button, which hands them over on the click only while the session is still
a lead's (``guards.guarded_file``, as every download) and survives the page's reruns.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from annotator.app.guards import guarded_file
from annotator.app.safe_text import md
from annotator.data_export.dataset import NothingToExport, nothing_to_export
from annotator.data_export.publish import publish
from annotator.domain.licences import OTHER, publishable_ids
from annotator.errors import UserError
from annotator.project import Project

#: Session key of the prepared zip (a ``PreparedZip``).
PREPARED = "publish_prepared"


class PreparedZip(NamedTuple):
    """The zip made by Prepare, kept for its download button: file name, bytes, one line saying what it holds."""

    file_name: str
    data: bytes
    summary: str


MOST_OPEN = "the most open licence the sources allow"
UNUSABLE_LABEL = "Also publish rows that are not usable (not done, or GOOD empty)"


def zip_folder(folder: Path) -> bytes:
    """The folder's files in a zip, under one top folder named like it (paths relative, sorted: stable bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


class _Asked(NamedTuple):
    """What the lead typed and ticked in the form."""

    name: str
    licence: str | None
    include_unusable: bool
    hub_id: str
    authors: str


def _prepare(project: Project, asked: _Asked, include_incomplete: bool) -> None:
    bar = st.progress(0.0, text="Preparing the dataset folder…")

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(min(done / total, 1.0) if total else 0.0, text=f"Preparing the dataset folder… ({message})")

    with tempfile.TemporaryDirectory() as tmp:
        try:
            result = publish(
                project,
                Path(tmp) / "dataset",
                name=asked.name or None,
                licence=asked.licence,
                include_incomplete=include_incomplete,
                progress=progress,
                include_unusable=asked.include_unusable,
                hub_id=asked.hub_id.strip() or None,
                authors=tuple(line.strip() for line in asked.authors.splitlines() if line.strip()),
            )
        except NothingToExport as nothing:  # the real reason (excluded, discarded, unfinished); the tick if it helps
            bar.empty()
            st.session_state.pop(PREPARED, None)
            unfinished = nothing.left_out.get("incomplete", 0)
            unusable = nothing.left_out.get("unusable", 0)
            offer = ""
            if unfinished and not include_incomplete:
                offer = (
                    f" Tick “Include items not yet done in every language” above to publish the usable rows of the "
                    f"{unfinished} unfinished item(s) too."
                )
            elif unusable and not asked.include_unusable:
                offer = f" Tick “{UNUSABLE_LABEL}” to publish the {unusable} item(s) whose rows are not usable."
            st.warning(md(nothing_to_export(nothing.left_out, "publish") + offer))
            return
        except UserError as error:
            bar.empty()
            st.session_state.pop(PREPARED, None)
            st.error(md(error))
            return
        data = zip_folder(result.path)
    bar.empty()
    rows = ", ".join(f"{config}: {n}" for config, n in result.rows.items())
    to_fill = f" The card holds {result.placeholders} placeholder(s) marked TO FILL." if result.placeholders else ""
    st.session_state[PREPARED] = PreparedZip("dataset.zip", data, f"Licence {result.licence}; rows {rows}.{to_fill}")


def render_publish(project: Project, include_incomplete: bool) -> None:
    """The block: name, licence, Prepare, then the zip's download button and what it holds."""
    st.subheader("Publish")
    st.caption(
        "A folder ready for the Hugging Face Hub, made from a new export: one Parquet file per language and one "
        "for the discarded item-languages, a dataset card (README.md) saying what the data is and how it was "
        "built, Croissant metadata and the licences of the sources the rows came from (the sentences' corpora, the "
        "lexicons of their candidates). The licence must be one those sources allow. Only usable rows (done, with "
        "something in GOOD) are published unless you tick below; what the project cannot know is marked TO FILL in "
        "the card."
    )
    # a form: choosing a name or a licence reruns nothing until Prepare (a rerun while a download of the export
    # above is being fetched would re-register its file under a new id)
    with st.form("publish_form", border=False):
        left, right = st.columns(2)
        name = left.text_input("Dataset name", value=project.settings().name, key="publish_name")
        choice = right.selectbox("Licence", [MOST_OPEN, *publishable_ids(), OTHER], key="publish_licence")
        hub_id = left.text_input("Hugging Face Hub id (OWNER/NAME, optional)", key="publish_hub_id")
        authors = right.text_area("Authors (one per line, optional)", key="publish_authors", height=80)
        unusable = st.checkbox(UNUSABLE_LABEL, key="publish_include_unusable")
        prepare = st.form_submit_button("Prepare the dataset folder", key="publish_prepare")
    if prepare:
        asked = _Asked(name, None if choice == MOST_OPEN else choice, unusable, hub_id, authors)
        _prepare(project, asked, include_incomplete)
    prepared: PreparedZip | None = st.session_state.get(PREPARED)
    if prepared:
        data = prepared.data
        st.caption(md(prepared.summary))
        st.download_button(
            "Download the dataset folder (.zip)",
            data=guarded_file(lambda: data, lead=True),  # an ended session gets no byte of it
            file_name=prepared.file_name,
            mime="application/zip",
            key="publish_download",
            on_click="ignore",  # the bytes are ready: downloading needs no rerun of the page
        )
