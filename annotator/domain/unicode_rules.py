"""Characters that hide or reorder text: refused in candidates and item text, escaped on the terminal.

Zero-width characters, the soft hyphen, the BOM, bidirectional controls and tag characters (Unicode category
Cf, "format") are invisible: ``goc\u200bcio`` looks like ``goccio`` but never matches a translation, and a
U+202E in a sentence shows the rest of it reversed. A few letters that render as nothing (Hangul fillers, the
combining grapheme joiner) are treated the same. Pure functions over strings, shared by the candidate rules,
the item reader and the command line's output.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from annotator.errors import UserError

#: The rule name every refusal of these characters carries.
INVISIBLE_RULE = "invisible_character"

#: Bidirectional controls: marks (LRM, RLM, ALM), embeddings/overrides (U+202A–202E), isolates (U+2066–2069).
BIDI_CONTROLS = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
#: Tag characters (U+E0000–E007F): invisible ASCII look-alikes, used to smuggle text.
TAG_RANGE = range(0xE0000, 0xE0080)
#: Every code point of category Cf up to Unicode 15.1, the tag block, and letters that render as nothing
#: (combining grapheme joiner, Hangul and Khmer fillers). A fixed list so the check is one regex search (item
#: files run it on every row); a test checks it still covers all of Cf in the running Python.
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x3164, 0x3164),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F),
)


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)


_INVISIBLE = re.compile(f"[{_char_class(INVISIBLE_RANGES)}]")
#: C0 and C1 controls, DEL, line/paragraph separators, surrogates: what a terminal must never receive raw.
_CONTROL_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029), (0xD800, 0xDFFF))


def describe(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control)``: the code point a message names."""
    code = ord(char)
    name = unicodedata.name(char, "unnamed character")
    kind = " (a bidirectional control)" if code in BIDI_CONTROLS else " (a tag character)" if code in TAG_RANGE else ""
    return f"U+{code:04X} {name}{kind}"


def find_invisible(text: str) -> tuple[int, str] | None:
    """(0-based index, character) of the first invisible character in ``text``, or None."""
    match = _INVISIBLE.search(text)
    return (match.start(), match.group()) if match else None


def invisible_message(text: str, found: tuple[int, str]) -> str:
    index, char = found
    return (
        f"{describe(char)} at character {index + 1}: invisible and bidirectional control characters are not allowed "
        "(they hide or reorder text); remove it"
    )


def field_problems(values: Mapping[str, Any], columns: Iterable[str]) -> list[tuple[str, str]]:
    """(column, message) for each of ``columns`` whose text holds an invisible character (item file rows)."""
    problems = []
    for column in columns:
        value = values.get(column)
        if isinstance(value, str) and (found := find_invisible(value)):
            problems.append((column, invisible_message(value, found)))
    return problems


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


@functools.cache
def _escaped_characters(keep: str) -> re.Pattern[str]:
    """Controls, surrogates and invisible characters, except those in ``keep`` (one regex per ``keep``)."""
    ranges = [*_CONTROL_RANGES, *INVISIBLE_RANGES]
    kept = {ord(char) for char in keep}
    split: list[tuple[int, int]] = []
    for low, high in ranges:
        start = low
        for code in sorted(c for c in kept if low <= c <= high):
            if start <= code - 1:
                split.append((start, code - 1))
            start = code + 1
        if start <= high:
            split.append((start, high))
    return re.compile(f"[{_char_class(split)}]")


def escape_controls(text: str, keep: str = "\n") -> str:
    """``text`` with control, invisible, bidi and surrogate characters as visible escapes (``\\x1b``,
    ``\\u202e``): what a terminal shows can then neither run escape sequences nor be reordered or hidden."""
    return _escaped_characters(keep).sub(_escape, text)


# --- text a database cannot store --------------------------------------------------------------------------------

#: The rule name of a refused unstorable character.
UNSTORABLE_RULE = "unstorable_character"
#: NUL (PostgreSQL refuses it in text), lone surrogate halves (not characters: UTF-8 cannot encode them, so SQLite's
#: driver and every file writer fail on them) and the 66 Unicode noncharacters (never valid in interchanged text).
UNSTORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0000),
    (0xD800, 0xDFFF),
    (0xFDD0, 0xFDEF),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)),
)
#: The ranges' Basic Multilingual Plane part as one character class; the astral noncharacters (U+1FFFE …) are
#: looked for among the astral characters only, several times faster than one class of all the ranges (ASCII text: a
#: plain ``find`` of NUL).
_UNSTORABLE_BMP = re.compile(f"[{_char_class(r for r in UNSTORABLE_RANGES if r[1] <= 0xFFFF)}]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class UnstorableTextError(UserError):
    """Text that cannot be stored, refused before it reaches the database; ``field`` names where it was typed."""

    rule = UNSTORABLE_RULE

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def find_unstorable(text: str) -> tuple[int, str] | None:
    """(0-based index, character) of the first character no database or file can hold, or None."""
    if text.isascii():
        index = text.find("\x00")
        return (index, "\x00") if index >= 0 else None
    match = _UNSTORABLE_BMP.search(text)
    for astral in _ASTRAL.finditer(text, 0, match.start() if match else len(text)):
        if ord(astral.group()) & 0xFFFE == 0xFFFE:  # U+nFFFE and U+nFFFF of every plane
            return astral.start(), astral.group()
    return (match.start(), match.group()) if match else None


def _what(char: str) -> str:
    code = ord(char)
    if code == 0:
        return "U+0000 NULL (a control character)"
    if 0xD800 <= code <= 0xDFFF:
        return f"U+{code:04X} (half of a surrogate pair, not a character on its own)"
    return f"U+{code:04X} (a Unicode noncharacter)"


def check_storable(field: str, text: str) -> None:
    """Refuse ``text`` holding a character that cannot be stored, naming ``field`` (what the person calls the box:
    "comment", "search") and the character; raises ``UnstorableTextError``. Both engines refuse the same."""
    found = find_unstorable(text)
    if found is not None:
        index, char = found
        raise UnstorableTextError(
            field,
            f"The {field} holds {_what(char)} at character {index + 1}, which the database cannot take; remove it. "
            "Nothing was changed.",
        )


def check_storable_lines(label: str, lines: Iterable[str]) -> None:
    """``check_storable`` on each line of a list (GOOD / BAD, one per line), naming it: "GOOD candidate on line 2"."""
    for number, line in enumerate(lines, 1):
        check_storable(f"{label} on line {number}", line)
