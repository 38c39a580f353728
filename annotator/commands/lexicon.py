"""``annotator prepopulate`` and ``annotator lexicon ...``: fill G0/B0 and manage the lexicon provider."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from annotator.commands.common import add_data_option, add_item_options, open_project, selected_items
from annotator.domain.settings import parse_languages
from annotator.errors import UserError
from annotator.progress import TerminalProgress

if TYPE_CHECKING:
    from annotator.services.prepopulate import PrepopulationReport


def register(subparsers: argparse._SubParsersAction) -> None:
    pre = subparsers.add_parser(
        "prepopulate", help="fill GOOD/BAD candidates from the lexicon (resumable; cached requests)"
    )
    add_data_option(pre)
    pre.add_argument(
        "--languages",
        "--lang",
        dest="languages",
        help="only these languages, e.g. IT,DE (default: all project languages)",
    )
    pre.add_argument(
        "--redo",
        action="store_true",
        help="pre-populate again item-languages already done (after a lexicon fault, or new lexicon data); "
        "curated ones are left as they are unless --force; audited",
    )
    add_item_options(pre, "with --redo: only these items")
    pre.add_argument(
        "--force",
        action="store_true",
        help="with --redo: also redo curated item-languages (back to pending with the new sets; history keeps theirs)",
    )
    pre.add_argument(
        "--changed-only",
        action="store_true",
        help="with --redo: only the item-languages whose lexicon candidates are now different (a repair after the "
        "lexicon's forms changed); the others are left untouched and counted",
    )
    pre.set_defaults(func=run_prepopulate)

    lexicon = subparsers.add_parser("lexicon", help="choose the lexicon provider, or freeze the cache as a snapshot")
    actions = lexicon.add_subparsers(dest="lexicon_command", metavar="ACTION")
    use_snapshot = actions.add_parser("use-snapshot", help="pre-populate from an offline snapshot file")
    add_data_option(use_snapshot)
    use_snapshot.add_argument("file")
    use_snapshot.set_defaults(func=run_use_snapshot)
    use_babelnet = actions.add_parser("use-babelnet", help="pre-populate from the BabelNet HTTP API")
    add_data_option(use_babelnet)
    use_babelnet.add_argument("--url", default="https://babelnet.io/v9/", help="API base URL")
    use_babelnet.set_defaults(func=run_use_babelnet)
    use_wordnet = actions.add_parser(
        "use-wordnet", help="pre-populate from open wordnets (WN-LMF files or wn package ids; no BabelNet key)"
    )
    add_data_option(use_wordnet)
    use_wordnet.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="WN-LMF file (.xml, .xml.gz, .xml.xz) or wn package id (omw-it:1.4)",
    )
    use_wordnet.set_defaults(func=run_use_wordnet)
    remove_wordnet = actions.add_parser(
        "remove-wordnet", help="remove a wordnet lexicon the project no longer wants (audited; not the English one "
        "while the wordnet is the lexicon)"
    )  # fmt: skip
    add_data_option(remove_wordnet)
    remove_wordnet.add_argument("lexicon", metavar="ID", help="lexicon id or id:version, as use-wordnet printed it")
    remove_wordnet.set_defaults(func=run_remove_wordnet)
    export = actions.add_parser("export-snapshot", help="freeze the BabelNet response cache as a snapshot file")
    add_data_option(export)
    export.add_argument("out", help="snapshot file to write (.json or .jsonl)")
    export.add_argument("--label", default="Frozen BabelNet responses", help="label stored in the snapshot")
    export.set_defaults(func=run_export_snapshot)
    lexicon.set_defaults(func=lambda _args: lexicon.print_help() or 2)


#: Exit codes of ``prepopulate``: the lexicon stopped the run (quota, unreachable), or some items failed.
EXIT_STOPPED = 3
EXIT_ITEMS_FAILED = 4


def run_prepopulate(args: argparse.Namespace) -> int:
    from annotator.services.prepopulate import Redo, prepopulate

    items = selected_items(args)
    if not args.redo and (items or args.force or args.changed_only):
        raise UserError(
            "--items, --force and --changed-only go with --redo (a normal run does every item not done yet)."
        )
    project = open_project(args)
    languages = parse_languages(args.languages) if args.languages else None
    redo = None
    if args.redo:
        redo = Redo(items=items, force=args.force, changed_only=args.changed_only)
    report = prepopulate(project, languages, progress=TerminalProgress("pre-populating"), redo=redo)
    return print_prepopulation(report)


def print_prepopulation(report: PrepopulationReport) -> int:
    """Print a pre-population's warnings and summary (``prepopulate``, ``import --prepopulate``); its exit code."""
    for warning in report.warnings[:50]:
        print(f"warning: {warning}")
    if len(report.warnings) > 50:
        print(f"... and {len(report.warnings) - 50} more warnings")
    print(report.summary())
    if report.curated_kept:
        shown = ", ".join(f"{i} [{lang}] {status}" for i, lang, status in report.curated_kept[:20])
        more = f" and {len(report.curated_kept) - 20} more" if len(report.curated_kept) > 20 else ""
        print(f"Curated, left as they are: {shown}{more}. Add --force to redo them too (they go back to pending).")
    again = "run the same command again" if report.redo else "run 'annotator prepopulate' again"
    if report.stopped:
        print(f"Stopped: {report.stopped}\nAll work finished so far is saved; {again} to resume.")
        return EXIT_STOPPED
    if report.skipped:
        print(
            f"Finished with errors: {report.failure_message()}. Nothing was recorded for them and the rest is "
            f"saved; {again} to retry them (the warnings above say why each failed)."
        )
        return EXIT_ITEMS_FAILED
    return 0


def run_use_snapshot(args: argparse.Namespace) -> int:
    from annotator.services.lexicon_admin import use_snapshot

    path = Path(args.file).resolve()
    label = use_snapshot(open_project(args), path)
    print(f"Lexicon: snapshot {path} ({label})")
    return 0


def run_use_babelnet(args: argparse.Namespace) -> int:
    from annotator.services.lexicon_admin import use_babelnet

    use_babelnet(open_project(args), args.url)
    print(f"Lexicon: BabelNet at {args.url} (key from BABELNET_API_KEY or .streamlit/secrets.toml)")
    return 0


def _interrupted(what: str) -> int:
    print(f"interrupted: {what}; the project's wordnet is as it was.", file=sys.stderr)
    return 130


def run_use_wordnet(args: argparse.Namespace) -> int:
    from annotator.lexicon.wordnet import lexicon_specifiers
    from annotator.services.lexicon_admin import use_wordnet

    project = open_project(args)
    before = lexicon_specifiers(project.wordnet_folder)
    try:
        result = use_wordnet(project, args.sources, progress=TerminalProgress("adding lexicons"))
    except KeyboardInterrupt:
        added = sorted(set(lexicon_specifiers(project.wordnet_folder)) - set(before))
        if not added:
            return _interrupted("nothing was added")
        print(
            f"interrupted just after the new wordnet was in place: {', '.join(added)} added; the project's lexicon "
            "setting was not changed yet: run the same command again to finish (what is there is not added twice).",
            file=sys.stderr,
        )
        return 130
    for info in result.lexicons:
        print(f"Lexicon {info.describe()}")
    if result.lexicon is None:
        print(f"Not switched to the wordnet yet: {result.not_switched}")
        return 0
    langs = "; ".join(f"{lang}: {' '.join(ids)}" for lang, ids in result.lexicon.languages().items()) or "none"
    print(f"Lexicon: wordnet {result.lexicon.version} (languages {langs})")
    for line in result.lexicon.forms_report():
        print(f"Forms: {line}")
    return 0


def run_remove_wordnet(args: argparse.Namespace) -> int:
    from annotator.services.lexicon_admin import remove_wordnet

    project = open_project(args)
    try:
        removed = remove_wordnet(project, args.lexicon)
    except KeyboardInterrupt:
        return _interrupted("nothing was removed")
    print(f"Removed the wordnet lexicon {removed.specifier} ({removed.language}).")
    return 0


def run_export_snapshot(args: argparse.Namespace) -> int:
    from annotator.lexicon.http_cache import HttpCache
    from annotator.lexicon.snapshot_export import export_cache_as_snapshot

    project = open_project(args)
    if not project.babelnet_cache_path.exists():
        raise UserError(f"No BabelNet cache in {project.data_dir}: pre-populate from BabelNet first.")
    export_cache_as_snapshot(HttpCache(project.babelnet_cache_path), Path(args.out), args.label)
    print(f"Wrote snapshot {args.out}")
    return 0
