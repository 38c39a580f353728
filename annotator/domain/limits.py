"""Size limits on what a user writes, chosen so that everything fits a spreadsheet cell (SPEC §7 round trip).

A spreadsheet cell holds at most 32,767 characters (Excel's limit; openpyxl silently cuts longer text), and the
round trip writes a note, or a whole GOOD/BAD set one candidate per line, into one cell. Text that does not fit
would come back cut and be applied as an edit, so the limits are enforced where text is written (the curation
service), with room to spare, and the sheet export refuses what still does not fit instead of cutting it.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotator.domain.model import CandidateEntry, ItemLanguage
from annotator.errors import UserError

#: The most characters a spreadsheet cell holds (Excel; openpyxl truncates to it).
SPREADSHEET_CELL_LIMIT = 32_767
#: DISCUSS notes, discard notes, resolution comments and thread comments: a long paragraph, not a document.
MAX_NOTE_LENGTH = 5_000
#: A GOOD or BAD set written one candidate per line (the sheet's cell): below the cell limit with room to spare.
MAX_SET_CHARS = 30_000


class LimitError(UserError):
    """A text or a candidate set is longer than the round trip can carry; ``rule`` names the limit."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def check_note(text: str, what: str = "note") -> None:
    """Refuse a note or comment longer than ``MAX_NOTE_LENGTH`` (counted as stored: trimmed)."""
    length = len(text.strip())
    if length > MAX_NOTE_LENGTH:
        raise LimitError(
            "note_too_long",
            f"The {what} has {length:,} characters; at most {MAX_NOTE_LENGTH:,} are allowed (it must fit a "
            "spreadsheet cell). Shorten it.",
        )


def set_chars(entries: Sequence[CandidateEntry]) -> int:
    """Characters of a candidate set as the sheet writes it: canonical forms, one per line."""
    return sum(len(entry.format()) for entry in entries) + max(0, len(entries) - 1)


def check_set(label: str, new: Sequence[CandidateEntry], old: Sequence[CandidateEntry] = ()) -> None:
    """Refuse a set that grows past ``MAX_SET_CHARS``; shrinking an oversized (pre-populated) set stays allowed."""
    size = set_chars(new)
    if size > MAX_SET_CHARS and size > set_chars(old):
        raise LimitError(
            "set_too_long",
            f"{label} would take {size:,} characters ({len(new)} candidates, one per line); at most "
            f"{MAX_SET_CHARS:,} fit a spreadsheet cell. Remove candidates before adding more.",
        )


def check_item_language(new: ItemLanguage, old: ItemLanguage) -> None:
    """Every limit on a changed item-language: its two sets and its notes (only where they changed)."""
    check_set("GOOD", new.good, old.good)
    check_set("BAD", new.bad, old.bad)
    if new.discuss_note != old.discuss_note:
        check_note(new.discuss_note, "DISCUSS note")
    if new.discard_note != old.discard_note:
        check_note(new.discard_note, "discard note")
