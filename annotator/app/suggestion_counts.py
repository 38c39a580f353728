"""The Project page's block on empty GOOD lists (issue 33): per language, how many item-languages start with an
empty GOOD list and how many of those have suggestions for the translator."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator.context import ProjectContext
from annotator.domain.suggestions import language_name
from annotator.services.suggestions import empty_good_counts


def render_empty_good_counts(project: ProjectContext) -> None:
    """A small table under pre-population; nothing before anything starts empty."""
    counts = [c for c in empty_good_counts(project) if c.empty_good]
    if not counts:
        return
    st.markdown("**Empty GOOD lists after pre-population**")
    frame = pd.DataFrame(
        [
            {
                "language": f"{language_name(c.lang)} ({c.lang})",
                "start with an empty GOOD list": c.empty_good,
                "of those, with suggestions": c.with_suggestions,
                "not looked at yet": c.not_computed,
            }
            for c in counts
        ]
    )
    st.dataframe(frame, hide_index=True, width="content")
    if any(c.not_computed for c in counts):
        st.caption("Suggestions are looked for when an item is first opened in Curate; the counts grow as they are.")
