"""Items page: every imported item with its λ, σ, δ(λ), filter results and status per language.

A read-only overview for everyone; picking a row opens it on the Curate page in one of the user's languages.
Reading a large project takes a while, so the table is cached for a minute per project (shared by all sessions) and
has a Refresh button.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st

from annotator.app import components, project_cache, session
from annotator.app.safe_text import md, synset_url, visible_controls
from annotator.domain.dataset_counts import ALL, CountColumn, CountedItem, counts_of
from annotator.domain.languages import language_label
from annotator.domain.model import Role, Status
from annotator.project import Project
from annotator.services import read_model

CURATE_PAGE = Path(__file__).resolve().parent / "curate.py"
SEARCH_KEY = "items_search"


def item_rows(project: Project, languages: tuple[str, ...], lead: bool = True) -> list[dict[str, Any]]:
    """One row per item; statuses come from the lightweight queue query, not the candidate sets.

    The per-language statuses come right after the id and the word, so they are in view on a laptop screen; the
    long text (sentence, filters) comes last."""
    data = read_model.item_statuses(project, languages)
    status, assigned = data.status, data.assigned  # assigned (double curation): shown as "×2" after the status
    rows = []
    for item in data.items:
        row: dict[str, Any] = {
            "item_id": item.id,  # hidden: the id to open, exactly as stored
            "id": visible_controls(item.id),  # the table draws text as is: bidi overrides would reverse it
            "word": visible_controls(item.target.text),
        }
        for lang in languages:
            found = status[lang].get(item.id)
            row[lang] = (components.STATUS_LABEL[Status(found)] if found else "") + (
                " ×2" if (item.id, lang) in assigned else ""
            )
        row.update(
            {
                "lemma": visible_controls(item.target.lemma),
                "POS": item.target.pos,
                "sentence": visible_controls(item.sentence),
                # plain text; only a well-formed bn: id gets a link, in its own column
                "synset": visible_controls(item.synset),
                "BabelNet": synset_url(item.synset),
                "δ": item.polysemy_degree,
                "μ": item.sense_rank,
                "filters": "; ".join(item.filter_failures),
            }
        )
        if lead:  # the lead's decision; a translator's queue never holds excluded items
            row["excluded"] = item.excluded
        rows.append(row)
    return rows


def column_config(languages: tuple[str, ...], lead: bool) -> dict[str, Any]:
    """Widths that keep every header whole at 1366 px; each language's column named in full in its tooltip; the
    lead's own column (excluded) hidden from translators."""
    config: dict[str, Any] = {
        "item_id": None,
        "id": st.column_config.TextColumn("id", width="medium", pinned=True),
        "word": st.column_config.TextColumn("word", width="small"),
        "lemma": st.column_config.TextColumn("lemma", width="small"),
        "POS": st.column_config.TextColumn("POS", width=60),
        "sentence": st.column_config.TextColumn("sentence", width="large"),
        "synset": st.column_config.TextColumn("synset", width="medium"),
        "BabelNet": st.column_config.LinkColumn("BabelNet", display_text="open", width=90),
        "δ": st.column_config.NumberColumn("δ", width=50, help="polysemy degree of the lemma"),
        "μ": st.column_config.NumberColumn("μ", width=50, help="rank of the sense among the lemma's"),
        "filters": st.column_config.TextColumn("filters", width="medium", help="selection filters the item fails"),
    }
    if lead:
        config["excluded"] = st.column_config.CheckboxColumn("excluded", width=80)
    for lang in languages:
        config[lang] = st.column_config.TextColumn(lang, width=100, help=f"status in {language_label(lang)}")
    return config


@st.cache_data(ttl=60, max_entries=8, show_spinner="Reading the items…")
def cached_item_rows(
    data_dir: str, languages: tuple[str, ...], lead: bool
) -> tuple[float, list[dict[str, Any]], CountColumn]:
    """``item_rows`` with the time it was read and their counts (as the dataset card's Table 1 counts them: a lemma
    case-folded, once whatever its POS), counted once per read rather than on every rerun; ``data_dir`` keys the
    cache to the open project."""
    del data_dir
    read_at = time.time()
    rows = item_rows(project_cache.get_project(), languages, lead)
    counted = counts_of(CountedItem(r["item_id"], r["lemma"], r["POS"], r["synset"]) for r in rows).columns[ALL]
    return read_at, rows, counted


def _matches(row: dict[str, Any], needle: str) -> bool:
    return any(needle in str(row[k]).lower() for k in ("id", "lemma", "word", "sentence", "synset"))


def render() -> None:
    project = project_cache.get_project()
    user = session.current_user()
    if user is None:
        st.stop()
    settings = project.settings()
    lead = user.role is Role.LEAD
    # a translator sees the languages they work in; a lead every language of the project
    mine = session.curatable_languages(user, settings.languages)
    languages = tuple(lang for lang in settings.languages if lead or lang in mine)  # in the project's order
    st.header("Items")
    read_at, rows, counted = cached_item_rows(str(project.data_dir), languages, lead)
    top = st.columns([5, 1], vertical_alignment="center")
    top[0].caption(
        f"{counted.items} items · {counted.lemmas} lemmas · {counted.synsets} synsets · languages {' '.join(languages)}"
        f" · statuses as of {time.strftime('%H:%M:%S', time.localtime(read_at))} · ×2: double curation"
    )
    if top[1].button("↻ Refresh", key="items_refresh", help="Re-read the items and their statuses now"):
        cached_item_rows.clear()
        st.rerun()
    search = st.text_input("Search", key=SEARCH_KEY, type="search", placeholder="lemma, word, id, sentence or synset")
    if search and search.strip():
        needle = search.strip().lower()
        rows = [r for r in rows if _matches(r, needle)]
    if not rows:
        st.info("No items." if not search else "No item matches the search.")
        return
    selection = st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        key="items_table",
        on_select="rerun",
        selection_mode="single-row",
        column_config=column_config(languages, lead),
    )
    langs = session.curatable_languages(user, settings.languages)
    picked = selection.selection.rows if selection else []
    if picked and langs:
        row = rows[picked[0]]
        cols = st.columns([2, 1, 3], vertical_alignment="bottom")
        lang = cols[0].selectbox("Language", langs, key="items_lang", format_func=language_label)
        if cols[1].button("Open in Curate", type="primary", help=f"Open {md(row['id'])} on the Curate page"):
            st.switch_page(CURATE_PAGE, query_params={"item": row["item_id"], "lang": lang})
    elif langs:
        st.caption(
            "To open an item on the Curate page: tick the box at the left of its row, then choose the language "
            "and press “Open in Curate” below the table."
        )


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
