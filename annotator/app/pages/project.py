"""Project page (leads): import items, pre-populate from the lexicon, run the selection filters, languages.

The same services as ``annotator import``, ``annotator prepopulate`` and ``annotator filter``, run as background
jobs (``annotator jobs``) whose progress any lead follows here, so a lead never needs a terminal for the
day-to-day preparation work and a click elsewhere never stops a run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from annotator.app import jobs_panel
from annotator.app.components import show_row_problems
from annotator.app.project_cache import get_project
from annotator.app.safe_text import code, md
from annotator.app.session import require_lead
from annotator.app.suggestion_counts import render_empty_good_counts, render_suggestion_kinds
from annotator.atomic_files import write_bytes_atomic
from annotator.data_import.items import ItemImportError, parse_item_file
from annotator.domain.jobs import JobKind
from annotator.domain.languages import language_label
from annotator.domain.licences import LICENCES, UNKNOWN
from annotator.domain.model import Item
from annotator.domain.settings import LexiconSettings, ProjectSettings, parse_languages
from annotator.errors import UserError
from annotator.lexicon.sources import allowed_sources
from annotator.project import Project
from annotator.services import read_model
from annotator.services.administration import add_languages, project_limits, set_excluded
from annotator.services.import_wsd import check_wsd_xml
from annotator.services.jobs import save_upload
from annotator.services.languages import no_lexicon_message, remove_language, wordnet_sources


def render_settings(settings: ProjectSettings) -> None:
    project = get_project()
    st.subheader("Settings")
    lexicon = settings.lexicon
    st.markdown(f"**{md(settings.name)}** · folder {code(project.data_dir)} · lexicon {_lexicon_source(lexicon)}")
    try:  # only a wordnet project has sources of its own (and reading them reads the settings again)
        own = wordnet_sources(project) if lexicon.provider == "wordnet" else None
    except UserError as error:  # the wordnet database cannot be read: said, the rest of the page still works
        st.warning(md(error))
        own = {}
    if own is None:
        st.caption(
            "Allowed sources: "
            + md(
                " · ".join(
                    allowed_sources(lang, settings.allowed_sources).describe() for lang in ("EN", *settings.languages)
                )
            )
        )
    else:  # a wordnet project's sources are its own lexicons, not BabelNet's defaults
        st.caption(
            "Sources (the project's wordnet lexicons): "
            + md(" · ".join(f"{lang}: {' '.join(own.get(lang, ())) or 'none'}" for lang in ("EN", *settings.languages)))
        )
        if missing := tuple(lang for lang in settings.languages if not own.get(lang)):
            st.warning(md(no_lexicon_message(missing)))
    render_languages(project, settings.languages)


def _lexicon_source(lexicon: LexiconSettings) -> str:
    """Where pre-population looks words up, in the provider's own terms (a wordnet project has no BabelNet URL)."""
    if lexicon.provider == "snapshot":
        return f"**snapshot** {code(lexicon.snapshot or 'not set')}"
    if lexicon.provider == "wordnet":
        return "**open wordnets** (the project's own wordnet database, in the data folder)"
    return f"**BabelNet** {code(lexicon.base_url)}"


def render_languages(project: Project, languages: tuple[str, ...]) -> None:
    """The project's languages by name; add one (checked against ISO 639), remove one nobody has curated."""
    st.markdown("**Languages:** " + md(" · ".join(language_label(lang) for lang in languages)))
    add, remove = st.columns(2)
    with add.form("project_add_language", border=False):
        text = st.text_input("Add a language", placeholder="code, e.g. FR", help="ISO 639-1 code, e.g. FR or PT")
        if st.form_submit_button("Add language") and text.strip():
            try:
                added = add_languages(project, parse_languages(text), require_lead())
            except UserError as error:
                st.error(md(error))
            else:
                names = ", ".join(language_label(lang) for lang in added) or "nothing new"
                st.session_state["project_language_changed"] = (
                    f"Added {names}: its items start as pending; pre-populate them below."
                )
                st.rerun()
    with remove.form("project_remove_language", border=False):
        lang = st.selectbox(
            "Remove a language",
            languages,
            index=None,
            format_func=language_label,
            placeholder="only one nobody has curated",
        )
        sure = st.checkbox("Yes, remove it (its pre-populated candidates go with it)")
        if st.form_submit_button("Remove language") and lang is not None:
            if not sure:
                st.warning("Tick “Yes, remove it” first.")
            else:
                try:
                    removal = remove_language(project, lang, require_lead())
                except UserError as error:
                    st.error(md(error))
                else:
                    st.session_state["project_language_changed"] = removal.summary()
                    st.rerun()
    if message := st.session_state.pop("project_language_changed", None):
        st.success(md(message))


def render_import() -> None:
    st.subheader("Import items")
    st.caption(
        "CSV, TSV, XLSX or JSONL with sentence, target (or start/end), lemma, pos, synset; id and source "
        "optional. All or nothing: a file with any bad row imports nothing and lists every bad row."
    )
    upload = st.file_uploader("Item file", type=["csv", "tsv", "xlsx", "jsonl", "xml"], key="project_import_file")
    force = st.checkbox(
        "Replace changed items even if they have curated work (their candidates are kept)", key="project_import_force"
    )
    chosen = st.selectbox(
        "Licence of the sentences",
        [UNKNOWN, *(licence.id for licence in LICENCES)],
        key="project_import_licence",
        format_func=lambda lid: "not stated (unknown: publish then allows only 'other')" if lid == UNKNOWN else lid,
        help="Recorded with the import: publish allows only the licences the sentences' licence allows. Not stated "
        "keeps what an earlier import of the same items recorded.",
    )
    licence = None if chosen == UNKNOWN else chosen
    if upload is not None and upload.name.lower().endswith(".xml"):
        _render_wsd_import(upload, force, licence)
    elif upload is not None:
        jobs_panel.start_button(
            JobKind.IMPORT, "Import", "project_import", lambda: {**_upload_params(upload, force), "licence": licence}
        )
    jobs_panel.render_job_status(JobKind.IMPORT)


def _render_wsd_import(upload, force: bool, licence: str | None) -> None:  # type: ignore[no-untyped-def]
    """WSD-framework XML: its gold key file too; sense keys become synsets through the project's wordnet."""
    st.caption(
        "WSD-framework XML (Raganato et al. 2017): one item per instance with one gold sense key; instances with "
        "several keys are skipped and listed unless the first key is kept. Needs the wordnet lexicon."
    )
    gold = st.file_uploader("Gold key file (FILE.gold.key.txt)", type=["txt"], key="project_import_gold")
    first_key = st.checkbox("Keep the first of several gold keys", key="project_import_first_key")
    if gold is not None:
        jobs_panel.start_button(
            JobKind.IMPORT,
            "Import",
            "project_import",
            lambda: {**_wsd_upload_params(upload, gold, first_key, force), "licence": licence},
        )


def _wsd_upload_params(upload, gold, first_key: bool, force: bool) -> dict:  # type: ignore[no-untyped-def]
    """Check both files here (every bad instance listed at once), then hand kept copies to the import job."""
    with tempfile.TemporaryDirectory() as tmp:
        xml_path = Path(tmp) / Path(upload.name).name
        gold_path = Path(tmp) / "gold.key.txt"
        write_bytes_atomic(xml_path, upload.getvalue())
        write_bytes_atomic(gold_path, gold.getvalue())
        try:
            checked = check_wsd_xml(get_project(), xml_path, gold_path, first_key)
        except ItemImportError as error:
            show_row_problems(error)
            st.stop()
        except UserError as error:
            st.error(md(str(error)))
            st.stop()
    if checked.multi_key:
        st.info(md(f"{len(checked.multi_key)} instance(s) with several gold keys will be skipped."))
    project = get_project()
    kept = save_upload(project, upload.name, upload.getvalue())
    kept_gold = save_upload(project, gold.name, gold.getvalue())
    return {
        "file": str(kept),
        "gold": str(kept_gold),
        "first_key": first_key,
        "force": force,
        "uploaded": True,
        "name": upload.name,
    }


def _upload_params(upload, force: bool) -> dict:  # type: ignore[no-untyped-def]
    """Check the file here (a refused file lists its rows at once), then hand a kept copy to the import job."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(upload.name).name
        write_bytes_atomic(path, upload.getvalue())
        try:
            parse_item_file(path, project_limits(get_project()))  # the project's own input limits
        except ItemImportError as error:
            show_row_problems(error)
            st.stop()
    kept = save_upload(get_project(), upload.name, upload.getvalue())
    return {"file": str(kept), "force": force, "uploaded": True}


def render_prepopulate() -> None:
    st.subheader("Pre-populate GOOD and BAD candidates")
    st.caption(
        "Only item-languages not yet pre-populated are filled; curated candidates are never overwritten. "
        "A run stopped by the lexicon (quota) keeps its work and resumes where it stopped."
    )
    jobs_panel.start_button(JobKind.PREPOPULATE, "Pre-populate", "project_prepopulate")
    jobs_panel.render_job_status(JobKind.PREPOPULATE)
    suggested = render_empty_good_counts(get_project())
    render_suggestion_kinds(get_project(), suggested)


def render_filters(flagged: list[Item]) -> None:
    project = get_project()
    st.subheader("Selection filters")
    st.caption(
        "δ(λ) ≥ 3 · at most one sentence per sense per source · the target-language condition. Failing "
        "items are marked, never deleted: tick the ones to exclude from curation and export."
    )
    jobs_panel.start_button(JobKind.FILTERS, "Run the filters", "project_filters")
    jobs_panel.render_job_status(JobKind.FILTERS)
    if not flagged:
        st.info("No item is flagged or excluded.")
        return
    frame = pd.DataFrame(
        [
            {
                "exclude": item.excluded,
                "id": item.id,
                "lemma": item.target.lemma,
                "pos": item.target.pos,
                "failures": "; ".join(item.filter_failures) or "(excluded by hand)",
            }
            for item in flagged
        ]
    )
    edited = st.data_editor(
        frame, hide_index=True, width="stretch", key="project_exclusions", disabled=["id", "lemma", "pos", "failures"]
    )
    if st.button("Save exclusions", key="project_save_exclusions"):
        chosen = dict(zip(edited["id"], edited["exclude"], strict=True))
        was = dict(zip(frame["id"], frame["exclude"], strict=True))
        lead = require_lead()
        set_excluded(project, [i for i, excluded in chosen.items() if excluded and not was[i]], True, lead)
        set_excluded(project, [i for i, excluded in chosen.items() if not excluded and was[i]], False, lead)
        st.success(f"{sum(chosen.values())} item(s) excluded.")


def render_audit(entries: list[dict[str, Any]]) -> None:
    with st.expander("Recent project changes (who, when, what)"):
        if entries:
            st.dataframe(pd.DataFrame(entries), hide_index=True, width="stretch")
        else:
            st.caption("Nothing yet.")


def render() -> None:
    require_lead()
    st.header("Project")
    page = read_model.project_page(get_project())  # settings, audit trail and flagged items: one read
    render_settings(page.settings)
    render_audit(page.recent_changes)
    st.divider()
    render_import()
    st.divider()
    render_prepopulate()
    st.divider()
    render_filters(page.flagged)
    st.divider()
    jobs_panel.render_jobs(latest=False)  # each job's progress and outcome show under its own button


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
