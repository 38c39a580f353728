"""The report's charts as Altair (Vega-Lite) charts: the same objects feed the HTML report and the Evaluate page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import altair as alt
import pandas as pd

from annotator.reporting.tables import ALL, GroupAccuracy, languages, metric_value, systems

#: Readable at 1366 px: legends keep long system names whole; category labels upright and never dropped
#: (every language on the axis); one heat-map cell per step, so many languages widen the map instead of crowding it.
LEGEND = alt.Legend(orient="right", labelLimit=0, titleLimit=0)
HEATMAP_STEP = 40
BAR_STEP = 20


def category_axis(orient: Literal["top", "bottom", "left", "right"] = "bottom") -> alt.Axis:
    """An axis of categories (languages, groups): labels upright, never dropped for overlap, never truncated."""
    return alt.Axis(labelAngle=0, labelOverlap=False, labelLimit=0, orient=orient)


#: Percentages above this are drawn on a dark cell: their label is white.
DARK_CELL = 60


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
            x=alt.X("group:O", title=axis_title, axis=category_axis()),
            y=alt.Y("accuracy:Q", title="Accuracy (%)", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("system:N", title="System", legend=LEGEND),
            tooltip=["system:N", "group:O", alt.Tooltip("accuracy:Q", format=".2f"), "items:Q"],
        )
        .properties(width=420, height=240)
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
    bars = max(1, len(languages(rows))) * (max(1, len(systems(rows))) + 1)  # one gap's width between languages
    return (
        alt.Chart(frame, title="Accuracy per language")
        .mark_bar()
        .encode(
            x=alt.X("lang:N", title="Language", axis=category_axis()),
            xOffset="system:N",
            y=alt.Y("accuracy:Q", title="Accuracy (%)", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color("system:N", title="System", legend=LEGEND),
            tooltip=["system:N", "lang:N", alt.Tooltip("accuracy:Q", format=".2f")],
        )
        .properties(width=max(420, bars * BAR_STEP), height=240)
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
    # the system's name is the subtitle: a long name wraps nothing and clips nothing in the fixed-size title
    title = alt.TitleParams("Cross-language consistency (%)", subtitle=[system], anchor="start", limit=0)
    base = alt.Chart(frame, title=title).encode(
        x=alt.X("L1:N", title=None, axis=category_axis("top")),
        y=alt.Y("L2:N", title=None, axis=category_axis("left")),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "percent:Q", title="%", scale=alt.Scale(domain=[0, 100], scheme="blues"), legend=alt.Legend(orient="right")
        ),
        tooltip=["L1:N", "L2:N", alt.Tooltip("percent:Q", format=".2f"), "compared:Q"],
    )
    text = base.mark_text(fontSize=11).encode(
        text="label:N",
        color=alt.condition(f"datum.percent > {DARK_CELL}", alt.value("white"), alt.value("black")),
    )
    return (cells + text).properties(width=alt.Step(HEATMAP_STEP), height=alt.Step(HEATMAP_STEP))
