"""``annotator sheet export|import``: the spreadsheet round trip for translators who curate offline."""

from __future__ import annotations

import argparse

from annotator.commands.common import add_data_option, open_project
from annotator.domain.model import User
from annotator.domain.settings import parse_languages
from annotator.errors import UserError
from annotator.project import Project


def register(subparsers: argparse._SubParsersAction) -> None:
    sheet = subparsers.add_parser("sheet", help="export a curation spreadsheet per language, import an edited one")
    actions = sheet.add_subparsers(dest="sheet_command", metavar="ACTION")

    export = actions.add_parser("export", help="write one .xlsx per language (default: every project language)")
    add_data_option(export)
    export.add_argument("--lang", default="", help="language(s), e.g. IT or IT,DE (default: all)")
    export.add_argument("--out", metavar="DIR", default=None, help="folder for the .xlsx files (default: DATA/exports)")
    export.set_defaults(func=run_export)

    imported = actions.add_parser(
        "import", help="apply an edited sheet as a user's edits (all rows checked first; all or nothing)"
    )
    add_data_option(imported)
    imported.add_argument("file", help="the edited .xlsx (or a CSV/TSV with the same columns and --lang)")
    imported.add_argument("--user", help="whose edits these are (their permissions apply)")
    imported.add_argument("--lang", help="the sheet's language, when the file does not say it")
    imported.set_defaults(func=run_import)
    sheet.set_defaults(func=lambda _args: sheet.print_help() or 2)


def run_export(args: argparse.Namespace) -> int:
    from annotator.data_export.spreadsheet import export_sheet

    project = open_project(args)
    languages = parse_languages(args.lang) if args.lang.strip() else project.settings().languages
    for lang in languages:
        path = export_sheet(project, lang, args.out)
        print(f"{lang}: {path}")
    return 0


def _user(project: Project, name: str | None) -> User:
    from annotator.services.accounts import find_user, has_users
    from annotator.services.curation import LOCAL_USER

    if not name:
        if has_users(project):
            raise UserError("Say whose edits these are: --user NAME.")
        return LOCAL_USER
    user = find_user(project, name)
    if user is None:
        raise UserError(f"No user named {name!r} (see 'annotator users list').")
    if user.disabled:
        raise UserError(f"User {name!r} is disabled.")
    return user


def run_import(args: argparse.Namespace) -> int:
    from annotator.services.curation import CurationService
    from annotator.services.sheet_import import import_sheet

    project = open_project(args)
    report = import_sheet(CurationService(project, _user(project, args.user)), args.file, args.lang)
    print(f"{args.file}: {report.summary()}")
    for change in report.changed:
        print(f"  row {change.row}: {change.item_id}: {', '.join(change.actions)}")
    return 0
