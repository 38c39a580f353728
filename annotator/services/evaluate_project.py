"""Evaluation against the live project rather than an export file: what the Evaluate page runs.

Scoring the current curation means a candidate a translator adds for a MISS counts on the very next run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from annotator.data_export.dataset import ExportOptions, collect, dataset_line
from annotator.evaluation.inputs import Dataset, dataset_from_records
from annotator.project import Project


def dataset_from_project(project: Project) -> Dataset:
    """Every non-excluded item, done or not; an item-language discarded in a language is left out for it."""
    selection = collect(project, ExportOptions(include_incomplete=True, keep_partially_discarded=True))
    records = [json.loads(dataset_line(entry.item, entry.languages)) for entry in selection.items]
    return dataset_from_records(records, source=f"{project.data_dir} (current curation)")


def split_at_span(text: str, span: Sequence[int] | None) -> tuple[str, str, str]:
    """(before, match, after) of a translation around ω's character span, for highlighting."""
    if not span or len(span) != 2 or not 0 <= span[0] <= span[1] <= len(text):
        return text, "", ""
    start, end = span
    return text[:start], text[start:end], text[end:]
