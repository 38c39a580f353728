"""The team's decisions per kind of suggestion: accepts and dismissals counted per kind, giving the rates the
cards rank by and the Project page's table."""

from __future__ import annotations

import json
import time
from typing import Any

from annotator.context import ProjectContext
from annotator.domain.suggestions import KindRate, Suggestion, candidate_key, decode_suggestions, kind_of, kind_rates
from annotator.store.repository import Repository
from annotator.store.suggestions import CachedSuggestions, Decision
from annotator.versioned_cache import VersionedCache

#: Seconds a process keeps the project's rates per kind before reading the decisions again.
RATES_KEPT_SECONDS = 60.0
#: Per database and ``RATES_KEPT_SECONDS`` window of the clock: the rates per kind.
_rates: VersionedCache[dict[str, KindRate]] = VersionedCache(keep=1)


def _decided_kind(decision: Decision, cached: CachedSuggestions | None) -> tuple[str, str] | None:
    """(kind, side) of an accepted or dismissed suggestion: from the provenance an accept recorded, else from the
    item-language's kept suggestions holding the word, else the team's (the part read live, not kept)."""
    detail: dict[str, Any] = {}
    if decision.accepted:
        try:
            detail = json.loads(decision.detail) or {}
        except ValueError:
            detail = {}
        if not isinstance(detail, dict):
            return None
    text = str(detail.get("candidate") or detail.get("text") or "")
    key = candidate_key(text) if decision.accepted else decision.key
    side = str(detail.get("side") or "GOOD").upper()
    source = detail.get("suggestion_source", detail.get("source"))
    relation = detail.get("suggestion_relation", detail.get("relation"))
    if isinstance(source, str) and isinstance(relation, str):
        return kind_of(Suggestion(text, side, source, relation, "", "")), side
    for part in (cached.related, cached.mt) if cached is not None else ():
        for suggestion in decode_suggestions(part):
            if suggestion.key == key:
                return kind_of(suggestion), side
    return kind_of(Suggestion(text, "BAD" if side == "BAD" else "GOOD", "team", "", "", "")), side


def kind_rates_in(repo: Repository, conn: Any, url: str) -> dict[str, KindRate]:
    """The rates the ranking uses per kind: the measured precision, moved by the team's own accepts and dismissals
    once a kind has enough (``domain.suggestions.kind_rates``). Read at most every ``RATES_KEPT_SECONDS`` per
    process (a decision changes the rates little; the card stays one cheap read)."""
    return _rates.get(url, _window(), lambda: _read_rates(repo, conn))


def _window() -> int:
    """The ``RATES_KEPT_SECONDS`` window of the clock the kept rates belong to."""
    return int(time.monotonic() // RATES_KEPT_SECONDS)


def _read_rates(repo: Repository, conn: Any) -> dict[str, KindRate]:
    found = repo.suggestion_decisions(conn)
    cached = repo.cached_suggestions_of(conn, list(dict.fromkeys((d.item_id, d.lang) for d in found)))
    counts: dict[str, list[int]] = {}
    for decision in found:
        kind = _decided_kind(decision, cached.get((decision.item_id, decision.lang)))
        if kind is None:
            continue
        entry = counts.setdefault(kind[0], [0, 0])
        entry[0 if decision.accepted else 1] += 1
    return kind_rates({kind: (a, d) for kind, (a, d) in counts.items()})


def suggestion_kinds(project: ProjectContext, fresh: bool = False) -> list[KindRate]:
    """The Project page's suggestion table: per kind, the measured precision, the team's accepts and dismissals
    and the rate the ranking uses, best first (as the cards use them; ``fresh``: read the decisions now)."""
    if fresh:
        _rates.clear(project.db.url)

    def read() -> dict[str, KindRate]:
        with project.db.read() as conn:  # a transaction only when the kept rates are too old
            return _read_rates(project.repo, conn)

    rates = _rates.get(project.db.url, _window(), read)
    return sorted(rates.values(), key=lambda rate: -rate.rate)
