"""Running an evaluation (SPEC §8): analyse candidates and translations, match, keep the results, write them.

Called by ``annotator evaluate`` and by the Evaluate page, so it takes text or paths, reports progress through a
callback and returns plain dataclasses with ``to_dict()``; it never prints and never imports a UI.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from annotator.analysis.base import ANALYSERS, Analyser, Analysis, empty_analysis
from annotator.atomic_files import check_output_files, write_text_atomic
from annotator.clock import utc_now
from annotator.domain.candidates import Candidate
from annotator.domain.consistency import SenseChoice, cross_language_consistency
from annotator.domain.matching import (
    CandidateSet,
    MatchResult,
    Outcome,
    candidate_segments,
    candidate_set,
    compile_candidate,
    match_stem_step,
    match_translation,
)
from annotator.domain.metrics import MetricsReport, ScoredItem, compute_metrics, omega_rank
from annotator.domain.research_metrics import DomainRates, domain_breakdown
from annotator.errors import UserError
from annotator.evaluation.inputs import (
    Dataset,
    DatasetItem,
    Translation,
    Translations,
    load_dataset,
    load_translations,
)
from annotator.evaluation.provenance import file_provenance
from annotator.gc_pause import gc_paused
from annotator.private_files import make_private_folder
from annotator.progress import ProgressCallback, no_progress

ANALYSED_FILE = "analysed.jsonl"
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False)
METRICS_FILE = "metrics.json"
DEFAULT_BATCH_SIZE = 256


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
    #: the outcome is a lead's inspection verdict (see ``annotator.evaluation.inspection``)
    inspected: bool = False

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
            inspected=self.inspected,
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
            "inspected": self.inspected,
            "matches": [match.to_dict() for match in self.match.matches],
            "sentence": self.item.sentence,
            "lemma": self.item.lemma,
            "pos": self.item.pos,
            "synset": self.item.synset,
            "sense_rank": self.item.sense_rank,
            "polysemy_degree": self.item.polysemy_degree,
            **({"domain": self.item.domain} if self.item.domain else {}),
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
    created: str = field(default_factory=lambda: utc_now("seconds"))
    #: well-formed translations not scored, by reason (see SKIP_REASONS): their item-language is not in the dataset
    skipped: dict[str, int] = field(default_factory=dict)
    #: what the run was computed from (``annotator.evaluation.provenance``); empty when the caller gave none
    provenance: dict[str, Any] = field(default_factory=dict)
    #: the first skipped lines (``inputs.SkippedLine``), for listing them; ``skipped`` has the full counts
    skipped_lines: tuple[Any, ...] = ()

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())

    def with_outcome(self, outcome: str | Outcome) -> list[AnalysedTranslation]:
        """The MISS (or BAD...) translations, for sending translators back to the items."""
        return [result for result in self.results if result.match.outcome == Outcome(outcome)]

    @functools.cached_property
    def by_domain(self) -> list[DomainRates]:
        """The breakdown by domain (empty when no item has one), computed once per result: the page and the files
        it writes ask for it again."""
        return domain_breakdown((r.translation.system, r.item.domain, str(r.outcome)) for r in self.results)

    def metrics_document(self) -> dict[str, Any]:
        by_domain = self.by_domain
        return {
            "format": "annotator-evaluation-metrics",
            "format_version": 1,
            "created": self.created,
            "analyser": self.analyser,
            "dataset": self.dataset_source,
            "translations": self.translations_source,
            "translation_count": len(self.results),
            "skipped": dict(self.skipped),
            "provenance": self.provenance,
            **self.metrics.to_dict(),
            "consistency": [pair.to_dict() for pair in cross_language_consistency(self.sense_choices())],
            **({"by_domain": [row.to_dict() for row in by_domain]} if by_domain else {}),
        }

    def sense_choices(self) -> Iterable[SenseChoice]:
        """Each result's matched candidate and its provenance, for the cross-language consistency (DiBiMT §4.6)."""
        for result in self.results:
            omega = result.match.omega
            synsets = None if omega is None else tuple(omega.synsets)
            yield SenseChoice(result.translation.system, result.translation.item_id, result.translation.lang, synsets)


def _compile_language(
    dataset: Dataset,
    item_ids: Iterable[str],
    lang: str,
    analyser: Analyser,
    batch_size: int,
) -> dict[str, CandidateSet]:
    """Compile the candidates of every item in ``lang``, analysing all their segments in batches, once."""
    ids = sorted(set(item_ids))
    candidates: dict[tuple[str, str | None], Candidate] = {}  # made once per language from the stored specs
    stored = [dataset.items[item_id].candidates[lang] for item_id in ids]
    for specs in stored:
        for spec in specs:
            if spec[:2] not in candidates:
                candidates[spec[:2]] = Candidate(spec[0], spec[1])
    segments = sorted({segment for candidate in candidates.values() for segment in candidate_segments(candidate)})
    analyses: dict[str, Analysis] = {}
    for start in range(0, len(segments), batch_size):
        batch = segments[start : start + batch_size]
        analysed = analyser.with_stems(_analyse(analyser, batch, lang), lang)
        analyses.update(zip(batch, analysed, strict=True))
    compiled: dict[str, CandidateSet] = {}
    memo: dict[Candidate, Any] = {}  # items of one lemma share most candidates: compile each once
    for item_id, specs in zip(ids, stored, strict=True):
        compiled[item_id] = candidate_set(
            compile_candidate(
                candidates[spec[:2]],
                spec[2],
                index=spec[3],
                synsets=spec[4:],  # text, tag, side, position, synsets (``inputs.StoredSpec``)
                segment_analyses=analyses,
                memo=memo,
            )
            for spec in specs
        )
    return compiled


def _analyse(analyser: Analyser, texts: Sequence[str], lang: str) -> list[Analysis]:
    """Analyse non-empty texts in one call (backends may choke on empty strings); keep the order."""
    wanted = [i for i, text in enumerate(texts) if text.strip()]
    analysed = analyser.analyse([texts[i] for i in wanted], lang) if wanted else []
    if len(analysed) != len(wanted):
        raise RuntimeError(f"analyser {analyser.name!r} returned {len(analysed)} analyses for {len(wanted)} texts")
    if len(wanted) == len(texts):
        return list(analysed)  # the usual case: no placeholder analyses to build and throw away
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
    with gc_paused(age_survivors=True):  # the run's compiled candidates and analyses are no cyclic garbage
        return _evaluate(dataset, translations, analyser, progress, batch_size, translations_source)


def _evaluate(
    dataset: Dataset,
    translations: Sequence[Translation],
    analyser: Analyser,
    progress: ProgressCallback,
    batch_size: int,
    translations_source: str,
) -> EvaluationResult:
    total = len(translations)
    by_lang: dict[str, list[int]] = defaultdict(list)
    for index, translation in enumerate(translations):
        by_lang[translation.lang].append(index)
    analyser.prepare(sorted(by_lang))
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
            matches = [
                match_translation(analysis, patterns[translations[index].item_id])
                for index, analysis in zip(batch, analyses, strict=True)
            ]
            missed = [n for n, match in enumerate(matches) if match.outcome == Outcome.MISS and analyses[n].words]
            if missed:  # the last step, for the batch's translations nothing else matched: their stems in one call
                stemmed = analyser.with_stems([analyses[n] for n in missed], lang)
                for n, analysis in zip(missed, stemmed, strict=True):
                    analyses[n] = analysis
                    matches[n] = match_stem_step(analysis, patterns[translations[batch[n]].item_id])
            for index, analysis, match in zip(batch, analyses, matches, strict=True):
                translation = translations[index]
                item = dataset.items[translation.item_id]
                rank = omega_rank(match.omega.synsets, item.sense_ranks) if match.omega else None
                slots[index] = AnalysedTranslation(translation, item, analysis, match, rank)
            done += len(batch)
            progress(done, total, f"{lang}: analysed {done}/{total}")
    results = tuple(result for result in slots if result is not None)
    metrics = compute_metrics(result.scored() for result in results)
    skipped = translations.skipped if isinstance(translations, Translations) else {}
    lines = tuple(translations.skipped_lines) if isinstance(translations, Translations) else ()
    return EvaluationResult(
        results, metrics, analyser.name, dataset.source, translations_source, skipped=dict(skipped), skipped_lines=lines
    )


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
    options = {"analyser": analyser.name, "stanza_models": None if stanza_models is None else str(stanza_models)}
    provenance = file_provenance(dataset_path, [(str(translations_path), translations_path)], analyser, options)
    result = replace(result, provenance=provenance)
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
        make_private_folder(folder)
    except OSError as error:
        raise UserError(f"{folder}: cannot create the output folder ({error.strerror})") from error
    analysed = folder / ANALYSED_FILE
    metrics = folder / METRICS_FILE
    check_output_files((analysed, metrics))
    encode = _LINE_ENCODER.encode  # ``json.dumps``' output, without building an encoder for every line
    lines = "".join([encode(r.to_dict()) + "\n" for r in result.results])
    write_text_atomic(analysed, lines)
    write_text_atomic(metrics, json.dumps(result.metrics_document(), ensure_ascii=False, indent=2) + "\n")
    return {"analysed": analysed, "metrics": metrics}
