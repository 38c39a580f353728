"""Reading the MT translations (JSONL or TSV) against a dataset: every malformed line refused, the rest kept or
skipped with a reason."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, overload

import orjson

from annotator.data_import.limits import InputLimits, lone_surrogate, may_hold_surrogate
from annotator.domain.unicode_rules import INVISIBLE_RULE, describe, find_invisible
from annotator.evaluation.inputs.dataset import Dataset
from annotator.evaluation.inputs.files import read_text, split_lines
from annotator.evaluation.inputs.line_check import _decode
from annotator.evaluation.inputs.problems import EvaluationInputError, Problem, _problem

TRANSLATION_FIELDS = ("id", "lang", "system", "translation")


class Translation(NamedTuple):
    """One MT output: item id, language, system, text (NFC) and the input line it came from (a plain record:
    100,000 of them in a large run)."""

    item_id: str
    lang: str
    system: str
    text: str
    line: int = 0


#: Why a well-formed translation line was skipped rather than scored (the dataset has nothing to score it against).
SKIP_REASONS = {
    "unknown_item": "of an item not in the dataset",
    "unknown_language": "in a language not in the dataset",
    "item_language_not_in_dataset": "of an item the dataset leaves out in that language",
}
#: The same reasons said of several translations.
SKIP_REASONS_PLURAL = {
    "unknown_item": "of items not in the dataset",
    "unknown_language": "in languages not in the dataset",
    "item_language_not_in_dataset": "of items the dataset leaves out in their language",
}


#: How many skipped lines are kept to be listed (the counts in ``skipped`` cover them all).
SKIPPED_LINES_KEPT = 20


@dataclass(frozen=True)
class SkippedLine:
    """A well-formed translation line that was not scored, and why (a key of SKIP_REASONS)."""

    line: int
    item_id: str
    lang: str
    reason: str


#: How ``Translations`` keeps a translation: ``Translation``'s fields as an exact tuple of strings and an int.
TranslationRow = tuple[str, str, str, str, int]


class Translations(Sequence[Translation]):
    """The parsed translations, plus ``skipped``: how many well-formed lines were skipped, by reason.

    An export leaves out unfinished, discarded or excluded item-languages by default, so translations of them are
    normal input: they are skipped (and counted) rather than refused.

    Each is kept as an exact tuple (``rows``) and given as a ``Translation`` built on access: the collector stops
    tracking such a tuple at its first pass, where 98,132 ``Translation`` records (a NamedTuple instance stays
    tracked) reached its oldest generation and set off its full passes over the whole heap — the set-up from the live
    curation without the collector paused (figures in ``evaluate_project.prepare_current``).
    """

    def __init__(self, translations: Iterable[Translation] = (), skipped: dict[str, int] | None = None) -> None:
        self.rows: list[TranslationRow] = [_row(translation) for translation in translations]
        self.skipped: dict[str, int] = dict(skipped or {})
        self.skipped_lines: list[SkippedLine] = []

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Translation: ...

    @overload
    def __getitem__(self, index: slice) -> list[Translation]: ...

    def __getitem__(self, index: int | slice) -> Translation | list[Translation]:
        if isinstance(index, slice):
            return [Translation._make(row) for row in self.rows[index]]
        return Translation._make(self.rows[index])

    def __iter__(self) -> Iterator[Translation]:
        return map(Translation._make, self.rows)

    def append(self, translation: Translation) -> None:
        self.rows.append(_row(translation))


def _row(translation: Translation) -> TranslationRow:
    item_id, lang, system, text, line = translation
    return (item_id, lang, system, text, line)


def format_skipped(skipped: dict[str, int]) -> str:
    """Why translations were not scored, in words: ``2 translations skipped, as they are of items not in the
    dataset`` or ``3 translations skipped: 2 of items not in the dataset, 1 in a language not in the dataset``;
    empty when nothing was skipped."""
    counts = {reason: count for reason, count in sorted(skipped.items()) if count}
    total = sum(counts.values())
    if not total:
        return ""

    def reason_text(reason: str, count: int) -> str:
        phrases = SKIP_REASONS if count == 1 else SKIP_REASONS_PLURAL
        return phrases.get(reason, reason.replace("_", " "))

    head = f"{total} translation{'' if total == 1 else 's'} skipped"
    if len(counts) == 1:
        ((reason, count),) = counts.items()
        return f"{head}, as {'it is' if count == 1 else 'they are'} {reason_text(reason, count)}"
    return f"{head}: " + ", ".join(f"{count} {reason_text(reason, count)}" for reason, count in counts.items())


def _looks_like_jsonl(name: str, lines: Sequence[str]) -> bool:
    lowered = name.lower()
    if lowered.endswith((".jsonl", ".json", ".ndjson")):
        return True
    if lowered.endswith((".tsv", ".tab", ".txt")):
        return False
    first = next((line for line in lines if line.strip()), "")
    return first.lstrip().startswith("{")


def _translation_rows(lines: Sequence[str], source: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:
    if _looks_like_jsonl(source, lines):
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            # orjson: a third of the standard library's time on a translations file (bench_pages.py, set-up). It
            # reads an integer past 64 bits as a float: only the four text fields are used, refused either way
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:  # NaN, a lone surrogate, deep nesting: the standard library's reading
                decoded, record = _decode(line, source, number, problems)
                if not decoded:
                    continue
            if not isinstance(record, dict):
                _problem(problems, source, number, "not_an_object", "each line must be a JSON object")
                continue
            yield number, record
        return
    header_number = next((i for i, line in enumerate(lines, start=1) if line.strip()), 0)
    if not header_number:
        return
    header = [name.strip().lower() for name in lines[header_number - 1].split("\t")]
    missing = [name for name in TRANSLATION_FIELDS if name not in header]
    if missing:
        _problem(
            problems,
            source,
            header_number,
            "tsv_header",
            f"the TSV header must name the columns {' '.join(TRANSLATION_FIELDS)} (missing: {', '.join(missing)})",
        )
        return
    for number in range(header_number + 1, len(lines) + 1):
        line = lines[number - 1]
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            _problem(
                problems,
                source,
                number,
                "tsv_columns",
                f"{len(cells)} tab-separated fields, expected {len(header)} (a tab inside a translation?)",
            )
            continue
        yield number, dict(zip(header, cells, strict=True))


def _field_surrogate(row: dict[str, str]) -> tuple[str, str] | None:
    """The first of the four fields holding a lone surrogate (only a JSON escape can bring one in), and its code."""
    for name in TRANSLATION_FIELDS:
        code = lone_surrogate(row[name])
        if code:
            return name, code
    return None


#: C0 and C1 controls, DEL and the line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _hidden_character(name: str) -> tuple[str, str] | None:
    """What makes a system name unsafe to show (it becomes a table row, a chart id, a CSV cell, a heading): a control
    character (a newline splits a Markdown row) or an invisible one (bidi controls reorder the text around it)."""
    found = _CONTROL.search(name)
    if found:
        return "control_character", f"a control character U+{ord(found.group()):04X}"
    invisible = find_invisible(name)
    if invisible:
        return INVISIBLE_RULE, f"an invisible character, {describe(invisible[1])}"
    return None


def parse_translations(text: str, dataset: Dataset, source: str = "translations.jsonl") -> Translations:
    """Parse translations (JSONL, or TSV with the header ``id lang system translation``) and check them.

    The format is chosen by the file extension, else by the first line. Every malformed line is reported at once
    (bad JSON or TSV, a missing or empty field, a repeated (id, lang, system)) and nothing is returned. A well-formed
    line for an item, language or item-language that is not in the dataset is skipped and counted in ``skipped``.
    """
    problems: list[Problem] = []
    translations = Translations()
    skipped: dict[str, int] = defaultdict(int)
    skipped_lines: list[SkippedLine] = []
    # the line of each (item, language, system) read: by language and system, then item (a tuple per line, kept to
    # the end, would be tracked by the collector for a while: see ``Translations``)
    seen: dict[tuple[str, str], dict[str, int]] = {}
    dataset_langs = set(dataset.languages)
    lines = split_lines(text)
    items = dataset.items
    escapes = may_hold_surrogate(text)
    systems: dict[str, tuple[str, str] | None] = {}
    for number, row in _translation_rows(lines, source, problems):
        raw_id, raw_lang, raw_system, output = row.get("id"), row.get("lang"), row.get("system"), row.get("translation")
        if not (type(raw_id) is str and type(raw_lang) is str and type(raw_system) is str and type(output) is str):
            missing = [name for name in TRANSLATION_FIELDS if row.get(name) is None]
            if missing:
                _problem(problems, source, number, "missing_field", f"missing field(s): {', '.join(missing)}")
                continue
            wrong = [name for name in TRANSLATION_FIELDS if not isinstance(row[name], str)]
            if wrong:
                _problem(problems, source, number, "bad_value", f"field(s) {', '.join(wrong)} must be text")
                continue
        item_id, system = row["id"].strip(), row["system"].strip()
        lang = row["lang"].strip().upper()
        if not item_id or not system or not lang:
            empty = [name for name in ("id", "lang", "system") if not row[name].strip()]
            _problem(problems, source, number, "missing_field", f"empty field(s): {', '.join(empty)}")
            continue
        if escapes and (surrogate := _field_surrogate(row)):
            where, code = surrogate
            _problem(problems, source, number, "surrogate", f"field '{where}' holds a lone surrogate {code}")
            continue
        hidden = systems.get(system, ...)
        if hidden is ...:  # each system name checked once (a file holds a few systems' many lines)
            hidden = systems[system] = _hidden_character(system)
        if hidden:
            rule, what = hidden
            _problem(problems, source, number, rule, f"the system name {system!r} holds {what}")
            continue
        lines_of = seen.get((lang, system))
        if lines_of is None:
            lines_of = seen[(lang, system)] = {}
        first = lines_of.get(item_id)
        if first is not None:
            _problem(
                problems,
                source,
                number,
                "duplicate_translation",
                f"a second translation of '{item_id}' into {lang} by '{system}' (first on line {first})",
            )
            continue
        lines_of[item_id] = number
        item = items.get(item_id)
        reason = (
            "unknown_item" if item is None
            else "unknown_language" if lang not in dataset_langs
            else "item_language_not_in_dataset" if lang not in item.candidates
            else ""
        )  # fmt: skip
        if reason:
            skipped[reason] += 1
            if len(skipped_lines) < SKIPPED_LINES_KEPT:
                skipped_lines.append(SkippedLine(number, item_id, lang, reason))
            continue
        translations.rows.append((item_id, lang, system, unicodedata.normalize("NFC", row["translation"]), number))
    if not translations and not problems:
        if skipped:
            known = ", ".join(sorted(dataset_langs))
            message = (
                f"none of the translations is of an item-language in the dataset ({known}): {format_skipped(skipped)}"
            )
            _problem(problems, source, 0, "nothing_to_score", message)
        else:
            _problem(problems, source, 0, "empty", "no translations found")
    if problems:
        raise EvaluationInputError(problems)
    translations.skipped = dict(skipped)
    translations.skipped_lines = skipped_lines
    return translations


def load_translations(
    path: str | Path, dataset: Dataset, limits: InputLimits | None = None, name: str | None = None
) -> Translations:
    """``name``: what problems call the file (an upload's own name, not the server's copy of it)."""
    path = Path(path)
    return parse_translations(read_text(path, limits), dataset, name or str(path))
