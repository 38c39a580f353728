"""A lexicon snapshot file's bytes, looked at before it is parsed: which form it is (a JSONL header first), its
encoding, and no string longer than the input limits allow (refused without reading the file whole)."""

from __future__ import annotations

from pathlib import Path

from annotator.data_import.limits import InputLimits, JsonTooDeepError, json_too_deep, parse_json
from annotator.lexicon.base import LexiconError


def _is_header_line(line: str) -> bool:
    try:
        first = parse_json(line)
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("type") == "header"


def starts_with_header(path: Path) -> bool:
    """Whether the first non-empty line is a JSONL header (looking at the first 64 KB only)."""
    from annotator.data_import.tables import sniff_encoding

    with path.open("rb") as handle:
        head = handle.read(65536)
    text = head.decode(sniff_encoding(path.name, head).codec, errors="ignore")
    first = next((line for line in text.splitlines() if line.strip()), "")
    return _is_header_line(first)


def check_string_runs(path: Path, limits: InputLimits) -> None:
    """Refuse a JSON snapshot holding an over-long string before parsing it: a run of bytes with no quote longer
    than the longest string allowed can only be such a string (a byte scan, so a 90 MB gloss costs no memory)."""
    from annotator.data_import.limits import InputLimitError

    most = 4 * limits.max_cell_chars + 1_024
    if _quote_in_every_window(path, most // 2):
        return
    run = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            last = chunk.rfind(b'"')
            if last < 0:
                run += len(chunk)
            else:
                first = chunk.find(b'"')
                longest = max(map(len, chunk[first + 1 : last].split(b'"')), default=0)
                run = most + 1 if max(run + first, longest) > most else len(chunk) - last - 1
            if run > most:
                if json_too_deep(chunk.decode("utf-8", "ignore")):  # brackets, not a string, ran that long
                    raise LexiconError(f"{path}: top level: the JSON is {JsonTooDeepError().reason} [too_deep]")
                raise InputLimitError(
                    f"{path}: a string of more than {limits.max_cell_chars:,} characters (input limit "
                    "max_cell_chars); nothing was read.",
                    "cell_too_long",
                )


def _quote_in_every_window(path: Path, width: int) -> bool:
    """Whether every whole ``width``-byte window of the file, at offsets that are multiples of ``width``, holds a
    quote. Then no run without a quote reaches ``2 * width`` bytes (such a run covers a whole window): one ``find``
    per window, so a well-formed file is cleared without splitting it into its strings."""
    with path.open("rb") as handle:
        while chunk := handle.read(width * 16):
            for start in range(0, len(chunk) - width + 1, width):
                if chunk.find(b'"', start, start + width) < 0:
                    return False
    return True


def encoding_of(path: Path) -> str:
    """The text encoding of a JSON snapshot, from its first bytes."""
    from annotator.data_import.tables import sniff_encoding

    with path.open("rb") as handle:
        return sniff_encoding(path.name, handle.read(4096)).codec
