"""Human inspection of evaluation results: a queue, a lead's verdicts, and metrics that use them.

Results where GOOD and BAD both matched, and any result a lead marks, wait in the queue until a lead records a
verdict (GOOD / BAD / MISS + note; who and when). A verdict is stored with a hash of the translation and the
item-language's candidates: while neither changes it replaces the matcher's outcome in the metrics (counted apart
as ``inspected``); once either changes it no longer applies and the result is back in the queue.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace

from annotator.clock import utc_now
from annotator.context import ProjectContext
from annotator.domain import workflow
from annotator.domain.matching import MatchResult, Outcome
from annotator.domain.metrics import compute_metrics
from annotator.domain.model import User
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.evaluation.run import AnalysedTranslation, EvaluationResult

VERDICTS = ("GOOD", "BAD", "MISS")


@dataclass(frozen=True)
class Inspection:
    """One stored row: who marked the result, and the verdict with the hash it was given for."""

    item_id: str
    lang: str
    system: str
    marked_by: str | None = None
    marked_at: str | None = None
    verdict: str | None = None
    note: str = ""
    verdict_hash: str | None = None
    decided_by: str | None = None
    decided_at: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.item_id, self.lang, self.system)


def result_key(result: AnalysedTranslation) -> tuple[str, str, str]:
    return (result.translation.item_id, result.translation.lang, result.translation.system)


def content_hash(result: AnalysedTranslation) -> str:
    """Hash of the translation and the item-language's GOOD and BAD candidates (order-insensitive)."""
    specs = result.item.specs(result.translation.lang)
    sides = {
        side: sorted(spec.candidate.format().casefold() for spec in specs if spec.side == side)
        for side in ("good", "bad")
    }
    payload = json.dumps([result.translation.text, sides["good"], sides["bad"]], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def load_inspections(project: ProjectContext) -> dict[tuple[str, str, str], Inspection]:
    with project.db.read() as conn:
        rows = project.repo.inspection_rows(conn)
    return {(r["item_id"], r["lang"], r["system"]): Inspection(**r) for r in rows}


def _upsert(project: ProjectContext, key: tuple[str, str, str], values: dict) -> None:
    with project.db.write() as conn:
        project.repo.upsert_inspection(conn, key, values)


def mark(project: ProjectContext, user: User, result: AnalysedTranslation) -> None:
    """Put a result in the inspection queue (a lead's decision)."""
    workflow.check_lead(user, "mark results for inspection")
    _upsert(project, result_key(result), {"marked_by": user.name, "marked_at": utc_now()})


def record_verdict(
    project: ProjectContext, user: User, result: AnalysedTranslation, verdict: str, note: str = ""
) -> None:
    """Store a lead's verdict for the result as it is now (translation + candidates)."""
    workflow.check_lead(user, "record inspection verdicts")
    if verdict not in VERDICTS:
        raise UserError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    check_storable("note", note)
    values = {
        "verdict": verdict,
        "note": note.strip(),
        "verdict_hash": content_hash(result),
        "decided_by": user.name,
        "decided_at": utc_now(),
    }
    _upsert(project, result_key(result), values)


def valid_verdict(
    result: AnalysedTranslation, inspections: dict[tuple[str, str, str], Inspection]
) -> Inspection | None:
    """The stored verdict for the result if it was given for the same translation and candidates."""
    found = inspections.get(result_key(result))
    if found is None or found.verdict is None or found.verdict_hash != content_hash(result):
        return None
    return found


def queue(result: EvaluationResult, inspections: dict[tuple[str, str, str], Inspection]) -> list[AnalysedTranslation]:
    """Results to inspect: GOOD and BAD both matched, or marked by a lead; and no verdict valid for them now."""
    out = []
    for analysed in result.results:
        wanted = analysed.match.both_matched or result_key(analysed) in inspections
        if wanted and valid_verdict(analysed, inspections) is None:
            out.append(analysed)
    return out


def apply_verdicts(result: EvaluationResult, inspections: dict[tuple[str, str, str], Inspection]) -> EvaluationResult:
    """The result with each valid verdict in place of the matcher's outcome; the metrics count them apart."""
    changed = []
    for analysed in result.results:
        found = valid_verdict(analysed, inspections)
        if found is not None and found.verdict is not None:  # valid_verdict gives only inspections with a verdict
            match = analysed.match
            outcome = Outcome(found.verdict)
            omega = match.omega if outcome != Outcome.MISS else None
            analysed = replace(analysed, match=MatchResult(outcome, omega, match.both_matched, match.matches))
            analysed = replace(analysed, inspected=True)
        changed.append(analysed)
    results = tuple(changed)
    return replace(result, results=results, metrics=compute_metrics(r.scored() for r in results))
