"""Whole-set edits: make G and B equal to lists of candidate lines (spreadsheet cells, bulk edits).

Kept apart from the one-at-a-time workflow actions because it must validate every line first and
report all problems together, and keep the origin and provenance of candidates that were already there.
"""

from __future__ import annotations

from dataclasses import replace

from annotator.domain import workflow
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.model import CandidateEntry, Item, ItemLanguage, Origin, User
from annotator.errors import UserError


class CandidateSetError(UserError):
    """One or more lines of a candidate set are invalid; ``problems`` lists them all."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def build_candidate_set(
    lines: list[str], target_pos: str, existing: dict[str, CandidateEntry], label: str
) -> tuple[tuple[CandidateEntry, ...], list[str]]:
    """Parse lines into entries, reusing existing entries (origin, provenance) by identity."""
    entries: list[CandidateEntry] = []
    problems: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if not line.strip():
            continue
        try:
            candidate = parse_candidate(line, target_pos)
        except CandidateError as error:
            problems.append(f"{label}: {error.message} [{error.rule}] in {error.text!r}")
            continue
        entry = CandidateEntry(candidate.text, candidate.pos, Origin.TRANSLATOR, ())
        if entry.key in seen:
            continue
        seen.add(entry.key)
        old = existing.get(entry.key)
        entries.append(replace(old, text=candidate.text) if old else entry)
    return tuple(entries), problems


def apply_candidate_sets(user: User, item: Item, il: ItemLanguage, good: list[str], bad: list[str]) -> ItemLanguage:
    """The item-language with G and B replaced; unchanged sets leave ``il`` untouched (a no-op)."""
    existing = {e.key: e for e in (*il.good, *il.bad, *il.initial_good, *il.initial_bad)}
    new_good, problems = build_candidate_set(good, item.target.pos, existing, "GOOD")
    new_bad, bad_problems = build_candidate_set(bad, item.target.pos, existing, "BAD")
    problems += bad_problems
    both = {e.key for e in new_good} & {e.key for e in new_bad}
    for key in sorted(both):
        problems.append(f"{key!r} is in both GOOD and BAD; a candidate belongs to one side")
    if problems:
        raise CandidateSetError(problems)
    if new_good == il.good and new_bad == il.bad:
        return il
    workflow.check_can_edit(user, il.lang)
    workflow.check_editable(il, user)
    status = workflow.status_after_edit(il)
    return replace(il, good=new_good, bad=new_bad, status=status)
