"""``annotator init``, ``annotator demo`` and ``annotator info``: create and describe a project."""

from __future__ import annotations

import argparse
import os
import shutil
from contextlib import nullcontext
from functools import partial
from pathlib import Path

from annotator.commands.aside import computed_aside
from annotator.commands.common import add_data_option, open_project, print_table
from annotator.data_import.limits import InputLimits
from annotator.domain.settings import BUILTIN_PREFIX, LexiconSettings, ProjectSettings, parse_languages
from annotator.errors import UserError
from annotator.lexicon.snapshot_cache import checked_copy, keep_checked_copy
from annotator.progress import TerminalProgress

# The database layer (``annotator.project``) is imported by the commands that run, not with this module: ``init``
# reads its snapshot in a second process meanwhile (``aside.py``).

DEMO_SNAPSHOT = BUILTIN_PREFIX + "demo/snapshot.json"
DEMO_ITEMS = "demo/items.jsonl"
#: Documented in README.md: the demo accounts (demo only — change them on a real project).
DEMO_USERS = (
    ("lead", "lead", (), "demo-lead-pass", "Demo Lead"),
    ("translator", "translator", ("IT", "DE"), "demo-translator-pass", "Demo Translator (IT, DE)"),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    init = subparsers.add_parser("init", help="create an empty project in the data folder")
    add_data_option(init)
    init.add_argument("--name", default="annotator project", help="project name shown in the app")
    init.add_argument(
        "--languages", default="DE,ES,IT,RU,ZH", help="target languages as ISO 639-1 codes, e.g. DE,ES,IT,RU,ZH"
    )
    source = init.add_mutually_exclusive_group()
    source.add_argument("--snapshot", metavar="FILE", help="use an offline lexicon snapshot (JSON/JSONL)")
    source.add_argument("--babelnet", action="store_true", help="use the BabelNet HTTP API (needs a key)")
    init.add_argument("--babelnet-url", default="https://babelnet.io/v9/", help="BabelNet API base URL")
    init.set_defaults(func=run_init)

    demo = subparsers.add_parser(
        "demo", help="create the demo project: sample snapshot, sample items, pre-populated, demo users"
    )
    add_data_option(demo)
    demo.add_argument("--force", action="store_true", help="delete an existing project in the folder first")
    demo.set_defaults(func=run_demo)

    info = subparsers.add_parser("info", help="show the project's settings and progress per language")
    add_data_option(info)
    info.set_defaults(func=run_info)


def run_init(args: argparse.Namespace) -> int:
    languages = parse_languages(args.languages)  # a bad code refused before anything is created (exit 2)
    snapshot = str(Path(args.snapshot).resolve()) if args.snapshot else None
    # Refuse a bad snapshot now, not at the first pre-population: reading the file runs every check a file can fail
    # (each record, duplicates, dangling references) without building the lexicon's indexes. What was read is kept
    # in the new project's folder, within the limits a new project has, for the lexicon to load.
    reading = computed_aside(partial(checked_copy, Path(snapshot), InputLimits())) if snapshot else None
    with reading or nullcontext(None) as read_aside:
        from annotator.project import resolve_data_dir  # the database layer, loaded while the snapshot is read

        data_dir = resolve_data_dir(getattr(args, "data", None))
        copy = read_aside.answer() if read_aside is not None else None  # a refused snapshot: nothing is created
    lexicon = LexiconSettings(
        provider="babelnet" if args.babelnet else "snapshot",
        snapshot=snapshot,
        base_url=args.babelnet_url,
    )
    project = open_project(args, create=True)
    project.save_settings(ProjectSettings(name=args.name, languages=languages, lexicon=lexicon))
    if copy is not None:
        keep_checked_copy(project.data_dir, copy)
    print(f"Created project {args.name!r} in {data_dir}")
    return 0


def create_demo(data: str | None, force: bool = False, quiet: bool = False) -> None:
    """Build the demo project; shared by ``annotator demo`` and ``annotator serve --demo``."""
    from annotator.domain.model import Role
    from annotator.project import (
        Project,
        ProjectExistsError,
        builtin_path,
        database_url,
        display_url,
        project_exists,
        resolve_data_dir,
    )
    from annotator.services.accounts import add_user
    from annotator.services.filters import run_filters
    from annotator.services.importing import import_items
    from annotator.services.prepopulate import prepopulate

    data_dir = resolve_data_dir(data)
    if project_exists(data_dir):  # asked of the database, before any import, pre-population or filter runs
        if not force:
            raise ProjectExistsError(
                f"{display_url(database_url(data_dir) or 'sqlite:///')} already holds a project; nothing was changed. "
                "Add --force to replace a data folder's project with the demo."
            )
        if os.environ.get("ANNOTATOR_DATABASE_URL"):
            raise UserError(
                "--force only replaces a project kept in the data folder's SQLite file; a project in "
                "ANNOTATOR_DATABASE_URL is never dropped by annotator (drop the database yourself)."
            )
        shutil.rmtree(data_dir)
    project = Project.open(data_dir, create=True)
    project.save_settings(
        ProjectSettings(
            name="annotator demo (hand-built sample data)",
            lexicon=LexiconSettings(provider="snapshot", snapshot=DEMO_SNAPSHOT),
        )
    )
    report = import_items(project, builtin_path(DEMO_ITEMS))
    bar = (lambda *a: None) if quiet else TerminalProgress("pre-populating")
    prepopulation = prepopulate(project, progress=bar)
    filters = run_filters(project)
    for name, role, langs, password, display in DEMO_USERS:
        add_user(project, name, Role(role), langs, password, display)
    if not quiet:
        print(f"Demo project in {data_dir}: items {report.summary()}; {prepopulation.summary()}")
        print(f"Selection filters: {len(filters.failures)} item(s) flagged (see 'annotator filter').")
        print("Demo accounts: lead / demo-lead-pass (lead), translator / demo-translator-pass (IT, DE).")


def run_demo(args: argparse.Namespace) -> int:
    create_demo(getattr(args, "data", None), force=args.force)
    return 0


def run_info(args: argparse.Namespace) -> int:
    from annotator.project import LEXICON_CHOICES, display_url
    from annotator.services import read_model

    project = open_project(args)
    settings = project.settings()
    counts, items = read_model.status_counts(project), read_model.item_count(project)
    print(f"Project: {settings.name}  ({project.data_dir})")
    print(f"Database: {display_url(project.db.url)}  (schema revision {project.db.schema_revision()})")
    print(f"Languages: {' '.join(settings.languages)}   Items: {items}")
    lexicon = settings.lexicon
    if lexicon.provider == "snapshot" and not lexicon.snapshot:
        print(f"Lexicon: none set yet; {LEXICON_CHOICES}")
    else:
        print(f"Lexicon: {lexicon.provider}" + (f" {lexicon.snapshot}" if lexicon.provider == "snapshot" else ""))
    statuses = ("pending", "in_progress", "done", "discuss", "discarded")
    print_table(
        ["lang", *statuses],
        [[lang, *(counts.get(lang, {}).get(s, 0) for s in statuses)] for lang in settings.languages],
    )
    return 0
