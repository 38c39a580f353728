"""Refinement records built from ``ItemLanguage`` dataclasses: an oracle for the statistics the export computes
from stored rows (``data_export.selection``), and the hand-worked examples' input."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Status
from annotator.domain.refinement_stats import RefinementRecord


def identities(entries: Iterable[CandidateEntry]) -> frozenset[str]:
    """The §3 identities of a candidate set (so `Quelle` and `quelle` count once)."""
    return frozenset(entry.key for entry in entries)


def records_from_states(states: Iterable[ItemLanguage], synset_of: Mapping[str, str]) -> list[RefinementRecord]:
    """Records of the ``done`` item-languages among ``states``; ``synset_of`` maps item id to σ."""
    return [
        RefinementRecord(
            s.item_id,
            s.lang,
            synset_of[s.item_id],
            identities(s.initial_good),
            identities(s.good),
            identities(entry for entry in s.good if entry.origin is Origin.LEXICON),
        )
        for s in states
        if s.status is Status.DONE
    ]
