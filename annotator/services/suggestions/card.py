"""The Curate card's suggestions for one item-language: why G0 / B0 is empty, and the ranked suggestions.

Read in one transaction from what is kept (the lexicon record, the related and MT parts with their stamps) plus the
team's curated lists, looked up live by σ; only a missing or stale related part is computed (and kept) here.
``CurationService.handle`` reads ``card_view`` to know what an accept or a dismissal refers to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotator.context import ProjectContext
from annotator.domain.model import Item, ItemLanguage, User
from annotator.domain.settings import ProjectSettings
from annotator.domain.suggestions import (
    SHOWN_FIRST,
    KindRate,
    LexiconRecord,
    Suggestion,
    TeamCandidate,
    decode_suggestions,
    empty_reasons,
    encode_suggestions,
    rank_suggestions,
    team_suggestions,
)
from annotator.errors import UserError
from annotator.lexicon.base import LexiconQuotaError, LexiconUnavailableError
from annotator.services.suggestions.finder import Finder, project_finder, related_stamp, stamp_base
from annotator.services.suggestions.mt import MT_MARKER, mt_part, newest_evaluation_in, refresh_mt
from annotator.services.suggestions.rates import kind_rates_in
from annotator.store.repository import Repository
from annotator.store.suggestions import CachedSuggestions, TeamRow


@dataclass(frozen=True)
class CardSuggestions:
    """What the card shows: why G0 / B0 is empty ("" when it is not, or nothing was recorded) and the suggestions."""

    item_id: str
    lang: str
    good_empty_reason: str
    bad_empty_reason: str
    suggestions: tuple[Suggestion, ...]
    #: How many of ``suggestions`` are shown first (the rest wait behind one key).
    shown_first: int = 0
    #: The newest evaluation when the card was read (its MISS translations: ``miss_lines``); not part of what is
    #: shown or written, so a card equals its bulk twin.
    evaluation: int | None = field(default=None, compare=False)

    def to_line(self) -> dict[str, Any]:
        """The JSON line ``annotator suggestions`` writes."""
        return {
            "id": self.item_id,
            "lang": self.lang,
            "good_empty_reason": self.good_empty_reason,
            "bad_empty_reason": self.bad_empty_reason,
            "suggestions": [s.to_dict() for s in self.suggestions],
            "shown_first": self.shown_first,
        }


def team_of(
    repo: Repository, conn: Any, item: Item, lang: str, found: Sequence[TeamRow] | None = None
) -> tuple[list[Suggestion], list[Suggestion]]:
    """The team's suggestions for the item-language; ``found``: curated rows already read for several items (in
    bulk), else they are looked up for this item."""
    rank_of = {sense.synset: sense.rank for sense in item.senses}
    synsets = list(dict.fromkeys([item.synset, *rank_of]))
    if found is None:
        found = repo.team_rows(conn, synsets, lang, item.id)
    wanted = set(synsets)
    curated = [
        TeamCandidate(entry.format(), row.item_id, row.synset, row.user or "")
        for row in found
        if row.item_id != item.id and row.synset in wanted
        for entry in row.good_entries()
    ]
    return team_suggestions(item.synset, item.target.lemma, curated, rank_of)


def teams_of(
    repo: Repository, conn: Any, items: dict[str, Item], keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], tuple[list[Suggestion], list[Suggestion]]]:
    """The team's suggestions of a batch: one look-up per language for every sense of the batch's items."""
    result = {}
    for lang in sorted({lang for _i, lang in keys}):
        mine = [item_id for item_id, other in keys if other == lang and item_id in items]
        synsets = sorted({s for i in mine for s in (items[i].synset, *(x.synset for x in items[i].senses))})
        found: list[TeamRow] = []
        for start in range(0, len(synsets), 400):
            found += repo.team_rows(conn, synsets[start : start + 400], lang, "")
        by_synset: dict[str, list[TeamRow]] = {}
        for row in found:
            by_synset.setdefault(row.synset, []).append(row)
        for item_id in mine:
            item = items[item_id]
            near = [r for s in {item.synset, *(x.synset for x in item.senses)} for r in by_synset.get(s, ())]
            result[(item_id, lang)] = team_of(repo, conn, item, lang, near)
    return result


def fresh_related(finder: Finder, item: Item, lang: str, cached: CachedSuggestions | None) -> str | None:
    """The related part to keep when the cached one is missing or stale; None when it is current, or when the
    provider cannot answer now (quota, unreachable: the card shows what is kept, a later one asks again)."""
    if _current(cached, finder.stamp_base, item):
        return None
    try:
        return encode_suggestions(finder.related(item.synset, lang, _other_senses(item)))
    except (LexiconQuotaError, LexiconUnavailableError):
        return None


def _other_senses(item: Item) -> tuple[str, ...]:
    """The other senses of λ (Ω(λ) without σ), in rank order."""
    return tuple(sense.synset for sense in item.senses if sense.synset != item.synset)


def _current(cached: CachedSuggestions | None, base: str, item: Item) -> bool:
    """The kept related part was computed from ``base`` (``finder.stamp_base``) for the item's σ."""
    return cached is not None and cached.lexicon_stamp == related_stamp(base, item.synset)


def card_of(
    item: Item,
    state: ItemLanguage,
    record_json: str | None,
    related: str,
    mt: str,
    team: tuple[list[Suggestion], list[Suggestion]],
    dismissed: Iterable[str],
    evaluation: int | None = None,
    rates: Mapping[str, KindRate] | None = None,
) -> CardSuggestions:
    record = LexiconRecord.from_json(record_json) if record_json else None
    if record is not None and record.synset != item.synset:
        record = None  # σ changed since pre-population: the record no longer says why
    good_reason, bad_reason = empty_reasons(
        record, state.prepopulated and not state.initial_good, state.prepopulated and not state.initial_bad
    )
    suggestions = rank_suggestions(
        state,
        item.target.pos,
        team[0],
        decode_suggestions(related),
        decode_suggestions(mt),
        team[1],
        dismissed,
        {kind: rate.rate for kind, rate in (rates or {}).items()},
    )
    shown_first = min(SHOWN_FIRST, len(suggestions))
    return CardSuggestions(item.id, state.lang, good_reason, bad_reason, tuple(suggestions), shown_first, evaluation)


def card_view(project: ProjectContext, item_id: str, lang: str, user: User | None = None) -> CardSuggestions:
    """The card's reasons and suggestions for one item-language (``user``'s dismissals left out): read in one
    transaction from what is kept; only a missing or stale related part is computed (and kept) here."""
    return _card(project, item_id, lang.upper(), None, user)


def shown_card(project: ProjectContext, item: Item, state: ItemLanguage, user: User | None = None) -> CardSuggestions:
    """``card_view`` for an item-language a page has just read (``CurationService.view``): its item and state are
    not read a second time, and the evaluation the card was read with (``CardSuggestions.evaluation``) gives its
    MISS lines without looking it up again (``mt.miss_lines``) — each look-up is a query on every card's run."""
    return _card(project, item.id, state.lang.upper(), (item, state), user)


def _card(
    project: ProjectContext, item_id: str, lang: str, shown: tuple[Item, ItemLanguage] | None, user: User | None
) -> CardSuggestions:
    with project.db.read() as conn:
        if shown is None:
            item = project.repo.get_item(conn, item_id)
            state = project.repo.get_item_language(conn, item_id, lang)
            if item is None or state is None:
                raise UserError(f"No item-language {item_id} [{lang}] in this project.")
        else:
            item, state = shown
        raw = project.repo.get_meta(conn, "settings")  # here, not project.settings(): no transaction of its own
        settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()  # the stamp, the finder if needed
        if settings.lexicon.provider == "snapshot" and not settings.lexicon.snapshot:
            project.lexicon(settings)  # no lexicon to open: it refuses (as the finder would), before any other read
        record = project.repo.lexicon_record(conn, item_id, lang)
        cached = project.repo.cached_suggestions(conn, item_id, lang)
        team = team_of(project.repo, conn, item, lang)
        dismissed = project.repo.dismissed_keys(conn, item_id, lang, user.name) if user is not None else set()
        job_id = newest_evaluation_in(project.repo, conn)
        marked = project.repo.get_meta(conn, MT_MARKER) if job_id is not None else None
        rates = kind_rates_in(project.repo, conn, project.db.url)
    if job_id is not None and marked != job_id:
        refresh_mt(project, job_id)  # once per evaluation (normally done when it finished)
        with project.db.read() as conn:
            cached = project.repo.cached_suggestions(conn, item_id, lang)
    if _current(cached, stamp_base(project, settings), item):
        related = None  # the lexicon is not even opened
    else:
        finder = project_finder(project, settings)
        related = fresh_related(finder, item, lang, cached)
    if related is not None:
        base = cached or CachedSuggestions("", "[]", "", "[]")
        cached = base._replace(lexicon_stamp=finder.stamp(item.synset), related=related)
        with project.db.write() as conn:
            project.repo.put_cached_suggestions(conn, [(item_id, lang, cached)])
    related_part = cached.related if cached is not None else "[]"
    return card_of(item, state, record, related_part, mt_part(cached, job_id), team, dismissed, job_id, rates)
