"""``annotator contrastive EVALUATION_FOLDER``: a ContraWSD-style contrastive test suite from scored references."""

from __future__ import annotations

import argparse

from annotator.data_export.contrastive import REFERENCE_SYSTEM, export_contrastive


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "contrastive",
        help="write a contrastive test suite (ContraWSD layout) from reference translations",
        description=(
            "Evaluate the reference translations first, as the system 'reference' (a translations file whose "
            "'system' is 'reference'). For each reference whose matched candidate is GOOD, every BAD candidate "
            "replaces the matched span, giving one contrastive variant. Writes contrastive-<LANG>.json "
            "(annotator/schema/contrastive.schema.json) and contrastive-skipped.jsonl, which lists every reference "
            "without a matched GOOD candidate and every BAD candidate that could not be substituted."
        ),
    )
    parser.add_argument("folder", metavar="EVALUATION_FOLDER", help="the folder 'annotator evaluate' wrote")
    parser.add_argument("--dataset", metavar="DATASET", help="dataset.jsonl (default: the one the evaluation used)")
    parser.add_argument("--out", metavar="DIR", help="where to write (default: EVALUATION_FOLDER)")
    parser.add_argument("--system", default=REFERENCE_SYSTEM, help="the system holding the references")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    suite, written = export_contrastive(args.folder, args.out, args.dataset, args.system)
    entries = sum(len(entries) for entries in suite.entries.values())
    print(f"{entries} reference(s) with {suite.variant_count} contrastive variant(s); {len(suite.skipped)} skipped")
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0
