"""Item files (SPEC §1): turn CSV/TSV/XLSX/JSONL rows into validated ``Item``s.

Validation is complete before anything is written: every bad row is reported with its number, column and
rule, so a lead fixes the file once instead of once per error.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from annotator.data_import.limits import InputLimits, ProblemLog
from annotator.data_import.table_rows import Row
from annotator.data_import.tables import load_table
from annotator.data_import.xlsx import DateCell, FormulaCell
from annotator.domain import unicode_rules
from annotator.domain.candidates import normalize_pos
from annotator.domain.model import ITEM_FIELD_MAX, TARGET_POS, Item, Target
from annotator.errors import RowProblemsError
from annotator.progress import ProgressCallback, no_progress

REQUIRED_COLUMNS = ("sentence", "lemma", "pos", "synset")
#: Accepted spellings of the optional columns.
ALIASES = {"target": ("target", "word", "target_word", "w"), "id": ("id", "item_id")}
#: A synset id: BabelNet (``bn:00057755n``) or WordNet 3.0 offset (``wn:02084071n``), with its POS letter.
SYNSET_ID = re.compile(r"(?:bn|wn):\d{8}[nvar]")
_POS_LETTER = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
#: Columns shown to people: invisible and bidi control characters in them are refused.
#: (The id has its own rules, ``id_not_printable`` among them, in ``_id_problems``.)
_TEXT_COLUMNS = ("sentence", "lemma", "source", "gloss", "domain", *ALIASES["target"])
#: The longest text each stored column holds (the gloss is ``Text``, kept readable).
COLUMN_MAX = {**ITEM_FIELD_MAX, "gloss": 5_000}
_TRUE = {"true", "yes", "y", "1", "x"}
#: Every column the reader uses: a JSON object or list in one of them is not a value (other keys are ignored).
_KNOWN_COLUMNS = frozenset({*REQUIRED_COLUMNS, *ALIASES["target"], *ALIASES["id"], "start", "end", "source", "gloss",
                            "partial_word"})  # fmt: skip
#: Control characters (C0 and C1, but not tab, line feed or carriage return, which are whitespace in a cell): a BEL
#: or ESC in a sentence is invisible on the page and rings or recolours a translator's terminal.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: The largest whole number accepted as an id: spreadsheets keep 15 significant digits, so a longer number has
#: already lost its last digits by the time it reaches us (12345678901234567890 → 12345678901234567000).
_MAX_NUMBER_ID = 10**15 - 1


@dataclass(frozen=True)
class RowProblem:
    row: int
    column: str
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"row {self.row}" + (f", column '{self.column}'" if self.column else "")
        return f"{where}: {self.message} [{self.rule}]"


class ItemImportError(RowProblemsError):
    """The file has bad rows; nothing was imported. ``problems`` lists every one."""

    def __init__(self, path: Path, problems: list[RowProblem]) -> None:
        self.path = path
        super().__init__(path.name, problems, "nothing was imported")


class ItemColumns(NamedTuple):
    """An item as the values of the ``items`` columns a file gives, from reading to writing: one object of strings
    and numbers per item, rather than an ``Item`` and its ``Target`` (an import holds every item of its file)."""

    id: str
    sentence: str
    target_text: str
    target_start: int
    target_end: int
    lemma: str
    pos: str
    synset: str
    source: str
    gloss: str
    domain: str


def item_columns(item: Item) -> ItemColumns:
    t = item.target
    return ItemColumns(item.id, item.sentence, t.text, t.start, t.end, t.lemma, t.pos, item.synset, item.source,
                       item.gloss, item.domain)  # fmt: skip


def item_from_columns(values: ItemColumns) -> Item:
    return Item(
        id=values.id,
        sentence=values.sentence,
        target=Target(values.target_text, values.target_start, values.target_end, values.lemma, values.pos),
        synset=values.synset,
        source=values.source,
        gloss=values.gloss,
        domain=values.domain,
    )


@dataclass
class ParsedItems:
    """The valid items of a file (as ``ItemColumns``, see there why) and the warnings on its rows."""

    records: list[ItemColumns]
    warnings: list[RowProblem] = field(default_factory=list)

    @property
    def items(self) -> list[Item]:
        return [item_from_columns(values) for values in self.records]


def content_hash(item: Item | ItemColumns) -> str:
    """What an item *is*: re-importing the same content is a no-op, a change is detected."""
    v = item if isinstance(item, ItemColumns) else item_columns(item)
    raw = "\x1f".join([v.sentence, str(v.target_start), str(v.target_end), v.lemma, v.pos, v.synset, v.source])
    if v.domain:  # optional: items without one keep the hash they always had
        raw += "\x1fdomain=" + v.domain
    return hashlib.sha256(raw.encode()).hexdigest()


def derived_id(sentence: str, start: int, end: int, lemma: str, pos: str, synset: str) -> str:
    """A stable id from content, for files without ids: same row, same id, on every machine."""
    raw = "\x1f".join([sentence, str(start), str(end), lemma, pos, synset])
    return "item-" + hashlib.sha1(raw.encode()).hexdigest()[:12]


def _text(value: Any) -> str:
    if type(value) is str:  # nearly every cell: the checks below are for numbers and empty cells
        return unicodedata.normalize("NFC", value).strip()
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return unicodedata.normalize("NFC", str(value)).strip()


def _pick(values: dict[str, Any], name: str) -> Any:
    for alias in ALIASES.get(name, (name,)):
        if alias in values and _text(values[alias]) != "":
            return values[alias]
    return None


@functools.lru_cache(maxsize=16_384)
def _word_pattern(word: str) -> re.Pattern[str]:
    """Compiled once per target word: ``re``'s own cache (512 patterns) thrashes on files with thousands of words."""
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", re.IGNORECASE)


def _find_word(sentence: str, word: str) -> list[int]:
    """Where ``word`` occurs as a whole word, ignoring case (the pattern of ``_word_pattern``, its matches' starts).

    ASCII text, most files, is searched without compiling a pattern per word: there ``lower`` keeps every offset,
    and a word character (``_is_word_char``) is a letter, digit or ``_``, as for ``\\w`` (a file of thousands of
    words would otherwise compile a pattern per word, and keep them all for the garbage collector to walk)."""
    if not (sentence.isascii() and word.isascii()):
        return [m.start() for m in _word_pattern(word).finditer(sentence)]
    text, wanted, size = sentence.lower(), word.lower(), len(word)
    found: list[int] = []
    at = text.find(wanted)
    while at >= 0:
        end = at + size
        if (at == 0 or not _is_word_char(text[at - 1])) and (end == len(text) or not _is_word_char(text[end])):
            found.append(at)
            at = text.find(wanted, end)  # matches do not overlap
        else:
            at = text.find(wanted, at + 1)
    return found


def carry_span(raw: str, start: int, end: int, normalised: str) -> tuple[int, int] | None:
    """Move a span of the sentence as given onto the stored (NFC, whitespace-collapsed) sentence.

    Offsets name a position in the user's text; the k-th occurrence of the target there is the k-th
    occurrence of its normalised form in the stored text, which survives collapsed spaces and NFC.
    """
    target_raw = raw[start:end]
    target = " ".join(unicodedata.normalize("NFC", target_raw).split())
    occurrence, position = 0, raw.find(target_raw)
    while 0 <= position < start:
        occurrence += 1
        position = raw.find(target_raw, position + 1)
    found = -1
    for _ in range(occurrence + 1):
        found = normalised.find(target, found + 1)
        if found < 0:
            return None
    return found, found + len(target)


def _parse_offsets(values: dict[str, Any], row: int, problems: list[RowProblem]) -> tuple[int, int] | None:
    start_raw, end_raw = _text(values.get("start")), _text(values.get("end"))
    if not start_raw and not end_raw:
        return None
    try:
        return int(start_raw), int(end_raw)
    except ValueError:
        problems.append(
            RowProblem(row, "start", "bad_offsets", f"start/end must be whole numbers, got {start_raw!r}/{end_raw!r}")
        )
        return None


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_" or unicodedata.category(char).startswith("M")


def _whole_word(sentence: str, start: int, end: int) -> str:
    while start > 0 and _is_word_char(sentence[start - 1]):
        start -= 1
    while end < len(sentence) and _is_word_char(sentence[end]):
        end += 1
    return sentence[start:end]


def cuts_a_word(sentence: str, start: int, end: int) -> bool:
    """True when the span starts or ends inside a word (``sentence[13:16]`` = "hot" in "shot")."""
    inside_start = 0 < start < len(sentence) and _is_word_char(sentence[start - 1]) and _is_word_char(sentence[start])
    inside_end = 0 < end < len(sentence) and _is_word_char(sentence[end - 1]) and _is_word_char(sentence[end])
    return inside_start or inside_end


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, int | float) and value == 1) or _text(value).lower() in _TRUE


def check_id(raw: Any, row: int) -> list[RowProblem]:
    """Id rules: printable, no leading/trailing space, no control characters, not a file path, at most
    200 characters. Each broken rule is its own problem, so the lead sees every reason at once."""
    if not isinstance(raw, str):
        if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= _MAX_NUMBER_ID:
            raw = str(raw)  # a whole number is its digits, like the same id written as text
        else:
            return [RowProblem(row, "id", "id_not_text", _not_text_id(raw))]
    text = unicodedata.normalize("NFC", raw)
    common = text.isprintable() and text == text.strip() and 0 < len(text) <= COLUMN_MAX["id"]
    if common and "/" not in text and "\\" not in text and text not in (".", ".."):
        return []  # the common id: every rule holds (C-speed checks only)
    found: list[RowProblem] = []

    def problem(rule: str, message: str) -> None:
        found.append(RowProblem(row, "id", rule, message))

    if not text.strip():
        problem("id_blank", "the id is only spaces; leave it empty to derive one, or give a real id")
        return found
    if text != text.strip():
        problem("id_space", f"id {text!r} starts or ends with a space")
    controls = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc"})
    if controls:
        problem("id_control_character", f"id {text!r} holds control character(s) {', '.join(controls)}")
    hidden = sorted({f"U+{ord(c):04X}" for c in text if not c.isprintable() and unicodedata.category(c) != "Cc"})
    if hidden:
        problem("id_not_printable", f"id {text!r} holds invisible character(s) {', '.join(hidden)}")
    if "/" in text or "\\" in text or text.strip() in (".", ".."):
        problem("id_path", f"id {text!r} reads as a file path: ids may not hold '/' or '\\'")
    if len(text) > COLUMN_MAX["id"]:
        problem("id_too_long", f"the id has {len(text):,} characters, more than {COLUMN_MAX['id']}")
    return found


def _not_text_id(raw: Any) -> str:
    if isinstance(raw, DateCell):
        return (
            f"the id cell is an Excel date ({raw.shown}, stored as the number {raw.serial:g}); format the column "
            "as Text and type the id again"
        )
    if isinstance(raw, bool):
        kind = "true/false"
    elif isinstance(raw, int):
        kind = "a number too long to keep exactly" if raw > 0 else "a negative number"
    elif isinstance(raw, float):
        kind = "a number with a fraction or exponent"
    elif isinstance(raw, dict | list):
        kind = "a JSON object or list"
    else:
        kind = type(raw).__name__
    shown = repr(raw) if len(repr(raw)) <= 60 else repr(raw)[:57] + "..."
    return f'the id {shown} is {kind}, not text; write ids as text (in JSON, in quotes: "007")'


def id_key(item_id: str) -> str:
    """What two ids must not share: case-insensitive, and an id of plain digits by its number, because a
    spreadsheet turns ``007`` into ``7`` when it opens a sheet (``7`` and ``007`` are refused as confusable)."""
    if item_id.isascii() and item_id.isdigit():
        return item_id.lstrip("0") or "0"
    return item_id.casefold()


def _cell_problems(values: dict[str, Any], n: int) -> list[RowProblem]:
    """Formulas, dates and JSON objects where a value belongs, each named by its column."""
    found = []
    for column, value in values.items():
        if isinstance(value, FormulaCell):
            cached = "" if value.cached is None else f" (last computed as {str(value.cached)[:60]!r})"
            found.append(
                RowProblem(
                    n,
                    column,
                    "formula_cell",
                    f"the cell holds the formula {value.formula[:80]!r}{cached}; items are values: copy the column "
                    "and paste it back as values (Paste Special → Values)",
                )
            )
        elif isinstance(value, DateCell):
            if column not in ALIASES["id"]:  # the id's own rule names it
                found.append(
                    RowProblem(
                        n,
                        column,
                        "date_cell",
                        f"the cell is an Excel date ({value.shown}, stored as the number {value.serial:g}); format "
                        "the column as Text and type the value again",
                    )
                )
        elif isinstance(value, dict | list) and column in _KNOWN_COLUMNS and column not in ALIASES["id"]:
            found.append(RowProblem(n, column, "not_text", f"'{column}' is a JSON object or list, not a value"))
    return found


def _control_problems(values: dict[str, Any], n: int) -> list[RowProblem]:
    found = []
    for column in _TEXT_COLUMNS:
        value = values.get(column)
        if isinstance(value, str):
            hit = _CONTROL.search(value)
            if hit:
                found.append(
                    RowProblem(
                        n,
                        column,
                        "control_character",
                        f"'{column}' holds the control character U+{ord(hit.group()):04X} at position {hit.start()}; "
                        "remove it (only tab and line breaks are allowed, as spaces)",
                    )
                )
    return found


def _check_lengths(values: dict[str, Any], n: int, limits: InputLimits, problems: list[RowProblem]) -> None:
    raw_sentence = values.get("sentence")
    sentence = raw_sentence if isinstance(raw_sentence, str) else _text(raw_sentence)
    if len(" ".join(sentence.split())) > limits.max_sentence_chars:
        problems.append(
            RowProblem(
                n,
                "sentence",
                "sentence_too_long",
                f"the sentence has {len(sentence):,} characters, more than {limits.max_sentence_chars:,} "
                "(input limit max_sentence_chars)",
            )
        )
    for column, most in COLUMN_MAX.items():
        if column == "id":
            continue
        value = _pick(values, column)
        if value is None or (isinstance(value, str) and 3 * len(value) <= most):
            continue  # NFC makes a text at most 3 times longer: a short one needs no normalising to be measured
        length = len(_text(value))
        if length > most:
            problems.append(
                RowProblem(n, column, "too_long", f"'{column}' has {length:,} characters, more than {most:,}")
            )


def parse_row(
    row: Row, problems: list[RowProblem], warnings: list[RowProblem], limits: InputLimits | None = None
) -> Item | None:
    """One row to an ``Item``, or None with its problems appended (each named by row, column and rule)."""
    columns = row_columns(row, problems, warnings, limits)
    return None if columns is None else item_from_columns(columns)


def row_columns(
    row: Row, problems: list[RowProblem], warnings: list[RowProblem], limits: InputLimits | None = None
) -> ItemColumns | None:
    """``parse_row`` with the item as its columns' values."""
    mine: list[RowProblem] = []
    columns = _parse_row(row, mine, warnings, limits or InputLimits())
    problems.extend(mine)
    return None if mine else columns


def _parse_row(
    row: Row, problems: list[RowProblem], warnings: list[RowProblem], limits: InputLimits
) -> ItemColumns | None:
    values = row.values
    n = row.number
    if row.error is not None:
        problems.append(RowProblem(n, "", row.error.rule, row.error.message))
        return None
    problems.extend(_cell_problems(values, n))
    if problems:
        return None
    _check_lengths(values, n, limits, problems)
    if problems:
        return None
    raw_id = next((values[a] for a in ALIASES["id"] if a in values and values[a] not in (None, "")), None)
    if raw_id is not None:
        problems.extend(check_id(raw_id, n))
    before = len(problems)
    problems.extend(_control_problems(values, n))
    for column in REQUIRED_COLUMNS:
        if not _text(values.get(column)):
            problems.append(RowProblem(n, column, "missing_value", f"'{column}' is empty or missing"))
    for column, message in unicode_rules.field_problems(values, _TEXT_COLUMNS):  # hidden or reordered text
        problems.append(RowProblem(n, column, unicode_rules.INVISIBLE_RULE, message))
    sentence = " ".join(_text(values.get("sentence")).split())
    lemma = _text(values.get("lemma"))
    pos_raw = _text(values.get("pos"))
    synset = _text(values.get("synset"))
    pos = normalize_pos(pos_raw) if pos_raw else None
    if pos_raw and pos not in TARGET_POS:
        problems.append(
            RowProblem(n, "pos", "bad_pos", f"part of speech {pos_raw!r} is not NOUN, VERB, ADJ, ADV (or n, v, a, r)")
        )
    if synset and not SYNSET_ID.fullmatch(synset):
        shown = repr(synset) if len(synset) <= 60 else repr(synset[:57]) + "..."
        problems.append(
            RowProblem(
                n,
                "synset",
                "bad_synset",
                f"{shown} is not a synset id: 'bn:' (BabelNet) or 'wn:' (WordNet), 8 digits, then n, v, a or r "
                "(bn:00057755n)",
            )
        )
    elif synset and pos in _POS_LETTER and synset[-1] != _POS_LETTER[pos]:
        problems.append(RowProblem(n, "synset", "pos_mismatch", f"synset {synset} does not match part of speech {pos}"))

    word = _text(_pick(values, "target"))
    offsets = _parse_offsets(values, n, problems)
    start = end = -1
    if sentence:
        if offsets is not None:
            start, end = offsets
            raw = values.get("sentence")
            raw = raw if isinstance(raw, str) else _text(raw)
            given = raw[start:end] if 0 <= start < end <= len(raw) else ""
            if start >= end:
                problems.append(
                    RowProblem(
                        n,
                        "start",
                        "bad_offsets",
                        f"start {start} is {'after' if start > end else 'the same as'} end {end}: start is the "
                        "target's first character, end the one just after it (start < end)",
                    )
                )
            elif start < 0 or end > len(raw):
                problems.append(
                    RowProblem(
                        n,
                        "start",
                        "bad_offsets",
                        f"offsets {start}-{end} are outside the sentence (0-{len(raw)}, its length in characters)",
                    )
                )
            elif not given.strip():
                problems.append(
                    RowProblem(n, "start", "bad_offsets", f"sentence[{start}:{end}] is only spaces, not a word")
                )
            elif word and _text(given) != word:
                problems.append(
                    RowProblem(
                        n,
                        "target",
                        "target_mismatch",
                        f"sentence[{start}:{end}] is {given!r}, not the target {word!r}",
                    )
                )
            else:
                carried = carry_span(raw, start, end, sentence)
                if carried is None:
                    message = f"offsets {start}-{end} do not survive whitespace/Unicode normalisation of the sentence"
                    problems.append(RowProblem(n, "start", "bad_offsets", message))
                else:
                    given_start, given_end = start, end
                    start, end = carried
                    word = sentence[start:end]
                    if cuts_a_word(sentence, start, end) and not _truthy(values.get("partial_word")):
                        whole = _whole_word(sentence, start, end)
                        problems.append(
                            RowProblem(
                                n,
                                "start",
                                "partial_word",
                                f"sentence[{given_start}:{given_end}] is {word!r}, part of the word {whole!r}; give "
                                "the whole word's offsets, or set the column partial_word to true if a part is meant",
                            )
                        )
        elif word:
            found = _find_word(sentence, word)
            if not found:
                problems.append(
                    RowProblem(n, "target", "target_not_in_sentence", f"target {word!r} does not occur in the sentence")
                )
            else:
                start, end = found[0], found[0] + len(word)
                word = sentence[start:end]
                if len(found) > 1:
                    warnings.append(
                        RowProblem(
                            n,
                            "target",
                            "ambiguous_target",
                            f"{word!r} occurs {len(found)} times; the first (offset {start}) was taken — "
                            "give start/end to choose another",
                        )
                    )
        else:
            problems.append(RowProblem(n, "target", "missing_value", "give the target word or its start/end offsets"))
    if len(problems) > before or pos is None:
        return None
    item_id = _text(_pick(values, "id")) or derived_id(sentence, start, end, lemma, pos, synset)
    return ItemColumns(item_id, sentence, word, start, end, lemma, pos, synset, _text(values.get("source")),
                       _text(values.get("gloss")), _text(values.get("domain")))  # fmt: skip


def _same_id(item_id: str, other: str) -> str:
    if other == item_id:
        return "was already used"
    if item_id.casefold() == other.casefold():
        return f"differs only by case from {other!r}"
    return f"is the number of {other!r} with other leading zeros (spreadsheets drop them, so the two would merge)"


#: Rows validated between two progress reports while a file is read.
PROGRESS_ROWS = 1000


def parse_item_file(
    path: Path | str,
    limits: InputLimits | None = None,
    known_ids: Iterable[str] = (),
    progress: ProgressCallback = no_progress,
) -> ParsedItems:
    """Validate a whole file within ``limits``; raise ``ItemImportError`` listing the bad rows (the first
    ``max_problems``, then a count), or return the items. ``known_ids`` are the project's items: a new id that
    differs from one of them only by case is refused (ids are unique case-insensitively).

    ``progress`` hears of the reading and of every ``PROGRESS_ROWS`` rows validated: reading a large file is
    seconds of an import job, which showed nothing until the writing began."""
    path = Path(path)
    limits = limits or InputLimits()
    progress(0, 0, "reading the file")
    table = load_table(path, limits=limits, typed_cells=True)
    columns, rows = table.columns, table.rows
    problems = ProblemLog(limits.max_problems)
    warnings: list[RowProblem] = [RowProblem(1, "", "file_read_as", note) for note in table.notes]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    has_target = any(a in columns for a in ALIASES["target"]) or {"start", "end"} <= set(columns)
    if path.suffix.lower() not in (".jsonl", ".ndjson") and (missing or not has_target):
        names = ", ".join(missing + ([] if has_target else ["target (or start/end)"]))
        hint = ""
        if len(columns) == 1 and any(sep in columns[0] for sep in (";", "\t", ",")):
            hint = " (the header is one column: is the separator right?)"
        raise ItemImportError(path, [RowProblem(1, "", "missing_column", f"missing column(s): {names}{hint}")])
    existing = {id_key(known): known for known in known_ids}
    items: list[ItemColumns] = []
    seen: dict[str, tuple[str, int]] = {}
    total = len(rows)
    for number, row in enumerate(rows, start=1):
        if number % PROGRESS_ROWS == 0 or number == total:
            progress(number, total, "reading")
        item = row_columns(row, problems, warnings, limits)
        if item is None:
            continue
        folded = id_key(item.id)
        if folded in seen:
            first_id, first_row = seen[folded]
            message = f"id {item.id!r} {_same_id(item.id, first_id)} in row {first_row}"
            problems.append(RowProblem(row.number, "id", "duplicate_id", message))
            continue
        other = existing.get(folded)
        if other is not None and other != item.id:
            problems.append(
                RowProblem(
                    row.number,
                    "id",
                    "duplicate_id",
                    f"id {item.id!r} {_same_id(item.id, other)} (the item already in the project)",
                )
            )
            continue
        seen[folded] = (item.id, row.number)
        items.append(item)
    if problems.total:
        raise ItemImportError(path, problems)
    return ParsedItems(items, warnings)
