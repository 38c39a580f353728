"""Every file the evaluation reads is read here, within the input limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annotator.data_import.limits import InputLimits, parse_json
from annotator.errors import UserError


def split_lines(text: str) -> list[str]:
    """Split on newlines only: ``str.splitlines`` would also cut at U+2028, which JSON strings may hold raw."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def read_text(path: Path, limits: InputLimits | None = None) -> str:
    """The file's text, read within the input limits (size first, then lines as they stream; UTF-16 read too);
    a missing or unreadable file is a user error naming it."""
    from annotator.data_import.limits import InputLimitError, check_file_size
    from annotator.data_import.tables import TextLines

    limits = limits or InputLimits()
    try:
        check_file_size(str(path), path.stat().st_size, limits.max_file_bytes)
        text = _plain_utf8_text(path, limits)
        if text is not None:
            return text
        with TextLines(path, limits) as lines:
            parts = []
            for line in lines:
                if lines.line > limits.max_rows + 1:
                    raise InputLimitError(
                        f"{path}: line {lines.line:,}: more than {limits.max_rows:,} lines (input limit max_rows)",
                        "too_many_rows",
                    )
                parts.append(line)
            return "".join(parts)
    except FileNotFoundError as error:
        raise UserError(f"{path}: file not found") from error
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from error


#: Bytes ``_plain_utf8_text`` reads at a time.
_BLOCK_BYTES = 1 << 20


def _plain_utf8_text(path: Path, limits: InputLimits) -> str | None:
    """The text of a plain UTF-8 file (no BOM) within every limit, read a block at a time: the text ``TextLines``
    gives line by line (it splits at newline bytes, which no UTF-8 character holds), without its per-line work
    (100,000 translation lines). None when the file is anything else or anything is in doubt — the line-by-line
    reading then decides, with its messages. A line is never held longer than ``TextLines`` would hold it: a
    block that ends inside a line that is already too long gives up."""
    from annotator.data_import.tables import sniff_encoding

    longest = limits.max_line_chars  # every line below is one character short of TextLines' (its newline)
    parts: list[str] = []
    lines = 0
    size = 0
    with path.open("rb") as handle:
        carry = handle.read(4096)
        try:
            if sniff_encoding(path.name, carry).codec != "utf-8":  # a BOM or UTF-16
                return None
        except UserError:  # a binary file: refused by TextLines
            return None
        size = len(carry)
        while True:
            block = handle.read(_BLOCK_BYTES)
            size += len(block)
            if size > limits.max_file_bytes:  # it grew since its size was checked
                return None
            data = carry + block
            end = data.rfind(b"\n") + 1 if block else len(data)
            whole, carry = data[:end], data[end:]
            if len(carry) >= longest:
                return None
            if whole:
                split = whole.split(b"\n")
                # bytes ≥ characters: a line shorter than the limit in bytes is within it in characters
                if max(map(len, split)) >= longest:
                    return None
                lines += len(split) - (1 if whole.endswith(b"\n") else 0)
                if lines > limits.max_rows:
                    return None
                try:
                    parts.append(whole.decode("utf-8"))
                except UnicodeDecodeError:
                    return None
            if not block:
                return "".join(parts)


def read_analysed(path: str | Path) -> list[dict[str, Any]]:
    """The lines of an ``analysed.jsonl`` the evaluation wrote (to recompute or filter metrics later)."""
    return [parse_json(line) for line in split_lines(read_text(Path(path))) if line.strip()]
