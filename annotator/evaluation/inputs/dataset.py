"""Reading the exported ``dataset.jsonl`` (SPEC §7): each line checked, then kept as a ``DatasetItem``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from annotator.data_import.limits import InputLimits, find_surrogate, may_hold_surrogate
from annotator.domain.candidates import Candidate, CandidateError, parse_candidate
from annotator.domain.matching import BAD, GOOD
from annotator.evaluation.inputs.files import read_text, split_lines
from annotator.evaluation.inputs.line_check import (
    MAX_DEPTH,
    _decode,
    _passes_compiled_check,
    _schema_problems,
    too_deep,
)
from annotator.evaluation.inputs.problems import EvaluationInputError, Problem, _problem


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
#: candidates of a large dataset cost its full passes nothing; as ``CandidateSpec`` records holding
#: ``Candidate`` objects (a NamedTuple or dataclass instance is tracked for good) they made the set-up from the live
#: curation slower unless the collector was paused.
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
    return parse_dataset(split_lines(read_text(path, limits)), name or str(path))
