"""Read model of the Dataset page: its tables for every combination of the export options, computed once per change
of the data (``read_model.data_version``). Apart from ``read_model`` so that the other pages do not load the
export's modules."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from annotator.context import ProjectContext
from annotator.data_export.dataset import ExportOptions, load_project_data
from annotator.data_export.dataset import select as select_export
from annotator.domain.dataset_counts import DatasetCounts
from annotator.domain.refinement_stats import RefinementTable
from annotator.services.read_model import data_version, status_counts
from annotator.versioned_cache import VersionedCache

#: The Dataset page's overviews per database: its current version, and the one before while others catch up.
_overviews: VersionedCache[dict[ExportOptions, DatasetOverview]] = VersionedCache(keep=2)


@dataclass(frozen=True)
class DatasetOverview:
    """What the Dataset page shows for one set of export options: Table 2 (the same for every option), Table 1 of
    the exported items, and why the others are left out. Same reading methods as ``Selection``."""

    options: ExportOptions
    table: RefinementTable
    dataset_counts: DatasetCounts
    left_out: dict[str, int]
    items: int
    #: lang -> status -> count (``status_counts``: the progress bars), read once per version like the tables (read
    #: on every rerun, it was most of the page's rerun)
    progress: dict[str, dict[str, int]]

    def refinement(self) -> RefinementTable:
        return self.table

    def counts(self) -> DatasetCounts:
        return self.dataset_counts


def _compute(project: ProjectContext) -> dict[ExportOptions, DatasetOverview]:
    """Read the project once and derive the overview for every combination of the two export options.

    It runs in a Streamlit request thread, so it leaves the cyclic collector alone: pausing it there paused it for
    every session of the process."""
    data = load_project_data(project)
    progress = status_counts(project)
    overviews: dict[ExportOptions, DatasetOverview] = {}
    table: RefinementTable | None = None
    for incomplete, partial in product((False, True), repeat=2):
        options = ExportOptions(include_incomplete=incomplete, keep_partially_discarded=partial)
        selection = select_export(data, options)
        table = table or selection.refinement()  # over every done item-language: options do not matter
        overviews[options] = DatasetOverview(
            options, table, selection.counts(), dict(selection.left_out), len(selection.items), progress
        )
    return overviews


def dataset_overview(project: ProjectContext, options: ExportOptions) -> DatasetOverview:
    """The Dataset page's tables, recomputed only when ``data_version`` moved since the last call."""
    cached = _overviews.get(project.db.url, data_version(project), lambda: _compute(project))
    # Only the two selection options change what the tables count; the translators' own sets are an export extra.
    return cached[ExportOptions(options.include_incomplete, options.keep_partially_discarded)]
