"""Evaluation pipeline (SPEC §8): exported dataset + MT translations → GOOD/BAD/MISS per translation → metrics.

Called by ``annotator evaluate`` and by the Evaluate page, so it takes text or paths, reports progress through a
callback and returns plain dataclasses with ``to_dict()``; it never prints and never imports a UI.

Typical use::

    dataset = load_dataset("exports/x/dataset.jsonl")
    translations = load_translations("mt/deepl.tsv", dataset)
    result = evaluate(dataset, translations, create_analyser("default"), progress=callback)
    write_results(result, "mt/deepl-evaluation")
    print(format_metrics_table(result.metrics))
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from annotator.analysis.base import Analyser, Analysis, empty_analysis
from annotator.data_export.atomic import write_text_atomic
from annotator.domain.candidates import Candidate, CandidateError, parse_candidate
from annotator.domain.matching import (
    BAD,
    GOOD,
    CandidateSet,
    MatchResult,
    Outcome,
    candidate_segments,
    candidate_set,
    compile_candidate,
    match_translation,
)
from annotator.domain.metrics import ALL, Metrics, MetricsReport, Rate, ScoredItem, compute_metrics, omega_rank
from annotator.errors import UserError
from annotator.progress import ProgressCallback, no_progress

ANALYSED_FILE = "analysed.jsonl"
METRICS_FILE = "metrics.json"
TRANSLATION_FIELDS = ("id", "lang", "system", "translation")
ANALYSERS = ("default", "stanza")
DEFAULT_BATCH_SIZE = 256
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


@dataclass(frozen=True)
class CandidateSpec:
    """A dataset candidate, parsed: side (``good``/``bad``), position within its side, provenance synsets."""

    candidate: Candidate
    side: str
    index: int
    synsets: tuple[str, ...] = ()


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
    languages: dict[str, tuple[CandidateSpec, ...]]
    line: int = 0


@dataclass(frozen=True)
class Dataset:
    items: dict[str, DatasetItem]
    source: str = "dataset.jsonl"

    @property
    def languages(self) -> list[str]:
        return sorted({lang for item in self.items.values() for lang in item.languages})


def _problem(problems: list[Problem], source: str, line: int, rule: str, message: str) -> None:
    problems.append(Problem(source, line, rule, message))


#: Required fields that may be null (SPEC §7, dataset.schema.json): the item is evaluated, and left out of the
#: metrics that need the value (SFII and MFS+ need μ(σ), SPDI needs δ(λ)).
_NULLABLE = ("sense_rank", "polysemy_degree")


def _parse_item(record: Any, source: str, line: int, problems: list[Problem]) -> DatasetItem | None:
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
    languages: dict[str, tuple[CandidateSpec, ...]] = {}
    if not isinstance(record["languages"], dict):
        _problem(problems, source, line, "bad_value", f"item '{item_id}': 'languages' must be an object")
        return None
    for raw_lang, sets in record["languages"].items():
        lang = str(raw_lang).strip().upper()
        specs: list[CandidateSpec] = []
        if not isinstance(sets, dict):
            _problem(problems, source, line, "bad_value", f"item '{item_id}' {lang}: expected {{'good': [...]}}")
            continue
        for side in (GOOD, BAD):
            for index, entry in enumerate(sets.get(side) or []):
                text = entry.get("text") if isinstance(entry, dict) else entry
                try:
                    candidate = parse_candidate(text)
                except CandidateError as error:
                    _problem(
                        problems,
                        source,
                        line,
                        f"candidate_{error.rule}",
                        f"item '{item_id}' {lang} {side} candidate {text!r}: {error.message}",
                    )
                    continue
                synsets = entry.get("synsets") if isinstance(entry, dict) else None
                specs.append(CandidateSpec(candidate, side, index, tuple(str(s) for s in synsets or ())))
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
        languages=languages,
        line=line,
    )


@functools.cache
def _line_validator() -> Any:
    """The shipped ``dataset.schema.json`` validator: one contract for the file the exporter writes."""
    from jsonschema import Draft202012Validator

    from annotator.data_export.dataset import schema_path

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def _field_path(error: Any) -> str:
    """``languages.IT.good[0].text`` for a JSON Schema error's location (``(line)`` for the whole line)."""
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(line)"


def _schema_problems(record: Any, source: str, line: int, problems: list[Problem]) -> bool:
    """Validate one line against the schema; add one problem per violation, naming the line and the field."""
    errors = sorted(_line_validator().iter_errors(record), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        rule = f"schema_{error.validator}"
        if error.validator == "required" and isinstance(error.instance, dict):
            parent = _field_path(error)
            for name in error.validator_value:
                if name not in error.instance:
                    field = name if parent == "(line)" else f"{parent}.{name}"
                    _problem(problems, source, line, rule, f"missing field '{field}'")
            continue
        _problem(problems, source, line, rule, f"field '{_field_path(error)}': {_short(error.message)}")
    return bool(errors)


def _short(message: str, limit: int = 160) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def parse_dataset(lines: Iterable[str], source: str = "dataset.jsonl") -> Dataset:
    """Parse the exported ``dataset.jsonl`` lines; raise EvaluationInputError listing every bad line.

    Each line is first validated against the shipped JSON Schema (``"good": "goccio"`` is refused, not read as six
    one-letter candidates); every problem names the line and the field.
    """
    problems: list[Problem] = []
    items: dict[str, DatasetItem] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            _problem(problems, source, number, "invalid_json", f"not valid JSON ({error.msg})")
            continue
        if _schema_problems(record, source, number, problems):
            continue
        item = _parse_item(record, source, number, problems)
        if item is None:
            continue
        if item.id in items:
            _problem(
                problems, source, number, "duplicate_item", f"item id '{item.id}' already on line {items[item.id].line}"
            )
            continue
        items[item.id] = item
    if not items and not problems:
        _problem(problems, source, 0, "empty", "the dataset has no items")
    if problems:
        raise EvaluationInputError(problems)
    return Dataset(items, source)


def dataset_from_records(records: Iterable[dict[str, Any]], source: str = "dataset") -> Dataset:
    """Build a Dataset from export records already in memory (the app evaluates the current database this way)."""
    return parse_dataset((json.dumps(record, ensure_ascii=False) for record in records), source)


def load_dataset(path: str | Path) -> Dataset:
    path = Path(path)
    return parse_dataset(_split_lines(_read_text(path)), str(path))


def _split_lines(text: str) -> list[str]:
    """Split on newlines only: ``str.splitlines`` would also cut at U+2028, which JSON strings may hold raw."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as error:
        raise UserError(f"{path}: file not found") from error
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from error


# --- translations ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Translation:
    """One MT output: item id, language, system, text (NFC) and the input line it came from."""

    item_id: str
    lang: str
    system: str
    text: str
    line: int = 0


#: Why a well-formed translation line was skipped rather than scored (the dataset has nothing to score it against).
SKIP_REASONS = {
    "unknown_item": "item not in the dataset",
    "unknown_language": "language not in the dataset",
    "item_language_not_in_dataset": "item not in the dataset in that language",
}


class Translations(list[Translation]):
    """The parsed translations, plus ``skipped``: how many well-formed lines were skipped, by reason.

    An export leaves out unfinished, discarded or excluded item-languages by default, so translations of them are
    normal input: they are skipped (and counted) rather than refused.
    """

    def __init__(self, translations: Iterable[Translation] = (), skipped: dict[str, int] | None = None) -> None:
        super().__init__(translations)
        self.skipped: dict[str, int] = dict(skipped or {})


def format_skipped(skipped: dict[str, int]) -> str:
    """``3 translations skipped: 2 item not in the dataset, 1 ...``; empty when nothing was skipped."""
    total = sum(skipped.values())
    if not total:
        return ""
    parts = ", ".join(f"{count} {SKIP_REASONS.get(reason, reason)}" for reason, count in sorted(skipped.items()))
    return f"{total} translation{'' if total == 1 else 's'} skipped: {parts}"


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
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                _problem(problems, source, number, "invalid_json", f"not valid JSON ({error.msg})")
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


def parse_translations(text: str, dataset: Dataset, source: str = "translations.jsonl") -> Translations:
    """Parse translations (JSONL, or TSV with the header ``id lang system translation``) and check them.

    The format is chosen by the file extension, else by the first line. Every malformed line is reported at once
    (bad JSON or TSV, a missing or empty field, a repeated (id, lang, system)) and nothing is returned. A well-formed
    line for an item, language or item-language that is not in the dataset is skipped and counted in ``skipped``.
    """
    problems: list[Problem] = []
    translations = Translations()
    skipped: dict[str, int] = defaultdict(int)
    seen: dict[tuple[str, str, str], int] = {}
    dataset_langs = set(dataset.languages)
    lines = _split_lines(text)
    for number, row in _translation_rows(lines, source, problems):
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
        key = (item_id, lang, system)
        if key in seen:
            _problem(
                problems,
                source,
                number,
                "duplicate_translation",
                f"a second translation of '{item_id}' into {lang} by '{system}' (first on line {seen[key]})",
            )
            continue
        seen[key] = number
        item = dataset.items.get(item_id)
        if item is None:
            skipped["unknown_item"] += 1
            continue
        if lang not in dataset_langs:
            skipped["unknown_language"] += 1
            continue
        if lang not in item.languages:
            skipped["item_language_not_in_dataset"] += 1
            continue
        translations.append(
            Translation(item_id, lang, system, unicodedata.normalize("NFC", row["translation"]), number)
        )
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
    return translations


def load_translations(path: str | Path, dataset: Dataset) -> Translations:
    path = Path(path)
    return parse_translations(_read_text(path), dataset, str(path))


# --- analysers ------------------------------------------------------------------------------------------------------


def create_analyser(name: str = "default", stanza_models: str | Path | None = None) -> Analyser:
    """The analyser called ``name``: ``default`` (offline) or ``stanza`` (models from ``stanza_models``)."""
    if name == "default":
        from annotator.analysis.default import DefaultAnalyser

        return DefaultAnalyser()
    if name == "stanza":
        from annotator.analysis.stanza_analyser import StanzaAnalyser

        return StanzaAnalyser(model_dir=stanza_models)
    raise UserError(f"unknown analyser '{name}': choose one of {', '.join(ANALYSERS)}")


# --- results --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysedTranslation:
    """One translation with its analysis, its match and the item facts the metrics need."""

    translation: Translation
    item: DatasetItem
    analysis: Analysis
    match: MatchResult
    omega_rank: int | None

    @property
    def outcome(self) -> Outcome:
        return self.match.outcome

    def scored(self) -> ScoredItem:
        return ScoredItem(
            system=self.translation.system,
            lang=self.translation.lang,
            pos=self.item.pos,
            outcome=str(self.match.outcome),
            sense_rank=self.item.sense_rank,
            polysemy_degree=self.item.polysemy_degree,
            omega_rank=self.omega_rank if self.match.outcome == Outcome.BAD else None,
        )

    def to_dict(self) -> dict[str, Any]:
        omega = self.match.omega
        return {
            "id": self.translation.item_id,
            "lang": self.translation.lang,
            "system": self.translation.system,
            "translation": self.translation.text,
            "result": str(self.match.outcome),
            "omega": omega.text if omega else None,
            "omega_side": omega.side if omega else None,
            "omega_synsets": list(omega.synsets) if omega else [],
            "omega_rank": self.omega_rank,
            "step": str(omega.step) if omega else None,
            "span": list(omega.span) if omega and omega.span else None,
            "both_matched": self.match.both_matched,
            "matches": [match.to_dict() for match in self.match.matches],
            "sentence": self.item.sentence,
            "lemma": self.item.lemma,
            "pos": self.item.pos,
            "synset": self.item.synset,
            "sense_rank": self.item.sense_rank,
            "polysemy_degree": self.item.polysemy_degree,
            "analysis": self.analysis.to_dict(),
        }


@dataclass(frozen=True)
class EvaluationResult:
    """Everything one run produced, in input order; ``metrics`` is the table."""

    results: tuple[AnalysedTranslation, ...]
    metrics: MetricsReport
    analyser: str
    dataset_source: str = ""
    translations_source: str = ""
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    #: well-formed translations not scored, by reason (see SKIP_REASONS): their item-language is not in the dataset
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())

    def with_outcome(self, outcome: str | Outcome) -> list[AnalysedTranslation]:
        """The MISS (or BAD...) translations, for sending translators back to the items."""
        return [result for result in self.results if result.match.outcome == Outcome(outcome)]

    def metrics_document(self) -> dict[str, Any]:
        return {
            "format": "annotator-evaluation-metrics",
            "format_version": 1,
            "created": self.created,
            "analyser": self.analyser,
            "dataset": self.dataset_source,
            "translations": self.translations_source,
            "translation_count": len(self.results),
            "skipped": dict(self.skipped),
            **self.metrics.to_dict(),
        }


def _compile_language(
    dataset: Dataset,
    item_ids: Iterable[str],
    lang: str,
    analyser: Analyser,
    batch_size: int,
) -> dict[str, CandidateSet]:
    """Compile the candidates of every item in ``lang``, analysing all their segments in batches, once."""
    ids = sorted(set(item_ids))
    segments = sorted(
        {
            segment
            for item_id in ids
            for spec in dataset.items[item_id].languages[lang]
            for segment in candidate_segments(spec.candidate)
        }
    )
    analyses: dict[str, Analysis] = {}
    with_stems = getattr(analyser, "with_stems", None)
    for start in range(0, len(segments), batch_size):
        batch = segments[start : start + batch_size]
        analysed = _analyse(analyser, batch, lang)
        if callable(with_stems):
            analysed = with_stems(analysed, lang)
        analyses.update(zip(batch, analysed, strict=True))
    compiled: dict[str, CandidateSet] = {}
    memo: dict[Candidate, Any] = {}  # items of one lemma share most candidates: compile each once
    for item_id in ids:
        compiled[item_id] = candidate_set(
            compile_candidate(
                spec.candidate, spec.side, index=spec.index, synsets=spec.synsets, segment_analyses=analyses, memo=memo
            )
            for spec in dataset.items[item_id].languages[lang]
        )
    return compiled


def _analyse(analyser: Analyser, texts: Sequence[str], lang: str) -> list[Analysis]:
    """Analyse non-empty texts in one call (backends may choke on empty strings); keep the order."""
    wanted = [i for i, text in enumerate(texts) if text.strip()]
    analysed = analyser.analyse([texts[i] for i in wanted], lang) if wanted else []
    if len(analysed) != len(wanted):
        raise RuntimeError(f"analyser {analyser.name!r} returned {len(analysed)} analyses for {len(wanted)} texts")
    out = [empty_analysis(text) for text in texts]
    for i, analysis in zip(wanted, analysed, strict=True):
        out[i] = analysis
    return out


def evaluate(
    dataset: Dataset,
    translations: Sequence[Translation],
    analyser: Analyser,
    progress: ProgressCallback = no_progress,
    batch_size: int = DEFAULT_BATCH_SIZE,
    translations_source: str = "",
) -> EvaluationResult:
    """Analyse, match and score every translation; ``progress(done, total, message)`` after each batch.

    The result's ``skipped`` comes from ``translations`` when it is the ``Translations`` that parsing returned.
    """
    total = len(translations)
    by_lang: dict[str, list[int]] = defaultdict(list)
    for index, translation in enumerate(translations):
        by_lang[translation.lang].append(index)
    prepare = getattr(analyser, "prepare", None)
    if callable(prepare):
        prepare(sorted(by_lang))
    with_stems = getattr(analyser, "with_stems", None)
    slots: list[AnalysedTranslation | None] = [None] * total
    done = 0
    progress(0, total, "starting")
    for lang in sorted(by_lang):
        indices = by_lang[lang]
        progress(done, total, f"{lang}: analysing candidates")
        patterns = _compile_language(dataset, (translations[i].item_id for i in indices), lang, analyser, batch_size)
        for start in range(0, len(indices), batch_size):
            batch = indices[start : start + batch_size]
            analyses = _analyse(analyser, [translations[i].text for i in batch], lang)
            for index, analysis in zip(batch, analyses, strict=True):
                translation = translations[index]
                item = dataset.items[translation.item_id]
                match = match_translation(analysis, patterns[translation.item_id])
                if match.outcome == Outcome.MISS and callable(with_stems) and analysis.words:
                    analysis = with_stems([analysis], lang)[0]  # the last step, only where nothing else matched
                    match = match_translation(analysis, patterns[translation.item_id])
                rank = omega_rank(match.omega.synsets, item.sense_ranks) if match.omega else None
                slots[index] = AnalysedTranslation(translation, item, analysis, match, rank)
            done += len(batch)
            progress(done, total, f"{lang}: analysed {done}/{total}")
    results = tuple(result for result in slots if result is not None)
    metrics = compute_metrics(result.scored() for result in results)
    skipped = translations.skipped if isinstance(translations, Translations) else {}
    return EvaluationResult(results, metrics, analyser.name, dataset.source, translations_source, skipped=dict(skipped))


def run_evaluation(
    dataset_path: str | Path,
    translations_path: str | Path,
    analyser: Analyser | str = "default",
    *,
    stanza_models: str | Path | None = None,
    out_dir: str | Path | None = None,
    progress: ProgressCallback = no_progress,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> EvaluationResult:
    """Files in, files out: what the command line runs. ``out_dir`` None writes nothing."""
    dataset = load_dataset(dataset_path)
    translations = load_translations(translations_path, dataset)
    if isinstance(analyser, str):
        analyser = create_analyser(analyser, stanza_models)
    result = evaluate(dataset, translations, analyser, progress, batch_size, str(translations_path))
    if out_dir is not None:
        write_results(result, out_dir)
    return result


def default_out_dir(translations_path: str | Path) -> Path:
    """``mt/deepl.tsv`` → ``mt/deepl-evaluation``: beside the input, so re-running replaces the last run."""
    path = Path(translations_path)
    return path.with_name(f"{path.stem}-evaluation")


# --- output ---------------------------------------------------------------------------------------------------------


def write_results(result: EvaluationResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``analysed.jsonl`` (one line per translation, input order) and ``metrics.json``; return their paths."""
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"{folder}: cannot create the output folder ({error.strerror})") from error
    analysed = folder / ANALYSED_FILE
    metrics = folder / METRICS_FILE
    lines = "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in result.results)
    write_text_atomic(analysed, lines)
    write_text_atomic(metrics, json.dumps(result.metrics_document(), ensure_ascii=False, indent=2) + "\n")
    return {"analysed": analysed, "metrics": metrics}


LEADERBOARD_FILES = {"csv": "leaderboard.csv", "md": "leaderboard.md", "tex": "leaderboard.tex"}


def write_leaderboard(result: EvaluationResult, out_dir: str | Path, resamples: int = 1000) -> dict[str, Path]:
    """Write the leaderboard (every metric, bootstrap CI, macro accuracy, MuCoW scores) as CSV, Markdown, LaTeX."""
    from annotator.domain.research_metrics import (
        leaderboard_csv,
        leaderboard_latex,
        leaderboard_markdown,
        leaderboard_rows,
    )

    rows = leaderboard_rows(
        [r.scored() for r in result.results], [r.item.synset for r in result.results], resamples=resamples
    )
    folder = Path(out_dir)
    written = {}
    for kind, render in (("csv", leaderboard_csv), ("md", leaderboard_markdown), ("tex", leaderboard_latex)):
        path = folder / LEADERBOARD_FILES[kind]
        write_text_atomic(path, render(rows))
        written[kind] = path
    return written


def scored_from_record(record: dict[str, Any]) -> ScoredItem:
    """Rebuild the metrics input from one ``analysed.jsonl`` line (to recompute or filter metrics later)."""
    return ScoredItem(
        system=record["system"],
        lang=record["lang"],
        pos=record["pos"],
        outcome=record["result"],
        sense_rank=record["sense_rank"],
        polysemy_degree=record["polysemy_degree"],
        omega_rank=record.get("omega_rank") if record["result"] == "BAD" else None,
    )


def read_analysed(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _split_lines(_read_text(Path(path))) if line.strip()]


# --- terminal table -------------------------------------------------------------------------------------------------


def _left_out(count: int) -> str:
    return f", {count} left out" if count else ""


def _cell(rate: Rate, left_out: int = 0) -> str:
    percent = rate.percent
    value = "n/a" if percent is None else f"{percent:.2f}"
    return f"{value} ({rate.count}/{rate.total}{_left_out(left_out)})"


def _grouped_cell(percent: float | None, used: int, left_out: int = 0) -> str:
    value = "n/a" if percent is None else f"{percent:.2f}"
    return f"{value} ({used} group{'' if used == 1 else 's'}{_left_out(left_out)})"


def metrics_table_rows(metrics: MetricsReport) -> list[dict[str, str]]:
    """The table as rows of display strings (system, lang, pos, n, Accuracy, %MISS, MFS, MFS+, SFII, SPDI)."""
    rows = []
    for row in metrics.rows:
        rows.append(_display_row(row))
    return rows


def _display_row(row: Metrics) -> dict[str, str]:
    return {
        "system": row.system,
        "lang": row.lang,
        "pos": row.pos,
        "n": str(row.items),
        "Accuracy": _cell(row.accuracy),
        "%MISS": _cell(row.miss_rate),
        "MFS": _cell(row.mfs),
        "MFS+": _cell(row.mfs_plus, row.mfs_plus_left_out),
        "no prov.": str(row.bad_without_provenance),
        "SFII": _grouped_cell(row.sfii.percent, len(row.sfii.used), row.sfii.left_out),
        "SPDI": _grouped_cell(row.spdi.percent, len(row.spdi.used), row.spdi.left_out),
    }


def format_metrics_table(metrics: MetricsReport) -> str:
    """A fixed-width text table, counts beside every percentage; ``n/a`` where a denominator is empty.

    "no prov." counts the BAD results whose ω has no provenance (left out of MFS and MFS+); "N left out" in MFS+,
    SFII and SPDI counts the items without μ(σ) (MFS+, SFII) or δ(λ) (SPDI) in the dataset.
    """
    rows = metrics_table_rows(metrics)
    if not rows:
        return "no translations evaluated"
    columns = list(rows[0])
    widths = {name: max(len(name), *(len(row[name]) for row in rows)) for name in columns}
    left = {"system", "lang", "pos"}

    def render(values: dict[str, str]) -> str:
        cells = [values[n].ljust(widths[n]) if n in left else values[n].rjust(widths[n]) for n in columns]
        return "  ".join(cells).rstrip()

    lines = [render({name: name for name in columns}), "  ".join("-" * widths[name] for name in columns)]
    previous_scope: tuple[str, str] | None = None
    for row in rows:
        scope = (row["system"], row["lang"])
        if previous_scope is not None and scope != previous_scope and row["pos"] == ALL:
            lines.append("")
        previous_scope = scope
        lines.append(render(row))
    return "\n".join(lines)
