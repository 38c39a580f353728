"""Input limits: how big a file a user may hand in, checked while it is read, never after.

One ``InputLimits`` bounds every reader (items, curation sheets, lexicon snapshots, evaluation inputs, uploads),
so a hostile or sloppy file is refused in bounded time and memory with a message naming the file and the limit.
A lead may raise or lower them per project (``annotator limits --set``; kept in the meta table under
``input_limits``); the defaults are safe and fit a 200,000-row item file.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from annotator.errors import UserError

#: The meta key under which a project keeps its own limits (a JSON object of ``InputLimits`` fields).
META_KEY = "input_limits"

MB = 1024 * 1024


@dataclass(frozen=True)
class InputLimits:
    """Limits for one file. Every count is inclusive: ``max_rows`` rows are fine, one more is refused."""

    #: Bytes on disk (uploads: Streamlit's ``server.maxUploadSize`` is set to the same 100 MB).
    max_file_mb: int = 100
    #: Data rows (spreadsheet rows, CSV records, JSONL lines), counted as they are read, empty rows included.
    max_rows: int = 200_000
    #: Columns actually used (the last non-empty cell; a workbook's declared dimension is ignored).
    max_columns: int = 50
    #: Characters in one cell / JSON value: Excel's own cell limit, so any sheet cell Excel can hold is read.
    max_cell_chars: int = 32_767
    #: Characters in one item sentence.
    max_sentence_chars: int = 2_000
    #: Problems listed in a refusal; the rest are counted.
    max_problems: int = 100
    #: Bytes of a lexicon snapshot file (a snapshot is read whole into memory, so it has its own, larger limit).
    max_snapshot_mb: int = 200

    @property
    def max_file_bytes(self) -> int:
        return self.max_file_mb * MB

    @property
    def max_snapshot_bytes(self) -> int:
        return self.max_snapshot_mb * MB

    @property
    def max_line_chars(self) -> int:
        """Longest physical line read at once: a full row of maximal cells, plus quoting."""
        return self.max_cell_chars * min(self.max_columns, 8) + 1_024

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> InputLimits:
        """Limits from a stored JSON object; unknown keys and non-positive numbers are refused, by name."""
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise UserError(f"input limits: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        for name, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise UserError(f"input limits: {name} must be a positive whole number, got {value!r}")
        return replace(cls(), **data)

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def parse_assignments(assignments: list[str], base: InputLimits) -> InputLimits:
    """``["max_rows=300000", ...]`` applied to ``base``; each name and value checked."""
    data = base.to_json()
    for assignment in assignments:
        name, sep, value = assignment.partition("=")
        if not sep or not value.strip().isdigit():
            raise UserError(f"input limits: {assignment!r} is not NAME=NUMBER (e.g. max_rows=300000)")
        data[name.strip()] = int(value.strip())
    return InputLimits.from_json(data)


class InputLimitError(UserError):
    """A file breaks an input limit; nothing was read into the project. ``rule`` names the limit."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


def megabytes(size: int) -> str:
    return f"{size / MB:,.1f} MB"


def check_file_size(name: str, size: int, limit_bytes: int, setting: str = "max_file_mb") -> None:
    """Refuse before reading a byte: the cheapest check comes first."""
    if size > limit_bytes:
        raise InputLimitError(
            f"{name}: the file is {megabytes(size)}, more than the limit of {megabytes(limit_bytes)} "
            f"(input limit {setting}); split it or ask a lead to raise the limit.",
            "file_too_large",
        )


_SURROGATE = re.compile("[\ud800-\udfff]")
#: How a lone surrogate reaches Python: a JSON ``\ud8xx``..``\udfxx`` escape (UTF-8 and UTF-16 decoding refuse them).
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPED_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def may_hold_surrogate(raw_json: str) -> bool:
    """A fast pre-check on a JSON text: only one with a surrogate escape needs ``find_surrogate`` on its value."""
    return _ESCAPED_SURROGATE.search(raw_json) is not None


def may_hold_long_string(raw_json: str, limit: int) -> bool:
    """False only when no string of a JSON text (keys included) can be longer than ``limit`` characters; C-speed, no
    copy beyond the text's. Escaped backslashes and quotes are made one character each, so the quotes left delimit the
    strings, and every other escape only makes the raw text longer than the decoded one; a run of more than ``limit``
    characters without a quote then covers a whole window of half that size. Lets a large file skip the walk over its
    parsed value."""
    if len(raw_json) <= limit:
        return False
    cleaned = raw_json.replace("\\\\", "\x00").replace('\\"', "\x00") if "\\" in raw_json else raw_json
    step = max(1, (limit + 1) // 2)
    return any(cleaned.find('"', start, start + step) < 0 for start in range(0, len(cleaned) - step + 1, step))


def may_hold_surrogate_bytes(raw_json: bytes) -> bool:
    """``may_hold_surrogate`` of a JSON text still in UTF-8 bytes."""
    return _ESCAPED_SURROGATE_BYTES.search(raw_json) is not None


def may_hold_long_bytes(raw_json: bytes, limit: int) -> bool:
    """``may_hold_long_string`` of a JSON text still in UTF-8 bytes: a character takes at least a byte, so a run of
    bytes bounds the characters it holds."""
    if len(raw_json) <= limit:
        return False
    cleaned = raw_json.replace(b"\\\\", b"\x00").replace(b'\\"', b"\x00") if b"\\" in raw_json else raw_json
    step = max(1, (limit + 1) // 2)
    return any(cleaned.find(b'"', start, start + step) < 0 for start in range(0, len(cleaned) - step + 1, step))


def lone_surrogate(text: str) -> str | None:
    """``U+D83D`` if the text holds a lone surrogate (only JSON ``\\ud83d`` escapes can smuggle one in)."""
    found = _SURROGATE.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def find_surrogate(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first (field path, code point) of a lone surrogate anywhere in a parsed JSON value, keys included."""
    if isinstance(value, str):
        code = lone_surrogate(value)
        return (path, code) if code else None
    if isinstance(value, dict):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            code = lone_surrogate(str(key))
            if code:
                return (where, code)
            found = find_surrogate(inner, where)
            if found:
                return found
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found = find_surrogate(inner, f"{path}[{index}]")
            if found:
                return found
    return None


def longest_text(value: Any) -> int:
    """The length of the longest string in a parsed JSON value (keys included)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *(max(len(str(k)), longest_text(v)) for k, v in value.items())])
    if isinstance(value, list):
        return max([0, *(longest_text(v) for v in value)])
    return 0


#: How deep a JSON value may nest. Item, dataset and snapshot records nest 5 levels at most; Python's parser and our
#: own walkers recurse per level, so a 100,000-level line must be refused before it is parsed, not by a crash.
MAX_JSON_DEPTH = 64
#: Bytes translation: brackets become parentheses (arrays and objects nest alike), quotes stay, every other byte is
#: dropped.
_BRACKETS = bytes.maketrans(b"[]{}", b"()()")
_NOT_BRACKETS_OR_QUOTES = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_PAIR = re.compile(rb"\(\)")


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the arrays and objects of a JSON text nest deeper than ``limit`` (brackets in strings don't count).

    Only C-speed string operations: the common line (few brackets) costs two counts; otherwise escapes are dropped,
    every byte but brackets and quotes is dropped, the strings are cut out (every other piece between quotes), and
    innermost bracket pairs removed once per level.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    marks = unescaped.encode("utf-8", "surrogatepass").translate(_BRACKETS, _NOT_BRACKETS_OR_QUOTES)
    brackets = b"".join(marks.split(b'"')[::2])
    for level in range(limit):
        brackets, pairs = _PAIR.subn(b"", brackets)
        if not brackets:
            return False
        if not pairs:  # unbalanced (the parser will say so): the unclosed ones would still be descended into
            return level + brackets.count(b"(") > limit
    return True


class JsonTooDeepError(json.JSONDecodeError):
    """A JSON text nested deeper than ``MAX_JSON_DEPTH``: refused unparsed. A ``JSONDecodeError``, so every reader
    that reports invalid JSON reports this too (with ``msg`` saying why)."""

    rule = "too_deep"

    def __init__(self, text: str = "") -> None:
        self.reason = f"nested deeper than {MAX_JSON_DEPTH} levels of arrays/objects"
        super().__init__(f"{self.reason} [{self.rule}]", text[:1], 0)


def parse_json(text: str) -> Any:
    """``json.loads`` that refuses (``JsonTooDeepError``) a text nested deeper than ``MAX_JSON_DEPTH``."""
    if json_too_deep(text):
        raise JsonTooDeepError(text)
    return json.loads(text)


class ProblemLog(list):
    """A list of problems that keeps the first ``limit`` and counts the rest (``total``).

    A file with a million bad rows must not build a million messages: the first ones tell the user what to fix.
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.total = 0

    def append(self, problem: Any) -> None:
        self.total += 1
        if len(self) < self.limit:
            super().append(problem)

    def extend(self, problems: Any) -> None:
        for problem in problems:
            self.append(problem)
