"""``annotator languages``: list the project's languages by name, add one (an ISO 639 code), remove one nobody has
curated (a mistyped code no longer stays for ever)."""

from __future__ import annotations

import argparse

from annotator.commands.common import add_data_option, open_project, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    languages = subparsers.add_parser("languages", help="list, add or remove the project's languages")
    commands = languages.add_subparsers(dest="languages_command", metavar="ACTION")
    listing = commands.add_parser("list", help="the project's languages, their names and curated item-languages")
    add_data_option(listing)
    listing.set_defaults(func=run_list)
    add = commands.add_parser("add", help="add languages (ISO 639-1 codes, e.g. FR,PT); their items start pending")
    add_data_option(add)
    add.add_argument("codes", help="comma-separated codes, e.g. FR,PT")
    add.set_defaults(func=run_add)
    remove = commands.add_parser(
        "remove", help="remove a language nobody has curated (refused, with the count, when some was)"
    )
    add_data_option(remove)
    remove.add_argument("code", help="the language's code, e.g. FR")
    remove.set_defaults(func=run_remove)
    languages.set_defaults(func=lambda _args: languages.print_help() or 2)


def run_list(args: argparse.Namespace) -> int:
    from annotator.domain.languages import language_name
    from annotator.services.languages import curated_count

    project = open_project(args)
    rows = [[lang, language_name(lang), curated_count(project, lang)] for lang in project.settings().languages]
    print_table(["code", "language", "curated item-languages"], rows)
    return 0


def run_add(args: argparse.Namespace) -> int:
    from annotator.domain.languages import language_label
    from annotator.domain.settings import parse_languages
    from annotator.services.administration import add_languages
    from annotator.services.languages import no_lexicon_message, without_lexicon

    project = open_project(args)
    added = add_languages(project, parse_languages(args.codes))  # the settings read under the write lock
    if added:
        print(f"Added {', '.join(language_label(lang) for lang in added)}; pre-populate to fill their candidates.")
        if missing := without_lexicon(project, tuple(added)):
            print(f"warning: {no_lexicon_message(missing)}")
    else:
        print("Nothing added: the project has these languages already.")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from annotator.services.languages import remove_language

    print(remove_language(open_project(args), args.code).summary())
    return 0
