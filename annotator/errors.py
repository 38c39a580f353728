"""Errors the user must read: they carry a message that names the file, row and rule."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused action; the command line prints it and exits non-zero, nothing changed."""


class ConflictError(UserError):
    """Someone else saved this item-language first; the caller must reload and retry.

    ``current`` carries the state now in the database so the UI can show it at once.
    """

    def __init__(self, message: str, current: object = None) -> None:
        super().__init__(message)
        self.current = current


class PermissionDenied(UserError):
    """The user may not make this change (wrong language, wrong role, disabled)."""


class RowProblemsError(UserError):
    """A file had bad rows and nothing was applied; ``problems`` lists every one (row, column, rule)."""

    #: How many problems the message lists; all of them stay in ``problems``.
    SHOWN = 200

    def __init__(self, name: str, problems: list, outcome: str) -> None:
        self.name = name
        self.problems = problems
        self.outcome = outcome
        #: How many problems there were; ``problems`` may keep only the first ones (an input limit).
        self.total = max(getattr(problems, "total", 0), len(problems))
        listed = min(len(problems), self.SHOWN)
        shown = "\n".join(f"  {name}: {p}" for p in problems[:listed])
        more = f"\n  ... and {self.total - listed} more" if self.total > listed else ""
        super().__init__(f"{name}: {self.total} problem(s); {outcome}.\n{shown}{more}")


class DatabaseBusyError(UserError):
    """Another writer held the database longer than we may wait; nothing was changed, the user can try again.

    A ``UserError`` so the command line exits 2 with the message and the app shows it next to the kept input.
    """


class DatabaseUnavailableError(UserError):
    """The database did not answer (a PostgreSQL server down or restarting, a full disk under SQLite).

    ``saved`` says what became of the user's last change: False (rolled back), True (committed before the
    failure), None (the connection broke while committing: reload to see). A ``UserError``, so every place that
    shows a refused action shows this message too, never a traceback.
    """

    def __init__(self, message: str, saved: bool | None, unsaved_message: str | None = None) -> None:
        super().__init__(message)
        self.saved = saved
        #: The message for a caller that was making a change when a read failed ("your last change was not
        #: saved" rather than "nothing was changed").
        self.unsaved_message = unsaved_message or message
