"""Characters that hide or reorder text: refused in candidates and item text, escaped on the terminal.

Zero-width characters, the soft hyphen, the BOM, bidirectional controls and tag characters (Unicode category
Cf, "format") are invisible: ``goc\u200bcio`` looks like ``goccio`` but never matches a translation, and a
U+202E in a sentence shows the rest of it reversed. A few letters that render as nothing (Hangul fillers, the
combining grapheme joiner) are treated the same. Pure functions over strings, shared by the candidate rules,
the item reader and the command line's output.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

#: The rule name every refusal of these characters carries.
INVISIBLE_RULE = "invisible_character"

#: Bidirectional controls: marks (LRM, RLM, ALM), embeddings/overrides (U+202A–202E), isolates (U+2066–2069).
BIDI_CONTROLS = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
#: Tag characters (U+E0000–E007F): invisible ASCII look-alikes, used to smuggle text.
TAG_RANGE = range(0xE0000, 0xE0080)
#: Not category Cf, but render as nothing: combining grapheme joiner, Hangul and Khmer fillers.
_BLANK_LETTERS = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0})
#: Everything outside printable ASCII: only these characters need a closer (per-character) look.
_NOT_PLAIN = re.compile(r"[^\x20-\x7e]")


def is_invisible(char: str) -> bool:
    """Does ``char`` hide or reorder text (category Cf, a tag character, or a blank letter)?"""
    code = ord(char)
    return unicodedata.category(char) == "Cf" or code in TAG_RANGE or code in _BLANK_LETTERS


def describe(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control)``: the code point a message names."""
    code = ord(char)
    name = unicodedata.name(char, "unnamed character")
    kind = " (a bidirectional control)" if code in BIDI_CONTROLS else " (a tag character)" if code in TAG_RANGE else ""
    return f"U+{code:04X} {name}{kind}"


def find_invisible(text: str) -> tuple[int, str] | None:
    """(0-based index, character) of the first invisible character in ``text``, or None."""
    for match in _NOT_PLAIN.finditer(text):
        if is_invisible(match.group()):
            return match.start(), match.group()
    return None


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


def _needs_escape(char: str, keep: str) -> bool:
    if char in keep:
        return False
    return unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") or is_invisible(char)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape_controls(text: str, keep: str = "\n") -> str:
    """``text`` with control, invisible, bidi and surrogate characters as visible escapes (``\\x1b``,
    ``\\u202e``): what a terminal shows can then neither run escape sequences nor be reordered or hidden."""

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        return _escape(char) if _needs_escape(char, keep) else char

    return _NOT_PLAIN.sub(replace, text)
