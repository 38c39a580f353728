"""Helpers shared by subcommands: opening the project named by --data, printing tables."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from annotator.errors import UserError

if TYPE_CHECKING:
    from annotator.project import Project

#: An ``--items-file`` is a list of ids, not data: a bound keeps a wrong file (a dump, a device) from being read.
MAX_ITEMS_FILE_BYTES = 64 * 1024 * 1024


def open_project(args: argparse.Namespace, create: bool = False) -> Project:
    """The project ``--data`` names (the database layer is imported here, when a command first needs it)."""
    from annotator.project import Project

    return Project.open(getattr(args, "data", None), create=create)


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """Accept --data after the subcommand too (``annotator import x.csv --data DIR``)."""
    parser.add_argument("--data", metavar="DIR", default=argparse.SUPPRESS, help="project data folder")


def add_item_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``--items ID,…`` (comma-separated), ``--item ID`` (repeatable: an id holding a comma) and ``--items-file
    FILE`` (one id per line); ``what`` says what the selection does, e.g. "only these items"."""
    parser.add_argument("--items", metavar="ID,...", help=f"{what} (comma-separated ids)")
    parser.add_argument(
        "--item", metavar="ID", action="append", default=None, help=f"{what}: one id, as it is (repeatable)"
    )
    parser.add_argument("--items-file", metavar="FILE", help=f"{what}: a UTF-8 file of ids, one per line")


def selected_items(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The ids ``--items``, ``--item`` and ``--items-file`` name together (in order, each once), or None when
    none of them was given; naming no id at all is refused."""
    given = [args.items, args.item, args.items_file]
    if all(option is None for option in given):
        return None
    ids: list[str] = []
    if args.items is not None:
        ids += [part.strip() for part in args.items.split(",")]
    ids += list(args.item or ())
    if args.items_file is not None:
        ids += [line.strip() for line in _read_ids(Path(args.items_file))]
    kept = tuple(dict.fromkeys(item for item in ids if item))
    if not kept:
        raise UserError("--items, --item or --items-file names no item id.")
    return kept


def _read_ids(path: Path) -> list[str]:
    if not path.is_file():
        raise UserError(f"{path}: not a file of item ids (--items-file).")
    if path.stat().st_size > MAX_ITEMS_FILE_BYTES:
        raise UserError(f"{path}: larger than {MAX_ITEMS_FILE_BYTES // 2**20} MB; a file of ids is far smaller.")
    try:
        return path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text ({error}).") from error
    except OSError as error:
        raise UserError(f"{path}: cannot be read ({error.strerror or error}).") from error


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))
