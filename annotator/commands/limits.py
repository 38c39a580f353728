"""``annotator limits``: show or change the project's input limits, the bounds every file read obeys."""

from __future__ import annotations

import argparse
from dataclasses import fields

from annotator.commands.common import add_data_option, open_project, print_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "limits", help="show or set the input limits (file size, rows, columns, characters per cell, ...)"
    )
    add_data_option(parser)
    parser.add_argument(
        "--set", metavar="NAME=NUMBER", action="append", default=[], help="change one limit (repeatable)"
    )
    parser.add_argument("--reset", action="store_true", help="back to the defaults")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from annotator.data_import.limits import InputLimits, parse_assignments
    from annotator.services.administration import project_limits, update_project_limits

    project = open_project(args)
    limits = InputLimits() if args.reset else project_limits(project)
    if args.set or args.reset:
        parse_assignments(args.set, limits)  # a bad assignment refused before the write lock is taken
        # applied to the limits read under the write lock: a limit another run set meanwhile is kept
        limits = update_project_limits(
            project, lambda current: parse_assignments(args.set, InputLimits() if args.reset else current)
        )
    defaults = InputLimits()
    print_table(
        ["limit", "value", "default"],
        [[f.name, f"{getattr(limits, f.name):,}", f"{getattr(defaults, f.name):,}"] for f in fields(InputLimits)],
    )
    return 0
