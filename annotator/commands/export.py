"""``annotator export`` and ``annotator stats``: write the dataset folder, or show what it would hold.

Both take the same selection flags, so ``annotator stats`` is a preview of the export's ``stats.json``: the flags
change which items are exported (and the Table-1 counts); the refinement statistics are always over every done
item-language of the non-excluded items (SPEC §6).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from annotator.commands.common import add_data_option, open_project, print_table
from annotator.data_export.dataset import ExportOptions, Selection
from annotator.domain.agreement import format_figure
from annotator.domain.refinement_stats import format_value
from annotator.progress import TerminalProgress

#: The selection flags' help: what ``export`` writes, and what ``stats`` counts with the same flag.
SELECTION_HELP = {
    "export": (
        "also export items not yet done in every language (their unfinished languages say their status)",
        "keep items discarded in some language, for their other languages (default: leave them out)",
    ),
    "stats": (
        "count items not yet done in every language too, as export --include-incomplete would write them",
        "count items discarded in some language, for their other languages, as export --keep-partially-discarded "
        "would write them",
    ),
}


def _add_selection_flags(parser: argparse.ArgumentParser, command: str = "export") -> None:
    incomplete, partial = SELECTION_HELP[command]
    parser.add_argument("--include-incomplete", action="store_true", help=incomplete)
    parser.add_argument("--keep-partially-discarded", action="store_true", help=partial)


def _options(args: argparse.Namespace) -> ExportOptions:
    return ExportOptions(
        include_incomplete=args.include_incomplete, keep_partially_discarded=args.keep_partially_discarded
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser(
        "export",
        help="write the dataset (dataset.jsonl, discarded.jsonl, stats.json, manifest.json) to a new folder",
        description="By default an item is exported when it is done in every project language; items excluded "
        "by a lead or discarded in any language are left out.",
    )
    add_data_option(export)
    export.add_argument(
        "--out", metavar="DIR", default=None, help="folder to create the export in (default: DATA/exports)"
    )
    export.add_argument(
        "--allow-empty",
        action="store_true",
        help="write the export even when no item matches the selection (default: refuse, exit 2)",
    )
    _add_selection_flags(export)
    export.add_argument(
        "--with-annotators",
        action="store_true",
        help="also write each double-curating translator's own sets (anonymous ids A1, A2, ...) in dataset.jsonl",
    )
    export.add_argument(
        "--annotator-names",
        action="store_true",
        help="with --with-annotators: name the translators instead of anonymous ids (also in stats.json)",
    )
    export.set_defaults(func=run_export)

    stats = subparsers.add_parser(
        "stats", help="show the refinement statistics (%% added, %% removed, %% shared) and the dataset counts"
    )
    add_data_option(stats)
    _add_selection_flags(stats, "stats")
    stats.add_argument("--json", action="store_true", help="print the stats.json an export would write")
    stats.set_defaults(func=run_stats)


def run_export(args: argparse.Namespace) -> int:
    from annotator.data_export.dataset import export_dataset

    project = open_project(args)
    options = replace(_options(args), with_annotators=args.with_annotators, annotator_names=args.annotator_names)
    result = export_dataset(
        project, args.out, options, progress=TerminalProgress("exporting"), allow_empty=args.allow_empty
    )
    counts = result.manifest["counts"]
    left = ", ".join(f"{n} {why}" for why, n in counts["left_out"].items() if n) or "none"
    print(f"Exported {counts['items']} item(s), {counts['item_languages']} item-language(s) to {result.path.resolve()}")
    print(f"Left out: {left}; discarded item-languages listed: {counts['discarded_item_languages']}")
    return 0


def print_stats(selection: Selection) -> None:
    """The two tables of the DiBiMT paper for this selection, readable in a terminal."""
    table = selection.refinement()
    print(
        "Refinement statistics over the done item-languages of the non-excluded items "
        "(DiBiMT Table 2; n/a = nothing to count)"
    )
    rows: list[list[object]] = []
    for row in table.languages:
        rows.append(
            [
                row.lang,
                row.item_languages,
                format_value(row.added_pct),
                format_value(row.removed_pct),
                format_value(row.shared_pct),
                row.pairs,
                format_value(row.mean_jaccard, 3),
            ]
        )
    mean = table.mean
    rows.append(
        [
            "Mean",
            "",
            format_value(mean["added_pct"]),
            format_value(mean["removed_pct"]),
            format_value(mean["shared_pct"]),
            "",
            format_value(mean["mean_jaccard"], 3),
        ]
    )
    print_table(["lang", "done", "% added", "% removed", "% shared", "pairs", "mean Jaccard"], rows)
    print()
    counts = selection.counts()
    print(f"Dataset counts (DiBiMT Table 1) over the {len(selection.items)} item(s) an export with these options holds")
    print_table(["", *counts.columns], counts.rows())
    print_agreement(selection.agreement())
    left = ", ".join(f"{n} {why}" for why, n in selection.left_out.items() if n)
    if left:
        print(f"\nLeft out of the export: {left} (see --include-incomplete, --keep-partially-discarded).")
    unfinished = selection.left_out.get("incomplete", 0)
    if not selection.items and unfinished:  # e.g. after `export --include-incomplete`: these flags count alike
        print(
            f"No item is done in every language yet: `annotator stats --include-incomplete` counts the {unfinished} "
            "unfinished item(s), as `annotator export --include-incomplete` exports them."
        )


def print_agreement(agreement: dict[str, Any]) -> None:
    """The agreement table, when some double-curated item-language has all its copies finished."""
    if not agreement["item_languages"]:
        return
    print()
    print(
        f"Agreement between translators over {agreement['item_languages']} double-curated item-language(s) "
        "(% of pairs or units; α = Krippendorff's alpha, nominal; n/a = nothing to count)"
    )
    rows = []
    scopes = [*agreement["languages"].items(), ("all", agreement["overall"])]
    for name, fig in scopes:
        rows.append(
            [
                name,
                fig["decision_pairs"],
                format_figure(fig["decision_agreement"]),
                format_figure(fig["exact_good_agreement"]),
                format_figure(fig["mean_jaccard_good"], percent=False),
                format_figure(fig["prepopulated_agreement"]),
                format_figure(fig["added_agreement"]),
                format_figure(fig["alpha"], percent=False),
                fig["alpha_units"],
            ]
        )
    print_table(
        ["lang", "pairs", "% decision", "% exact GOOD", "Jaccard GOOD", "% pre-pop.", "% added", "α", "units"], rows
    )


def run_stats(args: argparse.Namespace) -> int:
    from annotator.data_export.dataset import collect, stats_json

    selection = collect(open_project(args), _options(args))
    if args.json:
        print(json.dumps(stats_json(selection), ensure_ascii=False, indent=2))
    else:
        print_stats(selection)
    return 0
