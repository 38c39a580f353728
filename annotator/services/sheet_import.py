"""Spreadsheet import (SPEC §7): apply an edited curation sheet as the importing user's edits, all or nothing.

Every row is checked first (its language, SPEC §3 candidates, status, reason, note, stale versions, cells a
spreadsheet cut off) and every bad row is listed with its number and rule; only when all rows are good are the
edits applied, through ``CurationService`` (so permissions and workflow rules are the browser's), inside one
database transaction: a refusal half-way rolls back every row. Untouched and unchanged rows are no-ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.data_export.spreadsheet import (
    ABOUT_SHEET,
    DATA_SHEET,
    SHEET_FORMAT,
    SHEET_FORMAT_VERSION,
    normalise_note,
    row_fingerprint,
)
from annotator.data_import.items import RowProblem
from annotator.data_import.limits import InputLimits, ProblemLog, check_file_size
from annotator.data_import.table_rows import FileFormatError, Row
from annotator.data_import.tables import read_table
from annotator.data_import.xlsx import Workbook
from annotator.domain import workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.limits import MAX_NOTE_LENGTH, SPREADSHEET_CELL_LIMIT
from annotator.domain.model import DiscardReason, Item, ItemLanguage, Status
from annotator.errors import RowProblemsError, UserError
from annotator.services.administration import project_limits
from annotator.services.curation import CurationService

REQUIRED_COLUMNS = ("id", "good", "bad", "status", "version")
#: pending and in_progress are both "open": the workflow moves pending → in_progress by itself on an edit.
_OPEN_STATUSES = (Status.PENDING, Status.IN_PROGRESS)
_RESOLVED_COMMENT = "Resolved in a spreadsheet import."
_COLUMN_LABELS = {"good": "GOOD", "bad": "BAD"}


class SheetImportError(RowProblemsError):
    """The sheet has bad rows (or a row was refused while applying); nothing was applied."""

    def __init__(self, name: str, problems: list[RowProblem]) -> None:
        super().__init__(name, problems, "nothing was applied")


@dataclass(frozen=True)
class RowChange:
    row: int
    item_id: str
    actions: tuple[str, ...]


@dataclass
class SheetImportReport:
    lang: str
    changed: list[RowChange] = field(default_factory=list)
    unchanged: int = 0

    def summary(self) -> str:
        return f"{self.lang}: {len(self.changed)} row(s) applied, {self.unchanged} unchanged"


@dataclass(frozen=True)
class Desired:
    """What a row asks for, normalised (candidates in canonical §3 form)."""

    good: tuple[str, ...]
    bad: tuple[str, ...]
    status: Status
    reason: DiscardReason | None
    note: str


# --- reading ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkbookInfo:
    """What an ``.xlsx`` says about itself: its worksheets and, if it is one of our sheets, its language."""

    sheets: tuple[str, ...]
    language: str | None
    format_version: str | None = None


def open_workbook(path: Path, limits: InputLimits | None = None) -> WorkbookInfo | None:
    """Check that ``path`` exists and, for ``.xlsx``, is a workbook, with a message that says so (before anything
    asks the file for its language, which would otherwise be the confusing complaint); None for a CSV/TSV."""
    if not path.is_file():
        raise FileFormatError(f"{path}: no such file." if not path.exists() else f"{path}: not a file.")
    if path.suffix.lower() != ".xlsx":
        return None
    limits = limits or InputLimits()
    check_file_size(path.name, path.stat().st_size, limits.max_file_bytes)
    with Workbook(path, limits) as workbook:  # streamed within the input limits, like every other file
        sheets = tuple(workbook.sheets)
        if ABOUT_SHEET not in sheets:
            return WorkbookInfo(sheets, None)
        values = {
            str(row[0]).strip(): str(row[1]).strip()
            for _n, row in workbook.iter_rows(ABOUT_SHEET)
            if len(row) > 1 and row[0]
        }
    if values.get("format") != SHEET_FORMAT:
        return WorkbookInfo(sheets, None)
    return WorkbookInfo(sheets, values.get("language", "").upper() or None, values.get("format_version"))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _version(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _lines(cell: Any) -> list[str]:
    return [line for line in _text(cell).replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]


def _status(raw: str) -> Status | None:
    key = raw.strip().lower().replace(" ", "_").replace("-", "_")
    for status in Status:
        if status.value == key:
            return status
    return None


def _reason(raw: str) -> DiscardReason | None:
    key = raw.strip().lower().replace(" ", "_").replace("-", "_")
    for reason in DiscardReason:
        if reason.value == key:
            return reason
    return None


def _candidates(
    cell: Any, column: str, item: Item, row: int, problems: list[RowProblem]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """Canonical forms (duplicates by identity dropped) and identity → form, reporting every bad line."""
    forms: list[str] = []
    keys: dict[str, str] = {}
    for line in _lines(cell):
        try:
            candidate = parse_candidate(line, item.target.pos)
        except CandidateError as error:
            problems.append(RowProblem(row, column, error.rule, f"{error.message} ({error.text!r})"))
            continue
        key = f"{candidate.key[0]}\x1f{candidate.key[1] or ''}"
        if key not in keys:
            keys[key] = candidate.format()
            forms.append(candidate.format())
    return tuple(forms), keys


def _same_status(current: ItemLanguage, desired: Desired) -> bool:
    """Does the row ask for the state the item-language is in (reason and note included where they matter)?"""
    if desired.status in _OPEN_STATUSES:
        return current.status in _OPEN_STATUSES
    if desired.status is not current.status:
        return False
    if desired.status is Status.DISCARDED:
        return desired.reason is current.discard_reason and desired.note == normalise_note(current.discard_note)
    return True


def _row_language_ok(n: int, values: dict[str, Any], lang: str, problems: list[RowProblem]) -> bool:
    """Is the row one of ``lang``'s? Checked on every row, so no sheet is applied to another language's curation
    whatever happened to its ``about`` sheet or file type."""
    row_lang = _text(values.get("lang")).strip().upper()
    if not row_lang:
        problems.append(
            RowProblem(n, "lang", "missing_language", "the row does not say its language; re-export the sheet")
        )
        return False
    if row_lang != lang:
        problems.append(
            RowProblem(
                n,
                "lang",
                "wrong_language",
                f"this row belongs to {row_lang}, but the sheet is being imported as {lang}; import it as {row_lang}",
            )
        )
        return False
    return True


def _cells_whole(n: int, values: dict[str, Any], problems: list[RowProblem]) -> bool:
    """Refuse any cell at a spreadsheet's cell limit: it was probably cut off, and applying it would delete data."""
    ok = True
    for column, value in values.items():
        if isinstance(value, str) and len(value) >= SPREADSHEET_CELL_LIMIT:
            problems.append(
                RowProblem(
                    n,
                    _COLUMN_LABELS.get(column, column),
                    "cell_full",
                    f"the cell holds {len(value):,} characters, the most a spreadsheet cell can: it was probably cut "
                    "off, so it is not applied (shorten it in the app, then export a fresh sheet)",
                )
            )
            ok = False
    return ok


# --- the import -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    row: int
    item: Item
    current: ItemLanguage
    desired: Desired


def _check_row(
    row: Row,
    items: dict[str, Item],
    states: dict[str, ItemLanguage],
    seen: dict[str, int],
    lang: str,
    problems: list[RowProblem],
) -> _Plan | None:
    """Validate one row; return a plan when it asks for a change, None when it is a no-op or wrong."""
    n, values = row.number, row.values
    if row.error is not None:
        problems.append(RowProblem(n, "", "malformed_row", row.error.message))
        return None
    if not _row_language_ok(n, values, lang, problems) or not _cells_whole(n, values, problems):
        return None
    before = len(problems)
    item_id = _text(values.get("id")).strip()
    if not item_id:
        problems.append(RowProblem(n, "id", "missing_value", "the id is empty"))
        return None
    if item_id in seen:
        problems.append(RowProblem(n, "id", "duplicate_row", f"{item_id!r} was already in row {seen[item_id]}"))
        return None
    seen[item_id] = n
    item = items.get(item_id)
    current = states.get(item_id)
    if item is None or current is None:
        problems.append(RowProblem(n, "id", "unknown_item", f"no item {item_id!r} in {lang} in this project"))
        return None
    version = _version(values.get("version"))
    if version is None:
        problems.append(
            RowProblem(n, "version", "bad_version", f"version {values.get('version')!r} is not a whole number")
        )
    good, good_keys = _candidates(values.get("good"), "GOOD", item, n, problems)
    bad, bad_keys = _candidates(values.get("bad"), "BAD", item, n, problems)
    for key in sorted(good_keys.keys() & bad_keys.keys()):
        problems.append(
            RowProblem(n, "BAD", "good_and_bad", f"{bad_keys[key]!r} is in both GOOD and BAD; it belongs to one side")
        )
    raw_status = _text(values.get("status")).strip()
    status = _status(raw_status) if raw_status else current.status
    if status is None:
        problems.append(
            RowProblem(n, "status", "bad_status", f"status {raw_status!r} is not one of {', '.join(s for s in Status)}")
        )
    note = normalise_note(_text(values.get("note")))
    raw_reason = _text(values.get("reason")).strip()
    reason: DiscardReason | None = None
    if status is Status.DISCARDED:
        reason = _reason(raw_reason) if raw_reason else None
        if not raw_reason:
            problems.append(RowProblem(n, "reason", "reason_required", "a discarded row needs a reason"))
        elif reason is None:
            problems.append(
                RowProblem(
                    n,
                    "reason",
                    "bad_reason",
                    f"reason {raw_reason!r} is not one of {', '.join(r for r in DiscardReason)}",
                )
            )
        elif reason is DiscardReason.OTHER and not note:
            problems.append(RowProblem(n, "note", "note_required", "discarding for 'other' needs a note"))
    if status is Status.DISCUSS and not note:
        problems.append(RowProblem(n, "note", "note_required", "DISCUSS needs a note saying what to discuss"))
    if len(note) > MAX_NOTE_LENGTH:
        problems.append(
            RowProblem(
                n, "note", "note_too_long", f"the note has {len(note):,} characters; at most {MAX_NOTE_LENGTH:,}"
            )
        )
    if len(problems) > before or status is None or version is None:
        return None

    desired = Desired(good, bad, status, reason, note)
    current_good = tuple(e.format() for e in current.good)
    current_bad = tuple(e.format() for e in current.bad)
    discuss_note_changed = status is Status.DISCUSS and note != normalise_note(current.discuss_note)
    if good == current_good and bad == current_bad and _same_status(current, desired) and not discuss_note_changed:
        return None  # what the database already holds
    fingerprint = _text(values.get("fingerprint")).strip()
    sheet_status = raw_status.strip().lower()
    if fingerprint and fingerprint == row_fingerprint(good, bad, sheet_status, raw_reason.lower(), note):
        return None  # untouched since the export: someone else's later change must not be undone
    if version != current.version:
        who = current.updated_by or "someone"
        problems.append(
            RowProblem(
                n,
                "version",
                "stale",
                f"{item_id} [{lang}] was changed by {who} at {current.updated_at} after this sheet was exported "
                f"(sheet version {version}, now {current.version}); export a fresh sheet and redo this row",
            )
        )
        return None
    return _Plan(n, item, current, desired)


def _apply(service: CurationService, plan: _Plan, lang: str) -> tuple[str, ...]:
    """Run the service actions that take the item-language to the row's state; returns their names."""
    actions: list[str] = []
    item_id, desired = plan.item.id, plan.desired
    state = plan.current

    def step(name: str, call: Callable[[], ItemLanguage]) -> None:
        nonlocal state
        state = call()
        actions.append(name)

    candidates_change = desired.good != tuple(e.format() for e in state.good) or desired.bad != tuple(
        e.format() for e in state.bad
    )
    status_change = not _same_status(state, desired)
    if state.status in (Status.DONE, Status.DISCARDED) and (candidates_change or status_change):
        step("reopen", lambda: service.reopen(item_id, lang, state.version))
    if candidates_change:
        step(
            "edit",
            lambda: service.replace_candidates(
                item_id, lang, list(desired.good), list(desired.bad), state.version, action="sheet_edit"
            ),
        )
    comment = desired.note or _RESOLVED_COMMENT
    if desired.status is Status.DONE and state.status is not Status.DONE:
        if state.status is Status.DISCUSS:
            step("resolve", lambda: service.resolve(item_id, lang, Status.DONE, comment, state.version))
        else:
            step("done", lambda: service.mark_done(item_id, lang, state.version))
    elif desired.status is Status.DISCUSS:
        if state.status is not Status.DISCUSS:
            step("discuss", lambda: service.flag_discuss(item_id, lang, desired.note, state.version))
        elif desired.note != normalise_note(state.discuss_note):
            # Through the service so the stored note changes with the thread: a re-import of the same sheet then
            # finds the note already there and is a no-op (a bare comment left the old note, so every import
            # re-applied it and a re-export showed the old note).
            step("note", lambda: service.update_discuss_note(item_id, lang, desired.note, state.version))
    elif desired.status is Status.DISCARDED and state.status is not Status.DISCARDED:
        if state.status is Status.DISCUSS:
            step(
                "resolve",
                lambda: service.resolve(item_id, lang, Status.DISCARDED, comment, state.version, desired.reason),
            )
        else:
            step("discard", lambda: service.discard(item_id, lang, desired.reason, desired.note, state.version))
    elif desired.status in _OPEN_STATUSES and state.status is Status.DISCUSS:
        raise workflow.WorkflowError(
            f"{item_id} [{lang}] is DISCUSS: a lead resolves it to done or discarded; it cannot go back to "
            f"{desired.status.value}"
        )
    return tuple(actions)


def import_sheet(service: CurationService, path: Path | str, lang: str | None = None) -> SheetImportReport:
    """Apply the edited sheet at ``path`` as ``service.user``'s edits; raise ``SheetImportError`` listing every
    bad row (nothing applied), or return what changed."""
    path = Path(path)
    project = service.project
    limits = project_limits(project)
    workbook = open_workbook(path, limits)
    recorded = workbook.language if workbook else None
    if lang and recorded and lang.upper() != recorded:
        raise UserError(f"{path.name} is the {recorded} sheet, not {lang.upper()}.")
    # The data sheet by name: a translator may reorder the worksheets (e.g. move ``about`` to the front).
    columns, rows = read_table(path, DATA_SHEET if workbook and DATA_SHEET in workbook.sheets else None, limits)
    _check_columns(path, columns, workbook)
    lang = (lang or recorded or _rows_language(rows) or "").upper()
    if not lang:
        raise UserError(f"{path.name}: cannot tell the sheet's language; give it (--lang IT).")
    if lang not in project.settings().languages:
        raise UserError(f"{lang!r} is not a language of this project.")
    workflow.check_can_edit(service.user, lang)

    report = SheetImportReport(lang)
    problems: list[RowProblem] = ProblemLog(limits.max_problems)  # the first ones listed, the rest counted
    with project.db.write() as conn:  # the service's changes join this transaction: all rows or none
        items = {item.id: item for item in project.repo.list_items(conn)}
        states = {state.item_id: state for state in project.repo.iter_item_languages(conn, lang)}
        seen: dict[str, int] = {}
        plans = [plan for row in rows if (plan := _check_row(row, items, states, seen, lang, problems))]
        if problems:
            raise SheetImportError(path.name, problems)
        for plan in plans:
            try:
                actions = _apply(service, plan, lang)
            except (UserError, CandidateError) as error:
                problems.append(RowProblem(plan.row, "", _rule_of(error), str(error)))
                continue
            report.changed.append(RowChange(plan.row, plan.item.id, actions))
        if problems:
            raise SheetImportError(path.name, problems)
    report.unchanged = len(rows) - len(report.changed)
    return report


def _check_columns(path: Path, columns: list[str], workbook: WorkbookInfo | None) -> None:
    """The sheet must have the columns an import relies on; a sheet without ``lang`` is from before rows carried
    their language (or had the column deleted): nothing proves whose curation it is, so it is refused whole."""
    if "lang" not in columns:
        made = (
            f" (it is a format-{workbook.format_version} sheet; this annotator writes format {SHEET_FORMAT_VERSION})"
            if workbook and workbook.format_version and workbook.format_version != str(SHEET_FORMAT_VERSION)
            else ""
        )
        raise FileFormatError(
            f"{path.name}: row 1: no 'lang' column, so nothing shows which language its rows belong to{made}. "
            "Re-export the sheet ('annotator sheet export --lang XX') and redo the edits in it; nothing was applied."
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise FileFormatError(f"{path.name}: row 1: missing column(s): {', '.join(missing)}")


def _rows_language(rows: Sequence[Row]) -> str | None:
    """The language every row names, when there is exactly one (a CSV saved from a sheet, without ``--lang``)."""
    found = {_text(row.values.get("lang")).strip().upper() for row in rows if row.error is None}
    return found.pop() if len(found) == 1 and "" not in found else None


def _rule_of(error: Exception) -> str:
    """A stable rule name for a refusal from the service (permission, workflow, conflict…)."""
    name = type(error).__name__
    return {
        "PermissionDenied": "permission",
        "WorkflowError": "workflow",
        "ConflictError": "stale",
        "CandidateSetError": "candidates",
    }.get(name, getattr(error, "rule", "refused"))
