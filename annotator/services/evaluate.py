"""The evaluation service (SPEC §8), kept as one import path for the command line, the app and scripts.

The work lives in ``annotator.evaluation``: ``inputs`` (reading dataset + translations), ``run`` (analyse, match,
write results), ``report`` (leaderboard, metrics input from ``analysed.jsonl``), ``presenters`` (tables).

Typical use::

    dataset = load_dataset("exports/x/dataset.jsonl")
    translations = load_translations("mt/deepl.tsv", dataset)
    result = evaluate(dataset, translations, create_analyser("default"), progress=callback)
    write_results(result, "mt/deepl-evaluation")
    print(format_metrics_table(result.metrics))
"""

from __future__ import annotations

from annotator.evaluation.inputs import (
    SKIP_REASONS,
    TRANSLATION_FIELDS,
    CandidateSpec,
    Dataset,
    DatasetItem,
    EvaluationInputError,
    Problem,
    Translation,
    Translations,
    dataset_from_records,
    format_skipped,
    load_dataset,
    load_translations,
    parse_dataset,
    parse_translations,
    read_analysed,
)
from annotator.evaluation.presenters import format_metrics_table, metrics_table_rows
from annotator.evaluation.report import LEADERBOARD_FILES, scored_from_record, write_leaderboard
from annotator.evaluation.run import (
    ANALYSED_FILE,
    ANALYSERS,
    DEFAULT_BATCH_SIZE,
    METRICS_FILE,
    AnalysedTranslation,
    EvaluationResult,
    create_analyser,
    default_out_dir,
    evaluate,
    run_evaluation,
    write_results,
)

__all__ = [
    "ANALYSED_FILE",
    "ANALYSERS",
    "DEFAULT_BATCH_SIZE",
    "LEADERBOARD_FILES",
    "METRICS_FILE",
    "SKIP_REASONS",
    "TRANSLATION_FIELDS",
    "AnalysedTranslation",
    "CandidateSpec",
    "Dataset",
    "DatasetItem",
    "EvaluationInputError",
    "EvaluationResult",
    "Problem",
    "Translation",
    "Translations",
    "create_analyser",
    "dataset_from_records",
    "default_out_dir",
    "evaluate",
    "format_metrics_table",
    "format_skipped",
    "load_dataset",
    "load_translations",
    "metrics_table_rows",
    "parse_dataset",
    "parse_translations",
    "read_analysed",
    "run_evaluation",
    "scored_from_record",
    "write_leaderboard",
    "write_results",
]
