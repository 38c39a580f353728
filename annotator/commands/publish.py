"""``annotator publish``: the benchmark as a Hugging Face dataset folder (Parquet per language, dataset card,
Croissant metadata, the sources' licences), made from one new export."""

from __future__ import annotations

import argparse

from annotator.commands.common import add_data_option, open_project
from annotator.progress import TerminalProgress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "publish",
        help="write the dataset as a Hugging Face dataset folder: Parquet per language, README.md card, "
        "croissant.json, LICENSES/",
        description="Exports the project (like 'annotator export') and writes, from that export, the folder to "
        "upload with 'hf upload'. The licence must be one the lexicon sources allow.",
    )
    add_data_option(parser)
    parser.add_argument("--out", metavar="FOLDER", required=True, help="new folder to write (must not hold files)")
    parser.add_argument("--name", default=None, help="the dataset's name in the card (default: the project's name)")
    parser.add_argument(
        "--license",
        default=None,
        metavar="ID",
        help="licence id for the card, e.g. cc-by-sa-4.0, or 'other' for the sources' own licences "
        "(default: the most open licence the sources allow)",
    )
    parser.add_argument(
        "--include-incomplete",
        action="store_true",
        help="also publish items not yet done in every language (their usable rows; with --include-unusable all "
        "of them, the status column saying how far each got)",
    )
    parser.add_argument(
        "--include-unusable",
        action="store_true",
        help="also publish rows that are not usable: not done, or done with an empty GOOD list (by default only "
        "usable rows are published; the usable and status columns say which)",
    )
    parser.add_argument(
        "--keep-partially-discarded",
        action="store_true",
        help="publish an item discarded in some language in its other languages",
    )
    parser.add_argument(
        "--hub-id",
        metavar="OWNER/NAME",
        default=None,
        help="the dataset's Hugging Face Hub id: the card's load and upload lines, its URL and citation, and "
        "croissant.json's url and publisher",
    )
    parser.add_argument(
        "--author",
        action="append",
        default=[],
        metavar="NAME",
        help="an author for the card's citation and croissant.json's creator (repeat in order)",
    )
    parser.set_defaults(func=run_publish)


def run_publish(args: argparse.Namespace) -> int:
    from annotator.data_export.publish import publish

    project = open_project(args)
    result = publish(
        project,
        args.out,
        name=args.name,
        licence=args.license,
        include_incomplete=args.include_incomplete,
        progress=TerminalProgress("publishing"),
        include_unusable=args.include_unusable,
        keep_partially_discarded=args.keep_partially_discarded,
        hub_id=args.hub_id,
        authors=tuple(args.author),
    )
    rows = ", ".join(f"{config} {n}" for config, n in result.rows.items())
    print(f"Published to {result.path} under '{result.licence}' (export manifest {result.manifest_id})")
    print(f"Rows: {rows}")
    if result.placeholders:
        print(
            f"The card holds {result.placeholders} placeholder(s) only the team can fill: search README.md and "
            "croissant.json for 'TO FILL' before uploading."
        )
    print(f"Upload it with: hf upload --repo-type dataset {result.hub_id or 'OWNER/NAME'} {result.path}")
    return 0
