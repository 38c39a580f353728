"""Contrastive test-suite export (ContraWSD; WMT18 WSD test suite): score models by likelihood, not only by output.

For every reference translation whose matched candidate is GOOD, each BAD candidate of that item-language replaces
the matched span, giving one contrastive variant: a model that understands the sentence should score the reference
above every variant. The replacement is the lemma as curated, so a variant whose reference word was inflected (or
whose candidate is cross-PoS) is marked ``may_need_inflection``. References with no matched GOOD candidate, and
BAD candidates that cannot stand in a sentence as they are (wildcards), are listed, never silently dropped.

The files follow ContraWSD's JSON layout (a list of ``{"source", "reference", "errors": [{"contrastive"}]}``
objects, plus ``ambig word``, ``sense`` and ``original translation``), with our ids added.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.atomic_files import check_output_files, write_text_atomic
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.errors import UserError
from annotator.jsonl_files import jsonl_objects
from annotator.private_files import make_private_folder

REFERENCE_SYSTEM = "reference"
SCHEMA_FILE = "contrastive.schema.json"
SKIPPED_FILE = "contrastive-skipped.jsonl"


@dataclass(frozen=True)
class Skipped:
    """A reference (or one BAD candidate of it) that gave no variant, and why."""

    item_id: str
    lang: str
    reason: str
    candidate: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.item_id, "lang": self.lang, "reason": self.reason, "candidate": self.candidate}


@dataclass
class ContrastiveSuite:
    """Entries per language in ContraWSD's layout, and everything that gave no variant."""

    entries: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def variant_count(self) -> int:
        return sum(len(entry["errors"]) for entries in self.entries.values() for entry in entries)


def _bad_candidates(item: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    return list(((item.get("languages") or {}).get(lang) or {}).get("bad") or [])


def _variant(reference: str, start: int, end: int, candidate: Mapping[str, Any], inflected: bool) -> dict[str, Any]:
    parsed = parse_candidate(str(candidate["text"]))
    replacement = parsed.text
    return {
        "contrastive": reference[:start] + replacement + reference[end:],
        "replaced": reference[start:end],
        "replacement": replacement,
        "candidate": parsed.format(),
        "synsets": list(candidate.get("synsets") or []),
        "may_need_inflection": inflected or parsed.pos is not None,
    }


def build_suite(
    dataset: Mapping[str, Mapping[str, Any]],
    analysed: Iterable[Mapping[str, Any]],
    system: str = REFERENCE_SYSTEM,
) -> ContrastiveSuite:
    """The suite from the dataset (by item id) and the analysed lines of the reference ``system``."""
    suite = ContrastiveSuite()
    for record in analysed:
        if record.get("system") != system:
            continue
        item_id, lang = str(record["id"]), str(record["lang"])
        item = dataset.get(item_id)
        span = record.get("span")
        if item is None:
            suite.skipped.append(Skipped(item_id, lang, "the item is not in the dataset"))
            continue
        if record.get("result") != "GOOD" or record.get("omega_side") != "good" or not span:
            outcome = record.get("result") or "MISS"
            suite.skipped.append(Skipped(item_id, lang, f"no matched GOOD candidate in the reference ({outcome})"))
            continue
        reference = str(record["translation"])
        start, end = int(span[0]), int(span[1])
        matched = reference[start:end]
        inflected = matched.casefold() != str(record.get("omega") or "").casefold()
        errors = []
        for candidate in _bad_candidates(item, lang):
            try:
                parsed = parse_candidate(str(candidate["text"]))
            except CandidateError as error:
                suite.skipped.append(Skipped(item_id, lang, f"not a valid candidate ({error.rule})", candidate["text"]))
                continue
            if parsed.has_wildcard:
                reason = "a wildcard candidate cannot stand in a sentence as it is"
                suite.skipped.append(Skipped(item_id, lang, reason, parsed.format()))
                continue
            errors.append(_variant(reference, start, end, candidate, inflected))
        if not errors:
            suite.skipped.append(Skipped(item_id, lang, "no BAD candidate to substitute"))
            continue
        target = item.get("target") or {}
        suite.entries[lang].append(
            {
                "id": item_id,
                "lang": lang,
                "source": item.get("sentence"),
                "reference": reference,
                "ambig word": target.get("text"),
                "lemma": target.get("lemma"),
                "pos": target.get("pos"),
                "sense": item.get("synset"),
                "original translation": matched,
                "span": [start, end],
                "errors": errors,
            }
        )
    return suite


def dataset_path_of(evaluation: Path) -> Path:
    """The dataset.jsonl an evaluation folder was made from (metrics.json names it)."""
    metrics_path = evaluation / "metrics.json"
    try:
        named = json.loads(metrics_path.read_text(encoding="utf-8")).get("dataset")
    except (OSError, json.JSONDecodeError, AttributeError) as error:
        raise UserError(f"{metrics_path}: cannot read it to find the dataset; give --dataset.") from error
    for candidate in (Path(str(named)), evaluation / str(named)):
        if named and candidate.is_file():
            return candidate
    raise UserError(f"{metrics_path} names the dataset {named!r}, which is not there any more; give --dataset.")


def export_contrastive(
    evaluation: str | Path,
    out_dir: str | Path | None = None,
    dataset: str | Path | None = None,
    system: str = REFERENCE_SYSTEM,
) -> tuple[ContrastiveSuite, dict[str, Path]]:
    """Write ``contrastive-<LANG>.json`` per language and ``contrastive-skipped.jsonl`` (atomically)."""
    evaluation = Path(evaluation)
    dataset_file = Path(dataset) if dataset else dataset_path_of(evaluation)
    items = {str(record.get("id")): record for _, record in jsonl_objects(dataset_file)}
    analysed = (record for _, record in jsonl_objects(evaluation / "analysed.jsonl"))
    suite = build_suite(items, analysed, system)
    if not suite.entries and not suite.skipped:
        raise UserError(
            f"{evaluation / 'analysed.jsonl'} has no translation of the system {system!r}: evaluate the references "
            f"as that system first (a translations file whose 'system' is {system!r})."
        )
    target = Path(out_dir) if out_dir else evaluation
    outputs = [target / f"contrastive-{lang}.json" for lang in suite.entries] + [target / SKIPPED_FILE]
    check_output_files(outputs)  # all refused before the first is written
    make_private_folder(target)
    written: dict[str, Path] = {}
    for lang, entries in sorted(suite.entries.items()):
        path = target / f"contrastive-{lang}.json"
        write_text_atomic(path, json.dumps(entries, ensure_ascii=False, indent=1) + "\n")
        written[lang] = path
    skipped_path = target / SKIPPED_FILE
    write_text_atomic(skipped_path, "".join(json.dumps(s.to_dict(), ensure_ascii=False) + "\n" for s in suite.skipped))
    written["skipped"] = skipped_path
    return suite, written
