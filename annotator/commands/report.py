"""``annotator report EVALUATION_FOLDER``: the per-system report (HTML, Markdown, LaTeX) of an evaluation."""

from __future__ import annotations

import argparse

from annotator.atomic_files import cannot_write


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write the per-system report of an evaluation (HTML with charts, Markdown, LaTeX)",
        description=(
            "Read the metrics.json and analysed.jsonl that 'annotator evaluate' wrote and write report.html (one "
            "self-contained file: tables and charts, no network), report.md and report.tex (booktabs tables): per "
            "system a language x metric table with a Mean row, nouns vs verbs, accuracy by sense rank and by "
            "polysemy degree, the cross-language consistency heat map, and the dataset's Table 1 / Table 2 figures."
        ),
    )
    parser.add_argument("folder", metavar="EVALUATION_FOLDER", help="the folder 'annotator evaluate' wrote")
    parser.add_argument("--out", metavar="DIR", help="where to write the report (default: EVALUATION_FOLDER)")
    parser.add_argument(
        "--stats",
        metavar="STATS_JSON",
        help="the export's stats.json for Tables 1 and 2 (default: found beside the evaluated dataset.jsonl)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: pandas and altair are slow to import, which every other command would pay.
    from annotator.reporting.report import write_report

    try:  # the inputs' own read errors are UserErrors already: an OSError is the output's (a full disk, no rights)
        paths = write_report(args.folder, args.out, args.stats)
    except OSError as error:
        raise cannot_write(args.out or args.folder, error) from error
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0
