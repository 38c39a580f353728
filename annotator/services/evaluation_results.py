"""An evaluation the Evaluate page started, kept in the database (``services.job_files``) so every app server of a
project shows it: saved as the files a run writes, rebuilt from them as the run's own objects."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from annotator.analysis.base import Analysis
from annotator.atomic_files import write_text_atomic
from annotator.context import ProjectContext
from annotator.domain.jobs import JobKind
from annotator.domain.matching import CandidateMatch, MatchResult, Outcome, Step
from annotator.domain.metrics import compute_metrics
from annotator.evaluation.inputs import DatasetItem, Translation
from annotator.evaluation.run import ANALYSED_FILE, METRICS_FILE, AnalysedTranslation, EvaluationResult, write_results
from annotator.services import job_files

#: The files of an evaluation the Evaluate page started, kept in the database (``services.job_files``): the two
#: files every run writes, and the scored items' facts and candidates, which the page's inspection queue needs.
ITEMS_FILE = "items.jsonl"


def save_result(project: ProjectContext, job_id: int, result: EvaluationResult) -> list[str]:
    """Keep the run in the database for every app server: ``analysed.jsonl`` and ``metrics.json`` as
    ``write_results`` writes them, and ``items.jsonl``; written to a private temporary folder first."""
    with tempfile.TemporaryDirectory(prefix="evaluation-") as scratch:
        folder = Path(scratch)
        write_results(result, folder)
        write_text_atomic(folder / ITEMS_FILE, "".join(_item_line(item) for item in _scored_items(result)))
        return job_files.keep_folder(project, job_id, JobKind.EVALUATE, folder)


def load_result(project: ProjectContext, job_id: int) -> EvaluationResult:
    """The run ``save_result`` kept, rebuilt from its files: its ``write_results`` gives the same files again."""
    items = {}
    for line in job_files.lines(project, job_id, ITEMS_FILE):
        item = _item_from_line(json.loads(line))
        items[item.id] = item
    document = json.loads(job_files.read_bytes(project, job_id, METRICS_FILE))
    results = tuple(
        _analysed_from_row(json.loads(line), items) for line in job_files.lines(project, job_id, ANALYSED_FILE)
    )
    return EvaluationResult(
        results,
        compute_metrics(result.scored() for result in results),
        document["analyser"],
        document["dataset"],
        document["translations"],
        document["created"],
        dict(document["skipped"]),
        provenance=document.get("provenance") or {},
    )


def _scored_items(result: EvaluationResult) -> list[DatasetItem]:
    seen: dict[str, DatasetItem] = {}
    for analysed in result.results:
        seen.setdefault(analysed.item.id, analysed.item)
    return list(seen.values())


def _item_line(item: DatasetItem) -> str:
    languages = {
        lang: [[side, position, text, pos, synsets] for text, pos, side, position, *synsets in specs]
        for lang, specs in item.candidates.items()
    }
    fields = {
        "id": item.id,
        "sentence": item.sentence,
        "lemma": item.lemma,
        "pos": item.pos,
        "synset": item.synset,
        "sense_rank": item.sense_rank,
        "polysemy_degree": item.polysemy_degree,
        "sense_ranks": list(item.sense_ranks.items()),
        "languages": languages,
        "line": item.line,
        "domain": item.domain,
    }
    return json.dumps(fields, ensure_ascii=False) + "\n"


def _item_from_line(fields: dict[str, Any]) -> DatasetItem:
    languages = {
        lang: tuple((text, pos, side, index, *synsets) for side, index, text, pos, synsets in specs)
        for lang, specs in fields["languages"].items()
    }
    return DatasetItem(
        id=fields["id"],
        sentence=fields["sentence"],
        lemma=fields["lemma"],
        pos=fields["pos"],
        synset=fields["synset"],
        sense_rank=fields["sense_rank"],
        polysemy_degree=fields["polysemy_degree"],
        sense_ranks=dict(fields["sense_ranks"]),
        candidates=languages,
        line=fields["line"],
        domain=fields.get("domain"),  # absent in the files of a run kept before domains were carried
    )


def _match_from_dict(fields: dict[str, Any]) -> CandidateMatch:
    span = fields.get("span")
    return CandidateMatch(
        text=fields["text"],
        side=fields["side"],
        step=Step(fields["step"]),
        span=(span[0], span[1]) if span else None,
        synsets=tuple(fields.get("synsets") or ()),
        as_typed=fields.get("as_typed", True),
        reading=fields.get("reading"),
    )


def _analysed_from_row(row: dict[str, Any], items: dict[str, DatasetItem]) -> AnalysedTranslation:
    """One ``analysed.jsonl`` line back as the run's object (its ``to_dict`` gives the line again)."""
    matches = tuple(_match_from_dict(match) for match in row["matches"])
    omega = None
    if row["omega"] is not None:
        wanted = {"text": row["omega"], "side": row["omega_side"], "step": row["step"], "span": row["span"]}
        omega = next(
            (match for match in matches if all(match.to_dict()[key] == value for key, value in wanted.items())),
            None,
        ) or _match_from_dict({**wanted, "synsets": row["omega_synsets"]})
    match = MatchResult(Outcome(row["result"]), omega, row["both_matched"], matches)
    translation = Translation(row["id"], row["lang"], row["system"], row["translation"])
    analysis = Analysis.from_dict(row["translation"], row["analysis"])
    return AnalysedTranslation(
        translation, items[row["id"]], analysis, match, row["omega_rank"], inspected=row["inspected"]
    )


def split_at_span(text: str, span: Sequence[int] | None) -> tuple[str, str, str]:
    """(before, match, after) of a translation around ω's character span, for highlighting."""
    if not span or len(span) != 2 or not 0 <= span[0] <= span[1] <= len(text):
        return text, "", ""
    start, end = span
    return text[:start], text[start:end], text[end:]
