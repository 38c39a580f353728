"""Item files (SPEC §1, issue 2): turn CSV/TSV/XLSX/JSONL rows into validated ``Item``s.

Validation is complete before anything is written: every bad row is reported with its number, column and
rule, so a lead fixes the file once instead of once per error.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.data_import.tables import Row, read_table
from annotator.domain import unicode_rules
from annotator.domain.candidates import normalize_pos
from annotator.domain.model import TARGET_POS, Item, Target
from annotator.errors import RowProblemsError

REQUIRED_COLUMNS = ("sentence", "lemma", "pos", "synset")
#: Accepted spellings of the optional columns.
ALIASES = {"target": ("target", "word", "target_word", "w"), "id": ("id", "item_id")}
_BABELNET_ID = re.compile(r"^bn:\d{8}[nvars]$")
_POS_LETTER = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
#: Columns shown to people: invisible and bidi control characters in them are refused (issue 14 item 10).
_TEXT_COLUMNS = ("sentence", "lemma", "source", "gloss", *ALIASES["target"], *ALIASES["id"])
#: Widths of the bounded columns in the store (PostgreSQL enforces them; SQLite would not): refused at import.
MAX_LENGTHS = {"id": 200, "source": 200, "lemma": 200, "target": 200, "synset": 64}


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


@dataclass
class ParsedItems:
    items: list[Item]
    warnings: list[RowProblem] = field(default_factory=list)


def content_hash(item: Item) -> str:
    """What an item *is*: re-importing the same content is a no-op, a change is detected."""
    t = item.target
    raw = "\x1f".join([item.sentence, str(t.start), str(t.end), t.lemma, t.pos, item.synset, item.source])
    return hashlib.sha256(raw.encode()).hexdigest()


def derived_id(sentence: str, start: int, end: int, lemma: str, pos: str, synset: str) -> str:
    """A stable id from content, for files without ids: same row, same id, on every machine."""
    raw = "\x1f".join([sentence, str(start), str(end), lemma, pos, synset])
    return "item-" + hashlib.sha1(raw.encode()).hexdigest()[:12]


def _text(value: Any) -> str:
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


def _find_word(sentence: str, word: str) -> list[int]:
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", re.IGNORECASE)
    return [m.start() for m in pattern.finditer(sentence)]


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


def parse_row(row: Row, problems: list[RowProblem], warnings: list[RowProblem]) -> Item | None:
    values = row.values
    n = row.number
    if "__error__" in values:
        problems.append(RowProblem(n, "", "malformed_row", values["__error__"]))
        return None
    before = len(problems)
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
    if synset and " " in synset:
        problems.append(RowProblem(n, "synset", "bad_synset", f"synset id {synset!r} contains spaces"))
    elif synset.startswith("bn:"):
        if not _BABELNET_ID.match(synset):
            problems.append(RowProblem(n, "synset", "bad_synset", f"{synset!r} is not a BabelNet id like bn:00057755n"))
        elif pos in _POS_LETTER and synset[-1] != _POS_LETTER[pos] and not (pos == "ADJ" and synset[-1] == "s"):
            problems.append(
                RowProblem(n, "synset", "pos_mismatch", f"synset {synset} does not match part of speech {pos}")
            )

    word = _text(_pick(values, "target"))
    offsets = _parse_offsets(values, n, problems)
    start = end = -1
    if sentence:
        if offsets is not None:
            start, end = offsets
            raw = values.get("sentence")
            raw = raw if isinstance(raw, str) else _text(raw)
            given = raw[start:end] if 0 <= start < end <= len(raw) else ""
            if not given.strip():
                problems.append(
                    RowProblem(n, "start", "bad_offsets", f"offsets {start}-{end} are outside the sentence")
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
                    start, end = carried
                    word = sentence[start:end]
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
    for column, limit in MAX_LENGTHS.items():  # the store's column widths, checked here on every engine
        value = (
            word if column == "target" else _text(_pick(values, column) if column in ALIASES else values.get(column))
        )
        if len(value) > limit:
            message = f"'{column}' has {len(value)} characters; at most {limit} are allowed"
            problems.append(RowProblem(n, column, "too_long", message))
    if len(problems) > before or pos is None:
        return None
    item_id = _text(_pick(values, "id")) or derived_id(sentence, start, end, lemma, pos, synset)
    return Item(
        id=item_id,
        sentence=sentence,
        target=Target(word, start, end, lemma, pos),
        synset=synset,
        source=_text(values.get("source")),
        gloss=_text(values.get("gloss")),
    )


def parse_item_file(path: Path | str) -> ParsedItems:
    """Validate a whole file; raise ``ItemImportError`` listing every bad row, or return the items."""
    path = Path(path)
    columns, rows = read_table(path)
    problems: list[RowProblem] = []
    warnings: list[RowProblem] = []
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    has_target = any(a in columns for a in ALIASES["target"]) or {"start", "end"} <= set(columns)
    if path.suffix.lower() not in (".jsonl", ".ndjson") and (missing or not has_target):
        names = ", ".join(missing + ([] if has_target else ["target (or start/end)"]))
        raise ItemImportError(path, [RowProblem(1, "", "missing_column", f"missing column(s): {names}")])
    items: list[Item] = []
    seen: dict[str, int] = {}
    for row in rows:
        item = parse_row(row, problems, warnings)
        if item is None:
            continue
        if item.id in seen:
            problems.append(
                RowProblem(row.number, "id", "duplicate_id", f"id {item.id!r} was already used in row {seen[item.id]}")
            )
            continue
        seen[item.id] = row.number
        items.append(item)
    if problems:
        raise ItemImportError(path, problems)
    return ParsedItems(items, warnings)
