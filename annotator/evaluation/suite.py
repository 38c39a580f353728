"""Scoring a published test suite's human references as a system: a check of the matcher's fidelity.

Every MuCoW reference contains a correct-sense word by construction, so each BAD is a false BAD and each MISS a
miss of the matcher. Lines whose key lists inflected forms of one lemma on both sides (``акр``/``акра``) cannot be
scored right by any lemma-based matcher; they are counted and listed apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotator.analysis.base import Analyser
from annotator.data_import.mucow import MucowLine, mucow_dataset_records


@dataclass
class SuiteReport:
    """Counts for one language pair, and the lines behind the false BADs and MISSes."""

    lang: str
    lines: int = 0
    good: int = 0
    bad: int = 0
    miss: int = 0
    #: false BADs on lines whose key has one lemma on both sides (listed apart)
    bad_same_lemma: int = 0
    #: false BADs whose ω matched only through the candidate's analysed form (must be 0)
    bad_from_candidate_analysis: int = 0
    same_lemma_lines: list[int] = field(default_factory=list)
    bad_lines: list[tuple[int, str, str, str]] = field(default_factory=list)
    miss_lines: list[tuple[int, str]] = field(default_factory=list)
    steps: dict[str, int] = field(default_factory=dict)

    @property
    def bad_outside(self) -> int:
        return self.bad - self.bad_same_lemma


def same_lemma_key(line: MucowLine, analyser: Analyser, lang: str) -> bool:
    """True when a positive and a negative word of the key share a lemma reading (``акр``/``акра``)."""
    words = list(line.positive) + list(line.negative)
    analyses = analyser.analyse(words, lang)

    def readings(index: int) -> set[str]:
        analysis = analyses[index]
        found = {w.casefold() for w in analysis.words} | {x.casefold() for x in analysis.lemmas}
        for extra in getattr(analysis, "readings", ()) or ():
            found.update(x.casefold() for x in extra)
        return found

    positive = set().union(*(readings(i) for i in range(len(line.positive))))
    negative = [readings(len(line.positive) + i) for i in range(len(line.negative))]
    return any(positive & other for other in negative)


def score_references(lines: list[MucowLine], lang: str, analyser: Analyser) -> SuiteReport:
    """Evaluate the references of ``lines`` (one language) as a system with the full evaluation pipeline."""
    from annotator.evaluation.inputs import Translation, dataset_from_records
    from annotator.evaluation.run import evaluate

    dataset = dataset_from_records(mucow_dataset_records(lines, lang), f"mucow-{lang}")
    by_id = {line.item_id: line for line in lines}
    translations = [Translation(line.item_id, lang, "reference", line.reference or "", line.line) for line in lines]
    result = evaluate(dataset, translations, analyser)
    report = SuiteReport(lang=lang, lines=len(lines))
    for analysed in result.results:
        line = by_id[analysed.translation.item_id]
        outcome = str(analysed.outcome)
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
            assert omega is not None
            if not omega.as_typed:
                report.bad_from_candidate_analysis += 1
            if same_lemma_key(line, analyser, lang):
                report.bad_same_lemma += 1
                report.same_lemma_lines.append(line.line)
            else:
                report.bad_lines.append((line.line, omega.text, str(omega.step), line.reference or ""))
    return report
