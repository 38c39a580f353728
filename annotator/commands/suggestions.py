"""``annotator suggestions``: every item-language's empty-list reasons and suggestions as JSON lines."""

from __future__ import annotations

import argparse
from pathlib import Path

from annotator.commands.common import add_data_option, add_item_options, open_project, selected_items
from annotator.domain.settings import parse_languages
from annotator.errors import UserError
from annotator.progress import TerminalProgress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "suggestions",
        help="write why GOOD/BAD lists start empty and the suggestions, one JSON line per item-language",
        description=(
            "One line per item-language: id, lang, good_empty_reason, bad_empty_reason, suggestions "
            "[{text, side, source, relation, synset, reason}] (side GOOD, BAD or move-to-GOOD: a word in BAD proposed "
            "for GOOD) — the same the Curate card shows (no one's "
            "dismissals left out). What is computed on the way is kept, so the cards find it ready."
        ),
    )
    add_data_option(parser)
    parser.add_argument("--lang", "--languages", dest="languages", help="only these languages, e.g. IT,DE")
    add_item_options(parser, "only these items")
    parser.add_argument("--out", required=True, metavar="FILE.jsonl", help="the file to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from annotator.services.suggestions.bulk import write_jsonl

    project = open_project(args)
    languages = parse_languages(args.languages) if args.languages else None
    items = selected_items(args)
    out = Path(args.out)
    if out.parent and not out.parent.exists():
        raise UserError(f"{out}: its folder does not exist.")
    report = write_jsonl(project, out, languages, items, TerminalProgress("suggestions"))
    print(f"{report.item_languages} item-language(s) written to {out}")
    for lang in sorted(report.empty_good):
        print(
            f"{lang}: {report.empty_good[lang]} start with an empty GOOD list, "
            f"{report.empty_good_with_suggestions[lang]} of them with suggestions"
        )
    return 0
