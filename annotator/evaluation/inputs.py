"""Evaluation inputs (SPEC §8): reading and checking the exported dataset and the MT translations.

Every file the evaluation reads is read here (``read_text``), so input limits can be added in one place. Bad input
raises ``EvaluationInputError`` listing every problem with its file, line, field and rule; nothing is run.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, overload

import orjson

from annotator.data_import.limits import InputLimits, find_surrogate, lone_surrogate, may_hold_surrogate, parse_json
from annotator.domain.candidates import Candidate, CandidateError, parse_candidate
from annotator.domain.matching import BAD, GOOD
from annotator.domain.unicode_rules import INVISIBLE_RULE, describe, find_invisible
from annotator.errors import UserError

TRANSLATION_FIELDS = ("id", "lang", "system", "translation")
_MAX_LISTED_PROBLEMS = 25


# --- errors ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One bad input line: file, 1-based line number (0 for the whole file), rule and a plain-words message."""

    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"{where}: {self.message} (rule: {self.rule})"


class EvaluationInputError(UserError):
    """The dataset or the translations are malformed; ``problems`` lists every bad line found (nothing was run)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        shown = [f"  {problem}" for problem in self.problems[:_MAX_LISTED_PROBLEMS]]
        more = len(self.problems) - len(shown)
        if more > 0:
            shown.append(f"  ... and {more} more")
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"{len(self.problems)} {noun} in the input:\n" + "\n".join(shown))


# --- dataset --------------------------------------------------------------------------------------------------------


class CandidateSpec(NamedTuple):
    """A dataset candidate, parsed: side (``good``/``bad``), position within its side, provenance synsets. Made on
    request from the item's ``StoredSpec`` (``DatasetItem.specs``) and dropped after use."""

    candidate: Candidate
    side: str
    position: int  # within its side (``index`` would shadow ``tuple.index``)
    synsets: tuple[str, ...] = ()


#: How a ``DatasetItem`` keeps a candidate: its text, its cross-PoS tag (or None), side, position within its side,
#: then its provenance synsets — one flat tuple of strings and ints. Python's cyclic collector stops tracking such a
#: tuple at its first pass (a nested one takes a pass per level and may reach the oldest generation first), so the
#: 300,000 candidates of 10,000 items × 5 languages cost its full passes nothing; as ``CandidateSpec`` records holding
#: ``Candidate`` objects (a NamedTuple or dataclass instance is tracked for good) they made the set-up from the live
#: curation 2× slower unless the collector was paused (figures in ``evaluate_project.prepare_current``).
StoredSpec = tuple[Any, ...]


def stored_spec(candidate: Candidate, side: str, position: int, synsets: tuple[str, ...] = ()) -> StoredSpec:
    """A parsed candidate as a ``DatasetItem`` keeps it."""
    return (candidate.text, candidate.pos, side, position, *synsets)


@dataclass(frozen=True)
class DatasetItem:
    """What evaluation needs of one exported item (SPEC §7 line)."""

    id: str
    sentence: str
    lemma: str
    pos: str
    synset: str
    sense_rank: int | None  # μ(σ); None when σ is not in Ω(λ)
    polysemy_degree: int | None  # δ(λ); None when Ω(λ) was not pre-populated
    sense_ranks: dict[str, int]
    #: each language's candidates, GOOD then BAD (``StoredSpec``: plain tuples, see there); ``specs`` or
    #: ``languages`` give them as ``CandidateSpec`` records
    candidates: dict[str, tuple[StoredSpec, ...]]
    line: int = 0
    domain: str | None = None  # the item's optional domain, for the by-domain breakdown

    def specs(self, lang: str) -> tuple[CandidateSpec, ...]:
        """The candidates of ``lang`` (none when the item is not in it), made now: callers use them and drop them."""
        return tuple(
            CandidateSpec(Candidate(spec[0], spec[1]), spec[2], spec[3], spec[4:])
            for spec in self.candidates.get(lang, ())
        )

    @property
    def languages(self) -> dict[str, tuple[CandidateSpec, ...]]:
        """Every language's candidates (``specs``), by language."""
        return {lang: self.specs(lang) for lang in self.candidates}


@dataclass(frozen=True)
class Dataset:
    items: dict[str, DatasetItem]
    source: str = "dataset.jsonl"

    @property
    def languages(self) -> list[str]:
        return sorted({lang for item in self.items.values() for lang in item.candidates})


def _problem(problems: list[Problem], source: str, line: int, rule: str, message: str) -> None:
    problems.append(Problem(source, line, rule, message))


#: Required fields that may be null (SPEC §7, dataset.schema.json): the item is evaluated, and left out of the
#: metrics that need the value (SFII and MFS+ need μ(σ), SPDI needs δ(λ)).
_NULLABLE = ("sense_rank", "polysemy_degree")


def _side_specs(
    entries: Any, side: str, where: str, source: str, line: int, problems: list[Problem], parsed: ParseCache
) -> list[StoredSpec]:
    specs = []
    for index, entry in enumerate(entries):
        text = entry.get("text") if isinstance(entry, dict) else entry
        synsets = entry.get("synsets") if isinstance(entry, dict) else None
        try:
            candidate = parse_cached(text, parsed)
        except CandidateError as error:
            _problem(problems, source, line, f"candidate_{error.rule}", f"{where} candidate {text!r}: {error.message}")
            continue
        specs.append(stored_spec(candidate, side, index, tuple(map(str, synsets)) if synsets else ()))
    return specs


#: Candidates parsed in one read, by their text (``parse_cached``): the lexicon's candidates recur across items.
ParseCache = dict[str, "Candidate | CandidateError"]


def parse_cached(text: Any, parsed: ParseCache) -> Candidate:
    """``parse_candidate(text)``, each distinct text parsed once per read; a refused text raises every time."""
    if type(text) is not str:
        return parse_candidate(text)
    found = parsed.get(text)
    if found is None:
        try:
            found = parse_candidate(text)
        except CandidateError as error:
            found = error
        parsed[text] = found
    if isinstance(found, CandidateError):
        raise found
    return found


def _parse_item(record: Any, source: str, line: int, problems: list[Problem], parsed: ParseCache) -> DatasetItem | None:
    before = len(problems)
    if not isinstance(record, dict):
        _problem(problems, source, line, "not_an_object", "each line must be a JSON object")
        return None
    for name in ("id", "target", "sense_rank", "polysemy_degree", "languages"):
        if name not in record:
            _problem(problems, source, line, "missing_field", f"missing field '{name}'")
        elif record[name] is None and name not in _NULLABLE:
            _problem(problems, source, line, "null_field", f"field '{name}' is null")
    if len(problems) > before:
        return None
    item_id = str(record["id"])
    target = record["target"]
    if not isinstance(target, dict):
        _problem(problems, source, line, "bad_value", f"item '{item_id}': 'target' must be an object")
        return None
    pos = target.get("pos")
    if "pos" not in target:
        _problem(problems, source, line, "missing_field", f"item '{item_id}': missing field 'target.pos'")
    elif not isinstance(pos, str) or not pos.strip():
        _problem(problems, source, line, "bad_value", f"item '{item_id}': 'target.pos' must be a non-empty text")
    ints: dict[str, int | None] = {}
    for name in _NULLABLE:
        value = record[name]
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            _problem(
                problems, source, line, "bad_value", f"item '{item_id}': '{name}' must be a positive integer or null"
            )
        else:
            ints[name] = value
    sense_ranks: dict[str, int] = {}
    for sense in record.get("senses") or []:
        if isinstance(sense, dict) and isinstance(sense.get("synset"), str) and isinstance(sense.get("rank"), int):
            sense_ranks[sense["synset"]] = sense["rank"]
        else:
            _problem(problems, source, line, "bad_value", f"item '{item_id}': each sense needs 'synset' and 'rank'")
            break
    languages: dict[str, tuple[StoredSpec, ...]] = {}
    if not isinstance(record["languages"], dict):
        _problem(problems, source, line, "bad_value", f"item '{item_id}': 'languages' must be an object")
        return None
    for raw_lang, sets in record["languages"].items():
        lang = str(raw_lang).strip().upper()
        if not isinstance(sets, dict):
            _problem(problems, source, line, "bad_value", f"item '{item_id}' {lang}: expected {{'good': [...]}}")
            continue
        specs: list[StoredSpec] = []
        for side in (GOOD, BAD):
            where = f"item '{item_id}' {lang} {side}"
            specs.extend(_side_specs(sets.get(side) or [], side, where, source, line, problems, parsed))
        languages[lang] = tuple(specs)
    if len(problems) > before:
        return None
    return DatasetItem(
        id=item_id,
        sentence=str(record.get("sentence", "")),
        lemma=str(target.get("lemma", "")),
        pos=str(pos),
        synset=str(record.get("synset", "")),
        sense_rank=ints["sense_rank"],
        polysemy_degree=ints["polysemy_degree"],
        sense_ranks=sense_ranks,
        candidates=languages,
        line=line,
        domain=record["domain"] if isinstance(record.get("domain"), str) and record["domain"] else None,
    )


@functools.cache
def _line_schema() -> dict[str, Any]:
    # the file ``data_export.dataset.schema_path()`` names, read without importing the exporter (and the database
    # layer it brings): the evaluation's start-up is most of a small run
    path = Path(__file__).resolve().parent.parent / "schema" / "dataset.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


@functools.cache
def _line_validator() -> Any:
    """The shipped ``dataset.schema.json`` validator: one contract for the file the exporter writes."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_line_schema())


@functools.cache
def line_checker() -> Callable[[Any], Any]:
    """The same schema compiled to Python by fastjsonschema: about 40 times faster than ``_line_validator`` on a
    valid line, which is nearly every line. It only says valid or not (raising ``JsonSchemaException``); a line it
    refuses goes to ``_line_validator``, whose messages name every fault. The schema uses nothing that differs
    between draft 2020-12 and draft 7 (fastjsonschema's newest), and tests hold the two to the same verdicts."""
    import fastjsonschema

    schema = {**_line_schema(), "$schema": "http://json-schema.org/draft-07/schema#"}
    checker: Callable[[Any], Any] = fastjsonschema.compile(schema)
    return checker


def _field_path(error: Any) -> str:
    """``languages.IT.good[0].text`` for a JSON Schema error's location (``(line)`` for the whole line)."""
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(line)"


def _passes_compiled_check(record: Any) -> bool:
    """The compiled schema's verdict (``line_checker``): True means the line is valid."""
    from fastjsonschema import JsonSchemaException

    try:
        line_checker()(record)
    except (JsonSchemaException, RecursionError):
        return False
    return True


def _schema_problems(record: Any, source: str, line: int, problems: list[Problem]) -> bool:
    """Validate one line against the schema; add one problem per violation, naming the line and the field."""
    if _passes_compiled_check(record):
        return False
    errors = sorted(_line_validator().iter_errors(record), key=lambda e: [str(p) for p in e.absolute_path])
    seen: set[tuple[str, str]] = set()
    for error in errors:
        rule = f"schema_{error.validator}"
        found = []
        if error.validator == "required" and isinstance(error.instance, dict):
            parent = _field_path(error)
            for name in error.validator_value:
                if name not in error.instance:
                    found.append(f"missing field '{name if parent == '(line)' else f'{parent}.{name}'}'")
        else:
            found.append(f"field '{_field_path(error)}': {_short(error.message)}")
        for message in found:
            if (rule, message) not in seen:  # jsonschema reports each missing name once per ``required`` error
                seen.add((rule, message))
                _problem(problems, source, line, rule, message)
    return bool(errors)


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


#: How deeply a line's JSON may nest: a dataset line needs 6 levels (languages → IT → good → candidate → synsets),
#: a translation line 1. Deeper input is refused with a line message before anything walks it.
MAX_DEPTH = 16


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether the decoded JSON value nests deeper than ``limit`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        children = current.values() if isinstance(current, dict) else current if isinstance(current, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _decode(line: str, source: str, number: int, problems: list[Problem]) -> tuple[bool, Any]:
    """``json.loads(line)``, or a problem naming the line: invalid JSON, or nested too deeply to read."""
    try:
        return True, json.loads(line)
    except json.JSONDecodeError as error:
        _problem(problems, source, number, "invalid_json", f"not valid JSON ({error.msg})")
    except RecursionError:  # the decoder's own guard, far below a recursion a line could cause
        _problem(problems, source, number, "too_deep", f"the JSON nests deeper than {MAX_DEPTH} levels")
    return False, None


class DatasetReader:
    """The checks every dataset line goes through (JSON depth, surrogates, the shipped schema, the item rules, a
    unique id). The live evaluation hands the rows it doubts to ``check`` so they are refused with these words."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.items: dict[str, DatasetItem] = {}
        self.parsed: ParseCache = {}

    def check(self, record: Any, number: int, raw: str | None = None) -> DatasetItem | None:
        """A decoded line: depth, surrogates, schema, item rules; the item, or None with the problems added.

        ``raw``, the line's text when there is one, spares the walk for surrogates when it holds no surrogate escape.
        A line the compiled schema passes nests no deeper than the schema (each of its objects lists its fields), so
        only a refused one is walked for its depth before the full validator names its faults.
        """
        if _passes_compiled_check(record):
            if raw is None or may_hold_surrogate(raw):
                found = find_surrogate(record)
                if found:
                    where, code = found
                    message = f"field '{where}' holds a lone surrogate {code}"
                    _problem(self.problems, self.source, number, "surrogate", message)
                    return None
            return _parse_item(record, self.source, number, self.problems, self.parsed)
        if too_deep(record):
            _problem(self.problems, self.source, number, "too_deep", f"the JSON nests deeper than {MAX_DEPTH} levels")
            return None
        found = find_surrogate(record)
        if found:
            where, code = found
            _problem(self.problems, self.source, number, "surrogate", f"field '{where}' holds a lone surrogate {code}")
            return None
        if _schema_problems(record, self.source, number, self.problems):
            return None
        return _parse_item(record, self.source, number, self.problems, self.parsed)

    def keep(self, item: DatasetItem) -> None:
        """An item read from its line (``item.line``); a repeated id is a problem of the later line."""
        if item.id in self.items:
            first = self.items[item.id].line
            _problem(
                self.problems, self.source, item.line, "duplicate_item", f"item id '{item.id}' already on line {first}"
            )
            return
        self.items[item.id] = item

    def add(self, record: Any, number: int, raw: str | None = None) -> None:
        item = self.check(record, number, raw)
        if item is not None:
            self.keep(item)

    def dataset(self) -> Dataset:
        if not self.items and not self.problems:
            _problem(self.problems, self.source, 0, "empty", "the dataset has no items")
        if self.problems:
            raise EvaluationInputError(self.problems)
        return Dataset(self.items, self.source)


def parse_dataset(lines: Iterable[str], source: str = "dataset.jsonl") -> Dataset:
    """Parse the exported ``dataset.jsonl`` lines; raise EvaluationInputError listing every bad line.

    Each line is first validated against the shipped JSON Schema (``"good": "goccio"`` is refused, not read as six
    one-letter candidates); every problem names the line and the field.
    """
    reader = DatasetReader(source)
    for number, line in enumerate(lines, start=1):
        if line.strip():
            decoded, record = _decode(line, source, number, reader.problems)
            if decoded:
                reader.add(record, number, line)
    return reader.dataset()


def dataset_from_records(records: Iterable[Any], source: str = "dataset") -> Dataset:
    """A Dataset from lines already decoded (a suite read by another reader, tests): record n is checked as line n
    of a ``dataset.jsonl`` would be, with the same problems."""
    reader = DatasetReader(source)
    for number, record in enumerate(records, start=1):
        reader.add(record, number)
    return reader.dataset()


def load_dataset(path: str | Path, limits: InputLimits | None = None, name: str | None = None) -> Dataset:
    """``name``: what problems call the file (an upload's own name, not the server's copy of it)."""
    path = Path(path)
    return parse_dataset(_split_lines(_read_text(path, limits)), name or str(path))


def _split_lines(text: str) -> list[str]:
    """Split on newlines only: ``str.splitlines`` would also cut at U+2028, which JSON strings may hold raw."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _read_text(path: Path, limits: InputLimits | None = None) -> str:
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


# --- translations ---------------------------------------------------------------------------------------------------


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
    lines = _split_lines(text)
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
    return parse_translations(_read_text(path, limits), dataset, name or str(path))


def read_analysed(path: str | Path) -> list[dict[str, Any]]:
    """The lines of an ``analysed.jsonl`` the evaluation wrote (to recompute or filter metrics later)."""
    return [parse_json(line) for line in _split_lines(_read_text(Path(path))) if line.strip()]


#: public names for the one reader of evaluation files
read_text = _read_text
split_lines = _split_lines
