"""Agreement page (leads): assign item-languages for double curation, adjudicate finished copies, and read how much
the translators agree (table and chart per language, drill-down to the disagreeing items). Adjudications are
commands run by the app's one action runner (``actions.run``); assigning goes through ``actions.attempt``, which says
its refusals the same way.

The figures come from the same ``agreement_report`` as ``stats.json``. Untrusted strings (item ids, candidates,
notes, user names) are shown with ``st.dataframe``/``st.text`` or escaped, never as raw Markdown.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from annotator.app import actions, components, messages, project_cache, session
from annotator.domain import commands
from annotator.domain.agreement import Agreement, AgreementReport, format_figure
from annotator.domain.commands import Address
from annotator.domain.languages import language_label
from annotator.domain.model import DiscardReason
from annotator.services.double_curation import Comparison, DoubleCurationService

ASSIGN_LANG, ASSIGN_WHO, ASSIGN_MODE, ASSIGN_SHARE, ASSIGN_IDS = (
    "agr_lang",
    "agr_who",
    "agr_mode",
    "agr_share",
    "agr_ids",
)
ADJ_PICK, DRILL_PICK = "agr_adjudicate", "agr_drill"
MODES = {"share": "a share of the pending items", "list": "a list of items", "all": "all pending items"}
FIGURES = {
    "decision_agreement": "% same decision",
    "exact_good_agreement": "% exact GOOD",
    "prepopulated_agreement": "% pre-populated agree",
    "added_agreement": "% added agree",
}


def service() -> DoubleCurationService:
    user = session.require_lead()
    return DoubleCurationService(project_cache.get_project(), user)


def said(outcome: actions.Outcome, success: str) -> bool:
    """An action's outcome as the page's one-shot message (escaped when shown); whether it went through."""
    messages.flash("success" if outcome.ok else "error", success if outcome.ok else outcome.error)
    return outcome.ok


# --- agreement ------------------------------------------------------------------------------------------


def figures_row(name: str, figures: Agreement) -> dict[str, Any]:
    return {
        "scope": name,
        "pairs": figures.decision_pairs,
        "% same decision": format_figure(figures.decision_agreement),
        "done pairs": figures.set_pairs,
        "% exact GOOD": format_figure(figures.exact_good_agreement),
        "Jaccard GOOD": format_figure(figures.mean_jaccard_good, percent=False),
        "Jaccard BAD": format_figure(figures.mean_jaccard_bad, percent=False),
        "% pre-populated agree": format_figure(figures.prepopulated_agreement),
        "% added agree": format_figure(figures.added_agreement),
        "α (nominal)": format_figure(figures.alpha, percent=False),
        "α units": figures.alpha_units,
    }


#: Short headers, each whole in a 1366 px window (the table fits without scrolling sideways), with the full
#: meaning in the header's tooltip.
AGREEMENT_COLUMNS: dict[str, Any] = {
    "scope": st.column_config.TextColumn("scope", width=50),
    "pairs": st.column_config.NumberColumn("pairs", width=52, help="pairs of copies compared on their decision"),
    "% same decision": st.column_config.TextColumn("% same decision", width=122),
    "done pairs": st.column_config.NumberColumn("done pairs", width=88, help="pairs of copies both done"),
    "% exact GOOD": st.column_config.TextColumn("% exact GOOD", width=103),
    "Jaccard GOOD": st.column_config.TextColumn("Jaccard GOOD", width=103),
    "Jaccard BAD": st.column_config.TextColumn("Jaccard BAD", width=95),
    "% pre-populated agree": st.column_config.TextColumn(
        "% pre-pop.", width=85, help="% of the pre-populated candidates both put on the same side"
    ),
    "% added agree": st.column_config.TextColumn(
        "% added", width=68, help="% of the added candidates both put on the same side"
    ),
    "α (nominal)": st.column_config.TextColumn(
        "α (nominal)", width=120, help="Krippendorff's alpha, nominal, and the units it is computed over"
    ),
}


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as the page shows it: α with its units in one cell, so every column fits."""
    shown = frame.copy()
    shown["α (nominal)"] = [
        alpha if alpha == "n/a" else f"{alpha} ({units} units)"
        for alpha, units in zip(frame["α (nominal)"], frame["α units"], strict=True)
    ]
    return shown.drop(columns=["α units"])


def agreement_frame(report: AgreementReport) -> pd.DataFrame:
    rows = [figures_row(lang, report.languages[lang]) for lang in sorted(report.languages)]
    rows.append(figures_row("all", report.overall))
    return pd.DataFrame(rows)


def chart_frame(report: AgreementReport) -> pd.DataFrame:
    """The percentage figures per language as numbers (n/a left empty) for the bar chart."""
    langs = sorted(report.languages)
    data = {
        label: [None if (v := getattr(report.languages[lang], name)) is None else 100 * v for lang in langs]
        for name, label in FIGURES.items()
    }
    return pd.DataFrame(data, index=langs, dtype="float64")


def agreement_section(svc: DoubleCurationService, languages: tuple[str, ...]) -> None:
    report = svc.agreement(languages)
    st.subheader("Agreement between translators")
    st.caption(
        f"Over {len(report.compared)} double-curated item-language(s) whose copies are all finished. Set figures "
        "compare pairs of done copies; per-candidate figures count every pre-populated candidate (G0 ∪ B0) and every "
        "added one as a unit (GOOD, BAD or deleted). n/a: nothing to count."
    )
    st.container(key="agreement_figures").dataframe(
        shown_frame(agreement_frame(report)), hide_index=True, key="agr_table", column_config=AGREEMENT_COLUMNS
    )
    if report.compared:
        components.bars_per_language(chart_frame(report), "%")
    if report.pairs:
        st.caption("Per translator pair")
        pairs = [figures_row(f"{lang}: {a} – {b}", figures) for (lang, a, b), figures in sorted(report.pairs.items())]
        pair_columns = {**AGREEMENT_COLUMNS, "scope": st.column_config.TextColumn("pair", width="medium")}
        st.dataframe(shown_frame(pd.DataFrame(pairs)), hide_index=True, key="agr_pairs", column_config=pair_columns)
    st.caption(f"{len(report.disagreeing)} item-language(s) where some pair of copies differs")
    if report.disagreeing:
        labels = [f"{item_id} [{lang}]" for item_id, lang in report.disagreeing]
        picked = st.selectbox("Show a disagreeing item", labels, key=DRILL_PICK, index=None)
        if picked:
            item_id, lang = report.disagreeing[labels.index(picked)]
            comparison_table(svc.comparison(item_id, lang))


# --- assignment -----------------------------------------------------------------------------------------


def _assign() -> None:
    lang = str(st.session_state.get(ASSIGN_LANG) or "")
    who = list(st.session_state.get(ASSIGN_WHO) or [])
    mode = st.session_state.get(ASSIGN_MODE, "share")
    ids = [line.strip() for line in (st.session_state.get(ASSIGN_IDS) or "").splitlines() if line.strip()]
    share = float(st.session_state.get(ASSIGN_SHARE) or 0) / 100
    chosen: list[str] = []

    def call() -> None:
        if mode == "list":
            chosen.extend(service().assign(lang, who, item_ids=ids))
        else:
            chosen.extend(service().assign(lang, who, share=1.0 if mode == "all" else share))

    outcome = actions.attempt(call)
    if outcome.ok:
        messages.flash("success", f"{len(chosen)} {lang} item(s) assigned to {', '.join(who)}.")
    else:
        said(outcome, "")


def assign_section(svc: DoubleCurationService, languages: tuple[str, ...]) -> None:
    st.subheader("Assign items for double curation")
    st.caption(
        "Each chosen translator curates a private copy of the pre-populated sets; nobody sees another's copy; when "
        "all are finished you adjudicate them. Only pending, unassigned items can be assigned; the rest keep the "
        "ordinary flow."
    )
    cols = st.columns([1, 3])
    lang = cols[0].selectbox("Language", languages, key=ASSIGN_LANG, format_func=language_label)
    cols[1].multiselect("Translators (two or more)", svc.eligible_translators(lang), key=ASSIGN_WHO)
    mode = st.radio("Items", list(MODES), format_func=MODES.get, key=ASSIGN_MODE, horizontal=True)
    if mode == "share":
        st.number_input("Share of the pending items (%)", min_value=1, max_value=100, value=10, key=ASSIGN_SHARE)
    elif mode == "list":
        st.text_area("Item ids, one per line", key=ASSIGN_IDS)
    st.button("Assign", key="agr_assign", type="primary", on_click=_assign)
    summaries = svc.assignments()
    if summaries:
        rows = [
            {
                "item": s.item_id,
                "language": s.lang,
                "state": s.state,
                "translators": ", ".join(
                    f"{name}: {components.STATUS_LABEL[status]}" for name, status in s.annotators.items()
                ),
                "all finished": s.all_finished,
            }
            for s in summaries
        ]
        st.dataframe(rows, hide_index=True, key="agr_assignments")


# --- adjudication ---------------------------------------------------------------------------------------


def comparison_table(comparison: Comparison) -> None:
    """The copies side by side: one row per candidate, ✱ where the translators differ."""
    rows = []
    for row in comparison.rows:
        entry: dict[str, Any] = {
            "differs": "✱" if row.differs else "",
            "candidate": row.text,
            "pre-populated": row.prepopulated or "added",
        }
        entry.update(row.values)
        rows.append(entry)
    st.dataframe(rows, hide_index=True)
    for copy in comparison.copies:
        if copy.discuss_note:
            st.text(f"{copy.annotator} flagged DISCUSS: {copy.discuss_note}")
        if copy.discard_reason:
            st.text(f"{copy.annotator} discarded: {copy.discard_reason.value} {copy.discard_note}".rstrip())
    st.caption(
        "Copy decisions: "
        + ", ".join(f"{components.md(c.annotator)}: {components.STATUS_LABEL[c.status]}" for c in comparison.copies)
    )


def _prefix(comparison: Comparison) -> str:
    return f"adj|{comparison.item.id}|{comparison.state.lang}|{comparison.state.version}|"


def default_sets(comparison: Comparison) -> tuple[list[str], list[str]]:
    """Start from what every copy agrees on; the differing candidates are the lead's to place."""
    good = [r.text for r in comparison.rows if not r.differs and set(r.values.values()) == {"good"}]
    bad = [r.text for r in comparison.rows if not r.differs and set(r.values.values()) == {"bad"}]
    return good, bad


def _take(prefix: str, good: list[str], bad: list[str]) -> None:
    st.session_state[prefix + "good"] = "\n".join(good)
    st.session_state[prefix + "bad"] = "\n".join(bad)


def _save(item_id: str, lang: str, version: int, prefix: str) -> None:
    good = tuple(st.session_state.get(prefix + "good", "").splitlines())
    bad = tuple(st.session_state.get(prefix + "bad", "").splitlines())
    outcome = actions.run(Address(item_id, lang), commands.Adjudicate(good, bad), version)
    if said(outcome, f"{item_id} [{lang}] adjudicated."):
        st.session_state.pop(ADJ_PICK, None)


def _discard(item_id: str, lang: str, version: int, prefix: str) -> None:
    reason, note = st.session_state.get(prefix + "reason"), st.session_state.get(prefix + "note", "")
    command = commands.AdjudicateDiscard(DiscardReason(reason) if reason else None, note)
    if said(actions.run(Address(item_id, lang), command, version), f"{item_id} [{lang}] discarded."):
        st.session_state.pop(ADJ_PICK, None)


def adjudicate_section(svc: DoubleCurationService) -> None:
    st.subheader("Adjudicate")
    ready = [s for s in svc.assignments() if s.state == "open" and s.all_finished]
    if not ready:
        st.caption("No assignment has all its copies finished yet.")
        return
    labels = [f"{s.item_id} [{s.lang}]" for s in ready]
    picked = st.selectbox("Item-language", labels, key=ADJ_PICK)
    chosen = ready[labels.index(picked)]
    comparison = svc.comparison(chosen.item_id, chosen.lang)
    st.text(comparison.item.sentence)
    comparison_table(comparison)
    prefix = _prefix(comparison)
    good, bad = default_sets(comparison)
    if prefix + "good" not in st.session_state:
        _take(prefix, good, bad)
    takes = st.columns(len(comparison.copies) + 1)
    for col, copy in zip(takes, comparison.copies, strict=False):
        col.button(
            f"Take {components.md(copy.annotator)}'s sets",
            key=prefix + "take|" + copy.annotator,
            on_click=_take,
            args=(prefix, [e.format() for e in copy.good], [e.format() for e in copy.bad]),
        )
    takes[-1].button("Only what all agree on", key=prefix + "agreed", on_click=_take, args=(prefix, good, bad))
    cols = st.columns(2)
    cols[0].text_area("Final GOOD (one per line)", key=prefix + "good", height=200)
    cols[1].text_area("Final BAD (one per line)", key=prefix + "bad", height=200)
    item_id, lang, version = comparison.item.id, comparison.state.lang, comparison.state.version
    actions = st.columns(2)
    actions[0].button(
        "Save adjudication (done)",
        key=prefix + "save",
        type="primary",
        on_click=_save,
        args=(item_id, lang, version, prefix),
    )
    with actions[1].popover("Discard instead"):
        st.selectbox("Reason", [r.value for r in DiscardReason], key=prefix + "reason")
        st.text_input("Note (needed for 'other')", key=prefix + "note")
        st.button("Discard", key=prefix + "discard", on_click=_discard, args=(item_id, lang, version, prefix))


def render() -> None:
    svc = service()
    languages = project_cache.get_project().settings().languages
    st.header("Double curation and agreement")
    agreement, assign, adjudicate = st.tabs(["Agreement", "Assign", "Adjudicate"])
    with agreement:
        agreement_section(svc, languages)
    with assign:
        assign_section(svc, languages)
    with adjudicate:
        adjudicate_section(svc)


if __name__ == "__main__":  # run as a page script (see annotator.app.main.run_page)
    from annotator.app.main import run_page

    run_page(render)
