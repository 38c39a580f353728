"""The Project page's block on empty GOOD lists: per language, how many item-languages start with an
empty GOOD list and how many of those have suggestions for the translator."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator.context import ProjectContext
from annotator.domain.suggestions import language_name
from annotator.services.suggestions.project_counts import empty_good_counts
from annotator.services.suggestions.rates import suggestion_kinds


def render_empty_good_counts(project: ProjectContext) -> bool:
    """A small table under pre-population; nothing before anything starts empty (False then)."""
    counts = [c for c in empty_good_counts(project) if c.empty_good]
    if not counts:
        return False
    st.markdown("**Empty GOOD lists after pre-population**")
    frame = pd.DataFrame(
        [
            {
                "language": f"{language_name(c.lang)} ({c.lang})",
                "start with an empty GOOD list": c.empty_good,
                "of those, with suggestions": c.with_suggestions,
                "worked on by a person": c.worked_on,
                "suggestions not computed yet": c.not_computed,
            }
            for c in counts
        ]
    )
    st.dataframe(frame, hide_index=True, width="content")
    if any(c.not_computed for c in counts):
        st.caption(
            "Suggestions not computed yet are computed by pre-population, `annotator suggestions` or the first time "
            "someone opens the item in Curate; this column says nothing about what translators have seen."
        )
    return True


def render_suggestion_kinds(project: ProjectContext, suggested: bool) -> None:
    """Per kind of suggestion: the precision measured on the open wordnets, the team's accepts and dismissals, and
    the rate the cards rank it by (the team's own, smoothed, once it has decided enough of that kind). Shown once
    lists start empty (``suggested``) or the team has decided on a suggestion."""
    rates = suggestion_kinds(project)
    if not suggested and not any(rate.accepted or rate.dismissed for rate in rates):
        return
    st.markdown("**How suggestions are ranked**")
    frame = pd.DataFrame(
        [
            {
                "kind of suggestion": rate.kind,
                "measured (%)": round(100 * rate.prior, 1),
                "accepted": rate.accepted,
                "dismissed": rate.dismissed,
                "rate used (%)": round(100 * rate.rate, 1),
                "ranked by": "the team's rate" if rate.from_team else "measured",
            }
            for rate in rates
        ]
    )
    st.dataframe(frame, hide_index=True, width="content")
    st.caption(
        "A kind is ranked by the team's own acceptance rate once it has enough accepts and dismissals, smoothed "
        "toward the measured precision; the cards show the best suggestions first."
    )
