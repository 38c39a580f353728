"""``annotator evaluate DATASET TRANSLATIONS``: score MT output against the exported dataset (SPEC §8)."""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from annotator.analysis.base import ANALYSERS
from annotator.atomic_files import cannot_write, check_output_files
from annotator.data_import.limits import InputLimits, parse_json
from annotator.errors import UserError

if TYPE_CHECKING:  # the evaluation modules load in ``run``, after a first run's dictionary reader has started
    from annotator.evaluation.inputs import SkippedLine


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="score machine translations against the exported dataset (GOOD/BAD/MISS and the DiBiMT metrics)",
        description=(
            "Classify each translation GOOD, BAD or MISS against the dataset's candidates and compute Accuracy, "
            "%MISS, MFS, MFS+, SFII and SPDI per system, language and POS. TRANSLATIONS is JSONL "
            '({"id", "lang", "system", "translation"} per line) or TSV with the header id, lang, system, translation.'
        ),
    )
    parser.add_argument("dataset", metavar="DATASET", help="the exported dataset.jsonl")
    parser.add_argument("translations", metavar="TRANSLATIONS", help="translations file (.jsonl or .tsv)")
    parser.add_argument(
        "--analyser",
        choices=ANALYSERS,
        default="default",
        help="default: offline simplemma/jieba; stanza: Stanza models (optional extra, models downloaded first)",
    )
    parser.add_argument(
        "--stanza-models",
        metavar="DIR",
        help="Stanza model folder (default: Stanza's own, or $STANZA_RESOURCES_DIR)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="output folder for analysed.jsonl and metrics.json (default: TRANSLATIONS' name + '-evaluation')",
    )
    parser.add_argument(
        "--leaderboard",
        action="store_true",
        help=(
            "also write leaderboard.csv/.md/.tex (all metrics, bootstrap 95%% CI, macro accuracy, MuCoW P/R/F1) and, "
            "with two or more systems, significance.csv/.md (paired bootstrap between every two systems)"
        ),
    )
    parser.set_defaults(func=run)


def skipped_listing(lines: Sequence[SkippedLine], total: int) -> list[str]:
    """One line per listed skipped line (line number, id, language, reason), then how many more were skipped."""
    from annotator.evaluation.inputs import SKIP_REASONS

    out = [f"  line {s.line}: id {s.item_id!r}, {s.lang}: {SKIP_REASONS.get(s.reason, s.reason)}" for s in lines]
    if total > len(lines):
        out.append(f"  … and {total - len(lines)} more")
    return out


def _first_fields(path: str) -> set[str]:
    """The field names of a file's first non-blank line (a JSON object's keys, or a TSV header); empty when
    unreadable, or when a line is longer than the readers accept: only a bounded piece of a line is read, because
    this runs after a file was refused and such a file may be one 300 MB line (``bench_hostile_files.py`` measures
    its peak memory)."""
    longest = InputLimits().max_line_chars
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            while line := handle.readline(longest):
                if len(line) == longest and not line.endswith("\n"):
                    return set()  # too long a line: the readers' own message says so
                if line.strip():
                    break
    except OSError:
        return set()
    try:
        value = parse_json(line)  # depth-bounded: a 100,000-deep first line is no field, not a RecursionError
    except ValueError:
        return {name.strip() for name in line.split("\t")}
    return set(value) if isinstance(value, dict) else set()


def _first_language(path: str) -> list[str]:
    """The language of the translations file's first line (JSONL ``lang``, or the TSV's ``lang`` column): a hint,
    read before the inputs are, of the dictionary the run will want; empty when it is not there or not plain. Only
    a regular file is read: a line read from a pipe (``<(…)``) would be gone for the run."""
    longest = InputLimits().max_line_chars
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return []
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(longest).lstrip("\ufeff")
            if "\t" in first:  # a TSV: its header, then the first row
                names, values = first.rstrip("\r\n").split("\t"), handle.readline(longest).split("\t")
                lang = values[names.index("lang")] if "lang" in names and names.index("lang") < len(values) else ""
            else:
                record = parse_json(first)
                lang = record.get("lang", "") if isinstance(record, dict) else ""
    except (OSError, ValueError):
        return []
    return [lang.strip()] if isinstance(lang, str) and lang.strip() else []


def looks_swapped(dataset: str, translations: str) -> bool:
    """The translations given first and the dataset second (``evaluate translations.jsonl dataset.jsonl``)."""
    translation_fields, dataset_fields = {"system", "translation"}, {"sentence", "languages"}
    return translation_fields <= _first_fields(dataset) or dataset_fields <= _first_fields(translations)


def run(args: argparse.Namespace) -> int:
    if args.analyser == "default":  # first, so a first run's dictionary is read while the modules below load
        from annotator.analysis.default import start_reading_dictionaries

        start_reading_dictionaries(_first_language(args.translations))
    from annotator.evaluation.inputs import format_skipped
    from annotator.evaluation.presenters import format_metrics_table
    from annotator.evaluation.run import ANALYSED_FILE, METRICS_FILE, default_out_dir, run_evaluation, write_results
    from annotator.progress import TerminalProgress

    out_dir = Path(args.out) if args.out else default_out_dir(args.translations)
    outputs = [out_dir / ANALYSED_FILE, out_dir / METRICS_FILE]  # a folder, pipe or device there: refused first
    if getattr(args, "leaderboard", False):
        from annotator.evaluation.report import leaderboard_paths  # numpy's bootstrap: only when asked for

        outputs += leaderboard_paths(out_dir)
    check_output_files(outputs)
    try:
        result = run_evaluation(
            args.dataset,
            args.translations,
            args.analyser,
            stanza_models=args.stanza_models,
            progress=TerminalProgress("evaluate"),
        )
    except UserError as error:
        if not looks_swapped(args.dataset, args.translations):
            raise
        raise UserError(
            f"the two files look swapped: the exported dataset comes first, then the translations "
            f"(annotator evaluate {shlex.quote(args.translations)} {shlex.quote(args.dataset)}).\n{error}"
        ) from error
    try:  # written after the inputs were read: an OSError here is the output folder's (a full disk, no rights)
        write_results(result, out_dir)
        written = {}
        if getattr(args, "leaderboard", False):
            from annotator.evaluation.report import write_leaderboard  # numpy's bootstrap: only when asked for

            written = write_leaderboard(result, out_dir)
    except OSError as error:
        raise cannot_write(out_dir, error) from error
    print(format_metrics_table(result.metrics))
    counts = {outcome: len(result.with_outcome(outcome)) for outcome in ("GOOD", "BAD", "MISS")}
    print(
        f"\n{len(result.results)} translations: {counts['GOOD']} GOOD, {counts['BAD']} BAD, {counts['MISS']} MISS "
        f"(analyser: {result.analyser})"
    )
    if result.skipped:
        print(f"{format_skipped(result.skipped)} (not scored):")
        print("\n".join(skipped_listing(result.skipped_lines, result.skipped_count)))
    print(f"wrote {out_dir / 'analysed.jsonl'} and {out_dir / 'metrics.json'}", file=sys.stderr)
    if written:
        print(f"wrote {', '.join(str(path) for path in written.values())}", file=sys.stderr)
    return 0
