"""``annotator import`` and ``annotator filter``: bring items in, and report the selection filters."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from annotator.commands import limits
from annotator.commands.aside import Aside, computed_aside
from annotator.commands.common import add_data_option, open_project, print_table
from annotator.data_import.items import ParsedItems, parse_item_file
from annotator.data_import.limits import InputLimits
from annotator.domain.selection_filters import RULES
from annotator.errors import UserError
from annotator.progress import ProgressCallback, TerminalProgress

if TYPE_CHECKING:
    from annotator.project import Project
    from annotator.services.importing import ImportReport

# The database layer (``annotator.project``, the services) is imported when a command runs: ``import`` reads an
# item file in a second process meanwhile (``aside.py``).


def register(subparsers: argparse._SubParsersAction) -> None:
    importer = subparsers.add_parser(
        "import", help="import items from CSV, TSV, XLSX or JSONL (all-or-nothing; re-import is a no-op)"
    )
    add_data_option(importer)
    importer.add_argument(
        "file",
        help="item file (columns id?, sentence, target or start/end, lemma, pos, synset, domain?) "
        "or a WSD-framework FILE.data.xml",
    )
    importer.add_argument("--force", action="store_true", help="replace changed items even if they have curated work")
    importer.add_argument(
        "--format",
        choices=("items", "mucow"),
        default="items",
        help="mucow: a MuCoW suite (<pair>.key.txt + .text.txt) as items with GOOD/BAD sets, no synsets",
    )
    importer.add_argument("--lang", help="with --format mucow: the target language (default: from en-de → DE)")
    importer.add_argument(
        "--gold", help="WSD-framework XML (FILE.data.xml): its gold key file (default: FILE.gold.key.txt beside it)"
    )
    importer.add_argument(
        "--first-key", action="store_true", help="WSD-framework XML: keep the first of several gold keys (else skipped)"
    )
    importer.add_argument(
        "--corpus-license",
        metavar="ID",
        default=None,
        help="the sentences' licence (a licence id such as cc-by-nc-4.0, or 'unknown'); default: what a LICENSE or "
        "README beside the file states, else unknown (then publish allows only 'other')",
    )
    importer.add_argument(
        "--prepopulate",
        action="store_true",
        help="then pre-populate the items' GOOD/BAD from the project's lexicon in the same run, as 'annotator "
        "prepopulate' does (not with --format mucow)",
    )
    importer.set_defaults(func=run_import)
    limits.register(subparsers)  # the bounds every file read obeys, next to the import they mostly concern

    filters = subparsers.add_parser("filter", help="run the selection filters (δ≥3, one per sense, target language)")
    add_data_option(filters)
    filters.add_argument(
        "--exclude", action="store_true", help="also mark every failing item as excluded (a lead's decision)"
    )
    filters.set_defaults(func=run_filter)

    exclude = subparsers.add_parser("exclude", help="exclude items from curation and export (or --undo)")
    add_data_option(exclude)
    exclude.add_argument("ids", nargs="+", help="item ids")
    exclude.add_argument("--undo", action="store_true", help="include the items again")
    exclude.set_defaults(func=run_exclude)


def run_import(args: argparse.Namespace) -> int:
    """Import the file; with ``--prepopulate``, then pre-populate what is left to do (the same run as
    ``annotator prepopulate``, sparing a second start-up), its exit code the command's."""
    mucow = getattr(args, "format", "items") == "mucow"
    if mucow and getattr(args, "prepopulate", False):
        raise UserError("--prepopulate does not go with --format mucow: MuCoW items come with their GOOD/BAD sets.")
    if not _is_item_file(args):
        project = open_project(args)
        imported = _run_import(args, project)
        if imported or not getattr(args, "prepopulate", False):
            return imported
        from annotator.commands.lexicon import print_prepopulation
        from annotator.services.prepopulate import prepopulate

        return print_prepopulation(prepopulate(project, progress=TerminalProgress("pre-populating")))
    _check_item_file(args.file)
    # read and checked as for a project without items under the default limits while the project is opened
    with computed_aside(partial(parse_item_file, args.file, InputLimits())) as read_aside:
        project = open_project(args)
        if not getattr(args, "prepopulate", False):
            from annotator.services.importing import import_items

            progress = TerminalProgress("importing")
            report = import_items(
                project, args.file, force=args.force, progress=progress, corpus_licence=args.corpus_license,
                parse=_item_file_parse(project, args.file, read_aside, progress),
            )  # fmt: skip
            _print_import(args.file, report)
            return 0
        from annotator.commands.lexicon import print_prepopulation
        from annotator.services.prepopulate_staged import import_and_prepopulate

        progress = TerminalProgress("importing and pre-populating")
        _report, prepopulated = import_and_prepopulate(
            project, args.file, force=args.force, progress=progress, corpus_licence=args.corpus_license,
            imported=lambda report: _print_import(args.file, report),
            parse=_item_file_parse(project, args.file, read_aside, progress),
        )  # fmt: skip
    return print_prepopulation(prepopulated)


def _item_file_parse(
    project: Project, file: str, read_aside: Aside[ParsedItems], progress: ProgressCallback
) -> Callable[[Sequence[str]], ParsedItems]:
    """``import_items``'s ``parse``: the file as ``read_aside`` read it when the project has no item and the
    default limits (what it was read for); else read again, with the project's ids and limits."""
    from annotator.services.administration import project_limits

    def parse(known_ids: Sequence[str]) -> ParsedItems:
        limits = project_limits(project)
        if known_ids or limits != InputLimits():
            read_aside.abandon()
            return parse_item_file(file, limits, known_ids, progress)
        progress(0, 0, "reading the file")
        parsed = read_aside.answer()
        if parsed.records:
            progress(len(parsed.records), len(parsed.records), "reading")
        return parsed

    return parse


def _is_item_file(args: argparse.Namespace) -> bool:
    """An item file (not a MuCoW suite nor WSD-framework XML)."""
    mucow = getattr(args, "format", "items") == "mucow"
    return not mucow and not args.file.lower().endswith(".xml") and not args.gold


def _check_item_file(file: str) -> None:
    from annotator.data_import.tables import FORMATS

    suffix = Path(file).suffix.lower()
    if suffix not in FORMATS:  # the item readers' types and the WSD-framework XML, all named
        accepted = ", ".join([*sorted(dict.fromkeys(FORMATS)), ".xml (WSD framework, with its gold keys)"])
        raise UserError(f"{file}: unknown file type {suffix or '(none)'!r}; annotator imports {accepted}.")


def _print_import(file: str, report: ImportReport) -> None:
    for warning in report.warnings:
        print(f"warning: {file}: {warning}")
    print(f"{file}: {report.summary()}")
    if report.licence_line():
        print(report.licence_line())


def _run_import(args: argparse.Namespace, project: Project) -> int:
    """A MuCoW suite or WSD-framework XML."""
    if getattr(args, "format", "items") == "mucow":
        from annotator.services.import_mucow import import_mucow

        mucow = import_mucow(project, args.file, args.lang)
        print(
            f"{args.file}: {mucow.added} MuCoW items added in {mucow.lang}, {mucow.unchanged} already there "
            f"({mucow.approximate_spans} with an approximate target span); no synsets (source 'mucow:')"
        )
        return 0
    from annotator.services.import_wsd import import_wsd_xml

    wsd = import_wsd_xml(
        project, args.file, args.gold, first_key=args.first_key, force=args.force,
        progress=TerminalProgress("importing"), corpus_licence=args.corpus_license,
    )  # fmt: skip
    for warning in wsd.report.warnings:
        print(f"warning: {args.file}: {warning}")
    for ident, keys in wsd.multi_key:  # each skipped instance once, here (the summary only counts them)
        print(f"skipped: {ident}: {len(keys)} gold keys ({' '.join(keys)})")
    print(f"{args.file}: {wsd.summary(list_skipped=False)}")
    if wsd.report.licence_line():
        print(wsd.report.licence_line())
    return 0


def run_filter(args: argparse.Namespace) -> int:
    from annotator.services.filters import run_filters

    project = open_project(args)
    report = run_filters(project, progress=TerminalProgress("filtering"))
    grouped = report.by_rule()
    print(f"Checked {report.checked} items; {len(report.failures)} fail at least one rule.")
    print_table(["rule", "failing items"], [[rule, len(grouped[rule])] for rule in RULES])
    for item_id, failures in sorted(report.failures.items()):
        for failure in failures:
            print(f"  {item_id}: {failure}")
    if args.exclude and report.failures:
        from annotator.services.administration import set_excluded

        count = set_excluded(project, report.failures, True)
        print(f"Excluded {count} item(s).")
    return 0


def run_exclude(args: argparse.Namespace) -> int:
    from annotator.services.administration import set_excluded

    count = set_excluded(open_project(args), args.ids, not args.undo)
    print(f"{'Included' if args.undo else 'Excluded'} {count} item(s).")
    return 0
