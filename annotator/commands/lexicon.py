"""``annotator prepopulate`` and ``annotator lexicon ...``: fill G0/B0 and manage the lexicon provider."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from annotator.commands.common import add_data_option, open_project
from annotator.domain.settings import parse_languages
from annotator.errors import UserError
from annotator.progress import TerminalProgress


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
    pre.add_argument("--items", metavar="ID,...", help="with --redo: only these items (comma-separated ids)")
    pre.add_argument(
        "--force",
        action="store_true",
        help="with --redo: also redo curated item-languages (back to pending with the new sets; history keeps theirs)",
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

    if not args.redo and (args.items or args.force):
        raise UserError("--items and --force go with --redo (a normal run does every item not done yet).")
    project = open_project(args)
    languages = parse_languages(args.languages) if args.languages else None
    redo = None
    if args.redo:
        items = tuple(part.strip() for part in args.items.split(",") if part.strip()) if args.items else None
        if args.items is not None and not items:
            raise UserError("--items names no item id.")
        redo = Redo(items=items, force=args.force)
    report = prepopulate(project, languages, progress=TerminalProgress("pre-populating"), redo=redo)
    for warning in report.warnings[:50]:
        print(f"warning: {warning}")
    if len(report.warnings) > 50:
        print(f"... and {len(report.warnings) - 50} more warnings")
    print(report.summary())
    if report.curated_kept:
        shown = ", ".join(f"{i} [{lang}] {status}" for i, lang, status in report.curated_kept[:20])
        more = f" and {len(report.curated_kept) - 20} more" if len(report.curated_kept) > 20 else ""
        print(f"Curated, left as they are: {shown}{more}. Add --force to redo them too (they go back to pending).")
    again = "run the same command again" if redo else "run 'annotator prepopulate' again"
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
    from annotator.lexicon.snapshot import SnapshotLexicon
    from annotator.services.administration import project_limits

    path = Path(args.file).resolve()
    project = open_project(args)
    lexicon = SnapshotLexicon.load(path, project_limits(project))  # validate before saving the setting
    settings = project.settings()
    project.save_settings(replace(settings, lexicon=replace(settings.lexicon, provider="snapshot", snapshot=str(path))))
    print(f"Lexicon: snapshot {path} ({lexicon.label})")
    return 0


def run_use_babelnet(args: argparse.Namespace) -> int:
    project = open_project(args)
    settings = project.settings()
    project.save_settings(replace(settings, lexicon=replace(settings.lexicon, provider="babelnet", base_url=args.url)))
    print(f"Lexicon: BabelNet at {args.url} (key from BABELNET_API_KEY or .streamlit/secrets.toml)")
    return 0


def run_use_wordnet(args: argparse.Namespace) -> int:
    from annotator.lexicon.wordnet import WordnetLexicon, add_lexicons

    project = open_project(args)
    for info in add_lexicons(project.wordnet_folder, args.sources, TerminalProgress("adding lexicons")):
        print(f"Lexicon {info.describe()}")
    try:
        lexicon = WordnetLexicon(project.wordnet_folder)
    except UserError as error:
        print(f"Not switched to the wordnet yet: {error}")
        return 0
    settings = project.settings()
    project.save_settings(replace(settings, lexicon=replace(settings.lexicon, provider="wordnet")))
    langs = "; ".join(f"{lang}: {' '.join(ids)}" for lang, ids in lexicon.languages().items()) or "none"
    print(f"Lexicon: wordnet {lexicon.version} (languages {langs})")
    return 0


def run_export_snapshot(args: argparse.Namespace) -> int:
    from annotator.lexicon.http_cache import HttpCache
    from annotator.lexicon.snapshot import export_cache_as_snapshot

    project = open_project(args)
    if not project.babelnet_cache_path.exists():
        raise UserError(f"No BabelNet cache in {project.data_dir}: pre-populate from BabelNet first.")
    export_cache_as_snapshot(HttpCache(project.babelnet_cache_path), Path(args.out), args.label)
    print(f"Wrote snapshot {args.out}")
    return 0
