"""``annotator report EVALUATION_FOLDER``: one self-contained HTML file plus the same tables as Markdown and LaTeX.

The HTML carries the Vega-Lite runtime inline (from ``vl-convert-python``, the package Altair itself uses for inline
HTML), so the file opens offline and makes no request to any host. It reads ``metrics.json`` and streams
``analysed.jsonl`` once (for the consistency analysis); it never loads the translations into memory at once.
"""

from __future__ import annotations

import html
import json
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import altair as alt

from annotator.atomic_files import check_output_files, write_text_atomic
from annotator.clock import utc_now
from annotator.domain.consistency import (
    PairConsistency,
    SenseChoice,
    choice_from_analysed,
    cross_language_consistency,
)
from annotator.domain.research_metrics import coverage_scores, macro_accuracy
from annotator.errors import UserError
from annotator.evaluation.provenance import provenance_lines
from annotator.evaluation.run import EvaluationResult, write_results
from annotator.jsonl_files import jsonl_objects
from annotator.private_files import make_private_folder
from annotator.reporting import charts
from annotator.reporting.formats import latex_document, markdown_document, to_html
from annotator.reporting.tables import (
    ALL,
    Table,
    accuracy_by_group,
    consistency_table,
    dataset_tables,
    domain_table,
    group_table,
    leaderboard_table,
    pos_table,
    provenance_table,
    system_language_table,
    systems,
)

METRICS_FILE = "metrics.json"
ANALYSED_FILE = "analysed.jsonl"
STATS_FILE = "stats.json"
REPORT_HTML = "report.html"
REPORT_MARKDOWN = "report.md"
REPORT_LATEX = "report.tex"


#: What the report draws: any top-level Altair chart (what ``st.altair_chart`` takes).
Chart = (
    alt.Chart | alt.ConcatChart | alt.FacetChart | alt.HConcatChart | alt.LayerChart | alt.RepeatChart
    | alt.VConcatChart
)


@dataclass
class Report:
    """Everything the report shows, as tables and Altair charts, in reading order."""

    title: str
    tables: list[Table] = field(default_factory=list)
    charts: list[tuple[str, Chart]] = field(default_factory=list)
    consistency: list[PairConsistency] = field(default_factory=list)
    #: what the evaluation was computed from; written first in every format
    provenance: Table | None = None

    def all_tables(self) -> list[Table]:
        """The provenance, then the tables."""
        return [self.provenance, *self.tables] if self.provenance else list(self.tables)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise UserError(f"{path}: not found; give the folder written by 'annotator evaluate'.") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UserError(f"{path}: not valid JSON ({error}).") from error
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise UserError(f"{path}: not an annotator metrics file (no 'rows' list).")
    return document


def _analysed_records(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    for number, record in jsonl_objects(path):
        if not {"system", "id", "lang"} <= record.keys():
            raise UserError(f"{path}, line {number}: not an analysed translation (needs system, id, lang).")
        yield record


def find_dataset_stats(folder: Path, metrics: Mapping[str, Any]) -> Path | None:
    """The export's stats.json beside the dataset the evaluation used, if it can still be found."""
    dataset = metrics.get("dataset")
    if not isinstance(dataset, str) or not dataset:
        return None
    for candidate in (Path(dataset), folder / dataset):
        stats = candidate.parent / STATS_FILE
        if stats.is_file():
            return stats
    return None


@dataclass
class _Outcomes:
    """What one pass over ``analysed.jsonl`` collects: sense choices, and outcomes per (system, lang, pos) scope."""

    choices: list[SenseChoice] = field(default_factory=list)
    by_scope: dict[tuple[str, str, str], list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any]) -> None:
        self.choices.append(choice_from_analysed(dict(record)))
        system, lang, pos = str(record["system"]), str(record["lang"]), str(record.get("pos") or ALL)
        pair = (str(record.get("synset") or ""), str(record.get("result") or "MISS"))
        for scope in {(system, lang, ALL), (system, lang, pos), (system, ALL, ALL), (system, ALL, pos),
                      (ALL, ALL, ALL), (ALL, ALL, pos)}:  # fmt: skip
            self.by_scope.setdefault(scope, []).append(pair)


def _with_research_metrics(rows: list[dict[str, Any]], outcomes: _Outcomes) -> list[dict[str, Any]]:
    """The rows with MuCoW's coverage / precision / recall / F1 and the macro (per-sense) accuracy, in percent."""
    enriched = []
    for row in rows:
        pairs = outcomes.by_scope.get((str(row.get("system")), str(row.get("lang")), str(row.get("pos", ALL))))
        if not pairs:
            enriched.append(row)
            continue
        scores = coverage_scores(outcome for _sense, outcome in pairs)
        extra = {
            "macro_accuracy": macro_accuracy(pairs),
            "coverage": scores.coverage,
            "precision": scores.precision,
            "recall": scores.recall,
            "f1": scores.f1,
        }
        enriched.append(row | {key: None if value is None else 100 * value for key, value in extra.items()})
    return enriched


def build_report(folder: str | Path, stats_path: str | Path | None = None) -> Report:
    folder = Path(folder)
    metrics = _read_json(folder / METRICS_FILE)
    outcomes = _Outcomes()
    for record in _analysed_records(folder / ANALYSED_FILE):
        outcomes.add(record)
    rows = _with_research_metrics(metrics["rows"], outcomes)
    names = systems(rows)
    pairs = cross_language_consistency(outcomes.choices)
    pair_dicts = [pair.to_dict() for pair in pairs]
    report = Report(title=f"Evaluation report — {', '.join(names) or 'no systems'}", consistency=pairs)
    provenance = metrics.get("provenance")
    lines = provenance_lines(provenance if isinstance(provenance, dict) else {})
    report.provenance = provenance_table([*lines, ("Report written (UTC)", utc_now("seconds", zulu=True))])
    report.tables.append(leaderboard_table(rows))
    by_domain = metrics.get("by_domain")
    if isinstance(by_domain, list) and by_domain:
        report.tables.append(domain_table(by_domain))
    for system in names:
        report.tables.append(system_language_table(rows, system))
        report.tables.append(pos_table(rows, system))
    report.tables.append(pos_table(rows, ALL))
    by_rank = accuracy_by_group(rows, "sfii")
    by_degree = accuracy_by_group(rows, "spdi")
    report.tables.append(group_table(by_rank, "sense rank μ(σ)"))
    report.tables.append(group_table(by_degree, "polysemy degree δ(λ)"))
    for system in names:
        if any(pair["system"] == system for pair in pair_dicts):
            report.tables.append(consistency_table(pair_dicts, system))
    stats = Path(stats_path) if stats_path else find_dataset_stats(folder, metrics)
    if stats is not None:
        report.tables.extend(dataset_tables(_read_stats(stats)))
    report.charts.append(("accuracy-by-language", charts.accuracy_by_language_chart(rows)))
    report.charts.append(("accuracy-by-sense-rank", charts.accuracy_by_group_chart(by_rank, "sense rank μ(σ)")))
    report.charts.append(("accuracy-by-polysemy", charts.accuracy_by_group_chart(by_degree, "polysemy degree δ(λ)")))
    for index, system in enumerate(names):  # the index keeps ids apart when two names share a slug (gpt 4, gpt-4)
        if any(pair["system"] == system for pair in pair_dicts):
            chart = charts.consistency_heatmap(pair_dicts, system)
            report.charts.append((f"consistency-{index}-{_slug(system)}", chart))
    return report


def _read_stats(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UserError(f"{path}: cannot read the dataset statistics ({error}).") from error
    if not isinstance(document, dict):
        raise UserError(f"{path}: not an annotator stats.json.")
    return document


def _slug(text: str) -> str:
    return "".join(char if char.isalnum() else "-" for char in text)[:60] or "system"


@cache
def vega_runtime() -> str:
    """Vega, Vega-Lite and Vega-Embed as one inline script (about 0.9 MB), built once per process."""
    import vl_convert

    return vl_convert.javascript_bundle()  # type: ignore[call-arg]  # the stub wants a snippet; none is optional


#: Characters that may end or change a <script> element's content (``</script>``, ``<!--``, ``]]>``) or a JavaScript
#: line (U+2028/2029), as JSON escapes: they can only occur inside JSON strings, where the escape means the same.
_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: a system named ``x<!--<script>`` can't turn the rest into a comment."""
    return json.dumps(value, ensure_ascii=False).translate(_SCRIPT_ESCAPES)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
th, td { border-bottom: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.note { color: #555; font-size: 0.85rem; margin: 0.2rem 0; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5rem; }
"""


def render_html(report: Report) -> str:
    tables = "\n".join(to_html(table, f"table-{index}") for index, table in enumerate(report.all_tables()))
    chart_divs = "\n".join(f'<div class="chart" id="chart-{name}"></div>' for name, _ in report.charts)
    specs = {f"chart-{name}": chart.to_dict() for name, chart in report.charts}
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html.escape(report.title)}</title><style>{_STYLE}</style>"
        f"<script>{vega_runtime()}</script></head><body>"
        f'<h1>{html.escape(report.title)}</h1><h2>Charts</h2><div class="charts">{chart_divs}</div>'
        f"<h2>Tables</h2>{tables}"
        f"<script>const specs = {_script_json(specs)};"
        "for (const [id, spec] of Object.entries(specs)) {"
        " vegaEmbed('#' + id, spec, {actions: false, renderer: 'svg'}).catch(console.error); }"
        "</script></body></html>\n"
    )


def write_report(
    folder: str | Path, out_dir: str | Path | None = None, stats: str | Path | None = None
) -> dict[str, Path]:
    """Write report.html, report.md and report.tex (atomically) and return their paths."""
    report = build_report(folder, stats)
    target = Path(out_dir) if out_dir else Path(folder)
    paths = {
        "html": target / REPORT_HTML,
        "markdown": target / REPORT_MARKDOWN,
        "latex": target / REPORT_LATEX,
    }
    check_output_files(paths.values())  # all refused before the first is written
    make_private_folder(target)
    write_text_atomic(paths["html"], render_html(report))
    write_text_atomic(paths["markdown"], markdown_document(report.title, report.all_tables()))
    write_text_atomic(paths["latex"], latex_document(report.all_tables()))
    return paths


def report_for_result(result: EvaluationResult, stats: str | Path | None = None) -> tuple[Report, str]:
    """The report of an evaluation run still in memory (the Evaluate page): the same tables and charts as
    ``annotator report``, and the self-contained HTML to download. Built from the files the run would write, so
    the page and the command line can never disagree."""
    with tempfile.TemporaryDirectory() as folder:
        write_results(result, folder)
        report = build_report(folder, stats)
    return report, render_html(report)
