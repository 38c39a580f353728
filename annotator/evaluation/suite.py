"""Scoring a published test suite's human references as a system: a check of the matcher's fidelity.

Every MuCoW reference contains a correct-sense word by construction, so each BAD is a false BAD and each MISS a
miss of the matcher. Keys that list inflected forms of one lemma on both sides (``акра``/``акр``) are scored like
every other line: specificity (SPEC §8 step 4, ``docs/MATCHING.md``) settles them. Each false BAD gets its cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from annotator.analysis.base import Analyser
from annotator.data_import.mucow import MucowLine, mucow_dataset_records
from annotator.domain.matching import MatchResult, Step

if TYPE_CHECKING:
    from annotator.evaluation.run import AnalysedTranslation

#: Why a reference scored BAD: ω (a negative key word: the suite's own ambiguity) as written or inflected, alone or
#: beside a GOOD candidate on another word (a conflict specificity does not settle; MuCoW's per-sentence order
#: would score the inflected ones GOOD).
WRITTEN = "BAD as written"
INFLECTED = "BAD inflected (through its lemma)"
BESIDE_GOOD = ", a GOOD candidate on another word"


@dataclass
class SuiteReport:
    """Counts for one language pair, and the lines behind the false BADs and MISSes."""

    lang: str
    lines: int = 0
    good: int = 0
    bad: int = 0
    miss: int = 0
    #: false BADs whose ω matched only through the candidate's analysed form (must be 0)
    bad_from_candidate_analysis: int = 0
    #: (line, ω, step, cause, reference) of each false BAD
    bad_lines: list[tuple[int, str, str, str, str]] = field(default_factory=list)
    miss_lines: list[tuple[int, str]] = field(default_factory=list)
    steps: dict[str, int] = field(default_factory=dict)
    #: (line, GOOD / BAD / MISS) of every line, in order
    verdicts: list[tuple[int, str]] = field(default_factory=list)

    def causes(self) -> dict[str, int]:
        """How many false BADs each cause explains."""
        counts: dict[str, int] = {}
        for _, _, _, cause, _ in self.bad_lines:
            counts[cause] = counts.get(cause, 0) + 1
        return counts


def bad_cause(match: MatchResult, text: str) -> str:
    """Whether ω is in the text as written or inflected, and whether a GOOD candidate counts too."""
    omega = match.omega
    cause = INFLECTED
    if omega is not None and omega.span is not None and omega.step != Step.STEM:
        start, end = omega.span
        if text[start:end].casefold() == omega.text.casefold():
            cause = WRITTEN
    return cause + (BESIDE_GOOD if match.both_matched else "")


def score_system(
    lines: list[MucowLine], lang: str, analyser: Analyser, texts: list[str], system: str
) -> tuple[AnalysedTranslation, ...]:
    """Evaluate ``texts`` (one per line of ``lines``, one language) as a system with the full evaluation pipeline."""
    from annotator.evaluation.inputs import Translation, dataset_from_records
    from annotator.evaluation.run import evaluate

    dataset = dataset_from_records(mucow_dataset_records(lines, lang), f"mucow-{lang}")
    translations = [
        Translation(line.item_id, lang, system, text, line.line) for line, text in zip(lines, texts, strict=True)
    ]
    return evaluate(dataset, translations, analyser).results


def score_references(lines: list[MucowLine], lang: str, analyser: Analyser) -> SuiteReport:
    """Evaluate the references of ``lines`` (one language) as a system with the full evaluation pipeline."""
    by_id = {line.item_id: line for line in lines}
    results = score_system(lines, lang, analyser, [line.reference or "" for line in lines], "reference")
    report = SuiteReport(lang=lang, lines=len(lines))
    for analysed in results:
        line = by_id[analysed.translation.item_id]
        outcome = str(analysed.outcome)
        report.verdicts.append((line.line, outcome))
        omega = analysed.match.omega
        if omega is not None:
            step = str(omega.step) + ("" if omega.as_typed else "+analysed")
            report.steps[step] = report.steps.get(step, 0) + 1
        if outcome == "GOOD":
            report.good += 1
        elif outcome == "MISS":
            report.miss += 1
            report.miss_lines.append((line.line, line.reference or ""))
        else:
            report.bad += 1
            if omega is not None and not omega.as_typed:
                report.bad_from_candidate_analysis += 1
            found = (omega.text, str(omega.step)) if omega is not None else ("", "")
            cause = bad_cause(analysed.match, analysed.analysis.text)
            report.bad_lines.append((line.line, *found, cause, line.reference or ""))
    return report
