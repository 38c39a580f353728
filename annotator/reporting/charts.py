"""The report's charts as Altair (Vega-Lite) charts: the same objects feed the HTML report and the Evaluate page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd

from annotator.reporting.tables import ALL, GroupAccuracy, languages, metric_value, systems


def accuracy_by_group_chart(groups: Sequence[GroupAccuracy], axis_title: str) -> alt.Chart:
    """Accuracy per μ(σ) or δ(λ) value, one line per system (DiBiMT Figures 2 and 3)."""
    frame = pd.DataFrame(
        [
            {"system": g.system, "group": g.key, "accuracy": g.percent, "items": g.good + g.bad}
            for g in groups
            if g.percent is not None
        ],
        columns=["system", "group", "accuracy", "items"],
    )
    return (
        alt.Chart(frame, title=f"Accuracy by {axis_title}")
        .mark_line(point=True)
        .encode(
            x=alt.X("group:O", title=axis_title),
            y=alt.Y("accuracy:Q", title="Accuracy (%)", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("system:N", title="System"),
            tooltip=["system:N", "group:O", alt.Tooltip("accuracy:Q", format=".2f"), "items:Q"],
        )
        .properties(width=360, height=240)
    )


def accuracy_by_language_chart(rows: Sequence[Mapping[str, Any]]) -> alt.Chart:
    """Accuracy per language, one bar per system."""
    records = []
    for system in systems(rows):
        for lang in languages(rows):
            row = next(
                (r for r in rows if (r.get("system"), r.get("lang"), r.get("pos", ALL)) == (system, lang, ALL)), None
            )
            value = metric_value(row, "accuracy") if row else None
            if value is not None:
                records.append({"system": system, "lang": lang, "accuracy": value})
    frame = pd.DataFrame(records, columns=["system", "lang", "accuracy"])
    return (
        alt.Chart(frame, title="Accuracy per language")
        .mark_bar()
        .encode(
            x=alt.X("lang:N", title="Language"),
            xOffset="system:N",
            y=alt.Y("accuracy:Q", title="Accuracy (%)", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("system:N", title="System"),
            tooltip=["system:N", "lang:N", alt.Tooltip("accuracy:Q", format=".2f")],
        )
        .properties(width=360, height=240)
    )


def consistency_heatmap(pairs: Sequence[Mapping[str, Any]], system: str) -> alt.Chart:
    """Figure 4: language × language share of items whose senses agree, for one system."""
    records = []
    for pair in pairs:
        if pair["system"] != system:
            continue
        for first, second in ((pair["lang1"], pair["lang2"]), (pair["lang2"], pair["lang1"])):
            records.append(
                {
                    "L1": first,
                    "L2": second,
                    "percent": pair["percent"],
                    "label": "n/a" if pair["percent"] is None else f"{pair['percent']:.1f}",
                    "compared": pair["compared"],
                }
            )
    frame = pd.DataFrame(records, columns=["L1", "L2", "percent", "label", "compared"])
    base = alt.Chart(frame, title=f"{system}: cross-language consistency (%)").encode(
        x=alt.X("L1:N", title=None), y=alt.Y("L2:N", title=None)
    )
    cells = base.mark_rect().encode(
        color=alt.Color("percent:Q", title="%", scale=alt.Scale(domain=[0, 100], scheme="blues")),
        tooltip=["L1:N", "L2:N", alt.Tooltip("percent:Q", format=".2f"), "compared:Q"],
    )
    text = base.mark_text().encode(text="label:N")
    return (cells + text).properties(width=220, height=220)
