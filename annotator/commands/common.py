"""Helpers shared by subcommands: opening the project named by --data, printing tables."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from annotator.project import Project


def open_project(args: argparse.Namespace, create: bool = False) -> Project:
    return Project.open(getattr(args, "data", None), create=create)


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """Accept --data after the subcommand too (``annotator import x.csv --data DIR``)."""
    parser.add_argument("--data", metavar="DIR", default=argparse.SUPPRESS, help="project data folder")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))
