"""Evaluation inputs (SPEC §8): reading and checking the exported dataset and the MT translations.

Every file the evaluation reads is read here (``files.read_text``), so input limits can be added in one place. Bad
input raises ``EvaluationInputError`` listing every problem with its file, line, field and rule; nothing is run.
``problems`` holds the error, ``line_check`` a dataset line's checks, ``dataset`` and ``translations`` the two
readers; this package gives their public names.
"""

from annotator.evaluation.inputs.dataset import (
    CandidateSpec,
    Dataset,
    DatasetItem,
    DatasetReader,
    ParseCache,
    StoredSpec,
    dataset_from_records,
    load_dataset,
    parse_cached,
    parse_dataset,
    stored_spec,
)
from annotator.evaluation.inputs.files import (
    read_analysed,
    read_text,
    split_lines,
)
from annotator.evaluation.inputs.line_check import (
    MAX_DEPTH,
    line_checker,
    too_deep,
)
from annotator.evaluation.inputs.problems import (
    EvaluationInputError,
    Problem,
)
from annotator.evaluation.inputs.translations import (
    SKIP_REASONS,
    SKIP_REASONS_PLURAL,
    SKIPPED_LINES_KEPT,
    TRANSLATION_FIELDS,
    SkippedLine,
    Translation,
    TranslationRow,
    Translations,
    format_skipped,
    load_translations,
    parse_translations,
)

__all__ = [
    "MAX_DEPTH",
    "SKIPPED_LINES_KEPT",
    "SKIP_REASONS",
    "SKIP_REASONS_PLURAL",
    "TRANSLATION_FIELDS",
    "CandidateSpec",
    "Dataset",
    "DatasetItem",
    "DatasetReader",
    "EvaluationInputError",
    "ParseCache",
    "Problem",
    "SkippedLine",
    "StoredSpec",
    "Translation",
    "TranslationRow",
    "Translations",
    "dataset_from_records",
    "format_skipped",
    "line_checker",
    "load_dataset",
    "load_translations",
    "parse_cached",
    "parse_dataset",
    "parse_translations",
    "read_analysed",
    "read_text",
    "split_lines",
    "stored_spec",
    "too_deep",
]
