"""What every reader of a user's table shares: the rows it gives (a row that could not be read carries a typed
``RowError``), the table, the header rules and the messages of the input limits, in the file's own words."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

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


class Rows(Sequence[Row]):
    """A file's rows as it keeps them until they are validated: the numbers, the cells (a dict per row) and the
    few errors apart; each ``Row`` is made when it is looked at.

    Why: a dict of plain cells is never tracked by the cyclic garbage collector, while a ``Row`` (or a tuple holding
    a dict) is, and 10,000 of them alive at once bring about a full collection of the whole heap (measured by
    ``benchmarks/bench_import_prepopulate.py``)."""

    def __init__(self, rows: Iterable[Row] = ()) -> None:
        self._numbers: list[int] = []
        self._values: list[dict[str, Any]] = []
        self._errors: dict[int, RowError] = {}
        for row in rows:
            self.append(row)

    def append(self, row: Row) -> None:
        if row.error is not None:
            self._errors[len(self._numbers)] = row.error
        self._numbers.append(row.number)
        self._values.append(row.values)

    def __len__(self) -> int:
        return len(self._numbers)

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]  # negative indices, and IndexError past the end
        return Row(self._numbers[index], self._values[index], self._errors.get(index))

    def __iter__(self) -> Iterator[Row]:
        errors = self._errors
        for index, (number, values) in enumerate(zip(self._numbers, self._values, strict=True)):
            yield Row(number, values, errors.get(index) if errors else None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Rows({list(self)!r})"


def bad_row(number: int, message: str, rule: str = "malformed_row") -> Row:
    return Row(number, {}, RowError(message, rule))


@dataclass
class Table:
    """A file read within its limits: normalised header, non-empty rows, and what was guessed to read it."""

    name: str
    columns: list[str]
    rows: Rows
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
