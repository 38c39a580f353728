"""What every reader of a user's table shares: the rows it gives (a row that could not be read carries a typed
``RowError``), the table, the header rules and the messages of the input limits, in the file's own words."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotator.data_import.limits import InputLimitError, InputLimits
from annotator.errors import UserError


class FileFormatError(UserError):
    """The file as a whole cannot be read (encoding, not a workbook, empty, no header)."""


@dataclass(frozen=True)
class RowError:
    """Why a row could not be read as cells at all (more cells than the header, a line that is no JSON object): the
    row's one problem, with the rule it breaks."""

    message: str
    rule: str = "malformed_row"


@dataclass(frozen=True)
class Row:
    """One data row: ``number`` is what the user sees (spreadsheet row, or JSONL line); a row that could not be read
    has no ``values`` and an ``error``."""

    number: int
    values: dict[str, Any]
    error: RowError | None = None


def bad_row(number: int, message: str, rule: str = "malformed_row") -> Row:
    return Row(number, {}, RowError(message, rule))


@dataclass
class Table:
    """A file read within its limits: normalised header, non-empty rows, and what was guessed to read it."""

    name: str
    columns: list[str]
    rows: list[Row]
    #: e.g. "read as UTF-16 (Excel 'Unicode text')", "separator: semicolon (;)" — shown to the user as notes.
    notes: list[str] = field(default_factory=list)


def normalise_header(name: Any) -> str:
    return str(name or "").strip().lower().replace(" ", "_")


def header_name(cache: dict[str, str], key: str) -> str:
    """``normalise_header`` remembered per JSON key (every line repeats the same keys)."""
    name = normalise_header(key)
    if len(cache) < 1_000:
        cache[key] = name
    return name


def check_unique_columns(name: str, columns: list[str], row: int = 1) -> None:
    """Refuse a header that names one column twice: a dict keeps only the last, so the first column's values would
    vanish and the row be refused for a reason that isn't the real one."""
    first: dict[str, int] = {}
    for index, column in enumerate(columns, start=1):
        if not column:
            continue
        if column in first:
            raise FileFormatError(
                f"{name}: row {row}: the column {column!r} appears twice (columns {first[column]} and {index}); "
                "rename or delete one [duplicate_column]"
            )
        first[column] = index


def plural(count: int) -> str:
    return f"{count:,}"


def too_many_rows(name: str, number: int, limits: InputLimits) -> InputLimitError:
    return InputLimitError(
        f"{name}: row {plural(number)}: more than {plural(limits.max_rows)} rows (input limit max_rows; empty rows "
        "count too); nothing was read. Split the file, or delete the empty rows after the data.",
        "too_many_rows",
    )


def cell_too_long(name: str, row: int, column: str, limits: InputLimits) -> InputLimitError:
    where = f"row {plural(row)}" + (f", column '{column}'" if column else "")
    return InputLimitError(
        f"{name}: {where}: more than {plural(limits.max_cell_chars)} characters in one cell "
        "(input limit max_cell_chars); nothing was read.",
        "cell_too_long",
    )


def too_many_columns(name: str, row: int, used: int, limits: InputLimits) -> InputLimitError:
    return InputLimitError(
        f"{name}: row {plural(row)}: {used:,} columns used, more "
        f"than {limits.max_columns} (input limit max_columns); nothing was read.",
        "too_many_columns",
    )
