"""Run pre-population over a project: fetch from the lexicon, compute G0/B0, save in small batches.

Resumable by construction: only item-languages not yet pre-populated are touched, each batch commits on
its own, and when the lexicon refuses (quota, invalid key) the work finished so far is saved first.
What cannot be done for one item (its synset is not in the lexicon, an odd answer) is skipped and
reported by item and language, and the run goes on; the audit says whether a run was clean, partial
or stopped. Memory stays bounded: the work list holds ids only, and rows are read a batch at a time.

A redo (``Redo``) pre-populates chosen items or languages again, done or not: after a lexicon fault recorded
bad sets, or when the lexicon's data changed. It never overwrites a translator's work silently: curated
item-languages are left as they are and named, unless forced (then they are reopened, with their previous
state kept in the history).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from annotator.context import ProjectContext
from annotator.domain.model import Item, ItemLanguage, SenseEntry, Status, User
from annotator.domain.settings import ProjectSettings
from annotator.errors import UserError
from annotator.gc_pause import YoungPasses, age_objects_alive, gc_paused
from annotator.lexicon.base import (
    ENGLISH,
    Lexicon,
    LexiconError,
    LexiconQuotaError,
    LexiconUnavailableError,
)
from annotator.lexicon.licences import lexicon_provenance
from annotator.lexicon.sources import allowed_sources
from annotator.lexicon.wordnet import default_sources, foreign_synset_reason
from annotator.progress import ProgressCallback, no_progress
from annotator.services import administration
from annotator.services.prepopulate_lexicon import SETS_KEPT, EncodedSets, SenseInventory
from annotator.services.suggestions.finder import RelatedParts
from annotator.store.item_languages import ListSave, candidates_to_json
from annotator.store.prepopulation import PendingState
from annotator.store.repository import PreparedSaves
from annotator.store.rows import dumps

SYSTEM_USER = "system:prepopulate"
#: Items per batch: one read, then one short write transaction (≤ 5 × this many item-language rows).
BATCH_SIZE = 200
#: The collector is paused for a run; its young objects are collected after a batch once they number this many,
#: or up to the cap while the passes find next to no cyclic garbage (``YoungPasses``).
YOUNG_OBJECTS_COLLECTED = 200_000
YOUNG_OBJECTS_CAP = 1_000_000
#: Skipped item-languages named in the audit row (all of them are counted).
AUDIT_SKIPPED_SHOWN = 100
#: Redo runs are audited under their own action, with the choice that was made.
REDO_ACTION = "prepopulate-redo"


@dataclass(frozen=True)
class Redo:
    """Pre-populate again item-languages that are already done (all of the run's languages, or these items).

    Only item-languages nobody has curated yet (pending, GOOD/BAD still the G0/B0) are redone, unless ``force``:
    then curated ones go back to pending with the new G0/B0 as their GOOD/BAD, their history keeping what they
    held (status, GOOD/BAD, notes) — as when an import changes an item's sense.
    """

    items: tuple[str, ...] | None = None
    force: bool = False
    #: Only the item-languages whose G0/B0 the lexicon now gives differently (a repair after the lexicon's forms
    #: changed): the others are left as they are, untouched, and counted as unchanged.
    changed_only: bool = False


def is_curated(state: ItemLanguage) -> bool:
    """Has someone worked on this item-language (any status but pending, or GOOD/BAD changed from G0/B0)?"""
    return state.status is not Status.PENDING or (state.good, state.bad) != (state.initial_good, state.initial_bad)


@dataclass(frozen=True)
class Skipped:
    """An item-language pre-population could not do, and why (it stays to do; a later run tries again)."""

    item_id: str
    lang: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item_id} [{self.lang}]: {self.reason}"


@dataclass
class PrepopulationReport:
    items: int = 0
    item_languages: int = 0
    already_done: int = 0
    overlaps: int = 0
    warnings: list[str] = field(default_factory=list)
    stopped: str | None = None
    requests: dict[str, int] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    #: Items left out because a lead excluded them (pre-populated if they are included again).
    excluded: int = 0
    #: How many of the first ``warnings`` are skipped-item messages (kept first so a short list shows them).
    skip_warnings: int = 0
    #: Redo only: curated item-languages left as they are (item id, lang, status), and how many were reopened.
    curated_kept: list[tuple[str, str, str]] = field(default_factory=list)
    reopened: int = 0
    redo: Redo | None = None
    #: Redo with ``changed_only``: item-languages whose G0/B0 came out as they were (left untouched).
    unchanged: int = 0
    #: Per language: how many item-languages pre-populated start with an empty GOOD list, and with an empty BAD one.
    empty_good: dict[str, int] = field(default_factory=dict)
    empty_bad: dict[str, int] = field(default_factory=dict)
    #: Per language: how many item-languages were pre-populated.
    per_language: dict[str, int] = field(default_factory=dict)
    #: Languages the lexicon has nothing for (a wordnet project without a lexicon of that language).
    no_lexicon: list[str] = field(default_factory=list)

    def warn_skipped(self, message: str) -> None:
        self.warnings.insert(self.skip_warnings, message)
        self.skip_warnings += 1

    @property
    def outcome(self) -> str:
        """``clean`` (everything done), ``partial`` (some item-languages skipped) or ``stopped``."""
        if self.stopped:
            return "stopped"
        return "partial" if self.skipped else "clean"

    def failed_items(self) -> list[str]:
        """Ids of the items with a skipped item-language, in the order they were met."""
        return list(dict.fromkeys(s.item_id for s in self.skipped))

    def failure_message(self, shown: int = 20) -> str:
        """What failed, for the command line and the job: how many, and which (the first ``shown`` items)."""
        items = self.failed_items()
        listed = ", ".join(items[:shown]) + (f" and {len(items) - shown} more" if len(items) > shown else "")
        return f"{len(self.skipped)} item-language(s) of {len(items)} item(s) failed: {listed}"

    def summary(self) -> str:
        parts = [
            f"{self.item_languages} item-languages pre-populated over {self.items} items",
            f"{self.already_done} already done",
            f"{self.overlaps} overlap(s) to decide (a GOOD word the lexicon also gives for another sense of the "
            "lemma: kept in GOOD, flagged in Curate for a translator)",
        ]
        if self.per_language:
            parts.append("starting with an empty GOOD / BAD list: " + self.empty_lists())
        if self.no_lexicon:
            parts.append(
                f"NO LEXICON for {', '.join(self.no_lexicon)}: every list of it starts empty (add a lexicon of that "
                "language, then 'annotator prepopulate --redo')"
            )
        if self.skipped:
            items = len({s.item_id for s in self.skipped})
            parts.append(f"{len(self.skipped)} item-language(s) of {items} item(s) skipped (listed in the warnings)")
        if self.excluded:
            parts.append(f"{self.excluded} excluded item(s) left out")
        if self.redo is not None and self.redo.changed_only:
            parts.append(f"{self.unchanged} unchanged (the lexicon gives the same G0/B0: left untouched)")
        if self.reopened:
            parts.append(f"{self.reopened} curated item-language(s) reopened (forced)")
        if self.curated_kept:
            parts.append(f"{len(self.curated_kept)} curated item-language(s) left as they are (--force redoes them)")
        if self.requests:
            parts.append(", ".join(f"{k}: {v}" for k, v in sorted(self.requests.items())))
        return "; ".join(parts) + f" ({OUTCOME_WORDS[self.outcome]})"

    def empty_lists(self) -> str:
        """Per language, how many of its item-languages start with an empty GOOD and an empty BAD list."""
        return ", ".join(
            f"{lang} {self.empty_good.get(lang, 0)} / {self.empty_bad.get(lang, 0)} of {count}"
            for lang, count in sorted(self.per_language.items())
        )


#: What a run's outcome means, in the summary's own words.
OUTCOME_WORDS = {
    "clean": "clean run: every item-language done, none skipped",
    "partial": "partial run: some item-languages skipped; run again to retry them",
    "stopped": "stopped: the work saved so far is kept; run again to go on",
}


def _lexicon_counters(lexicon: Lexicon) -> dict[str, int]:
    """Requests made vs served from cache, per endpoint, for providers that count them (BabelNet)."""
    counts = getattr(lexicon, "counts", None)
    if not isinstance(counts, dict):
        return {}
    flat: dict[str, int] = {}
    for endpoint, count in counts.items():
        flat[f"{endpoint} requests"] = count.requests
        flat[f"{endpoint} from cache"] = count.cache_hits
    return flat


def _warn_about_sets(item: Item, lang: str, sets: EncodedSets, warnings: list[str]) -> None:
    """What the report says of one item-language's G0/B0: lemmas left out, and an empty G0."""
    if sets.skipped:
        warnings.extend(
            f"{item.id} [{lang}]: lexicon lemma {lemma!r} is not a valid candidate; left out" for lemma in sets.skipped
        )
    if not sets.good_count:
        warnings.append(f"{item.id} [{lang}]: no {lang} lexicalization of {item.synset} from allowed sources")


def _overlaps_json(sets: EncodedSets) -> str:
    return dumps(list(sets.overlaps)) if sets.overlaps else "[]"


def _first_save(state: PendingState, sets: EncodedSets, detail: str) -> ListSave:
    """A first run's save: G0/B0, their overlaps, and GOOD/BAD = G0/B0 when nobody had touched them."""
    untouched = state.untouched
    return ListSave(
        state.item_id, state.lang, state.version, sets.good if untouched else state.good,
        sets.bad if untouched else state.bad, sets.good, sets.bad, _overlaps_json(sets), detail,
    )  # fmt: skip


def _prepopulated_state(
    item: Item, state: ItemLanguage, sets: EncodedSets, warnings: list[str]
) -> tuple[ItemLanguage, dict[str, str]]:
    """The state to save, and what pre-population changes in it already encoded (``prepare_saves``'s
    ``encoded_lists``, saved with ``prepopulated=True``): G0/B0, their overlaps, and GOOD/BAD = G0/B0 when nobody
    had touched them (the state itself is not copied: its own lists and overlaps are replaced on saving)."""
    _warn_about_sets(item, state.lang, sets, warnings)
    lists = {"initial_good": sets.good, "initial_bad": sets.bad, "overlaps": _overlaps_json(sets)}
    if state.status is Status.PENDING and not state.good and not state.bad:
        lists.update(good=sets.good, bad=sets.bad)
    return state, lists


def _same_sets(state: ItemLanguage, sets: EncodedSets) -> bool:
    """Whether the new G0/B0 are the ones the item-language was pre-populated with."""
    return (candidates_to_json(state.initial_good), candidates_to_json(state.initial_bad)) == (sets.good, sets.bad)


def _redone_state(
    item: Item, state: ItemLanguage, sets: EncodedSets, warnings: list[str]
) -> tuple[ItemLanguage, dict[str, str], dict[str, object]]:
    """A done item-language pre-populated again: new G0/B0, and GOOD/BAD set to them. A curated one (only
    reached when forced) goes back to pending; the history detail keeps everything it held."""
    detail: dict[str, object] = {
        "redo": True,
        "previous_good": [c.text for c in state.good],
        "previous_bad": [c.text for c in state.bad],
    }
    base = replace(state, status=Status.PENDING, good=(), bad=())
    if is_curated(state):
        detail.update(
            reopened_from=state.status.value,
            previous_discuss_note=state.discuss_note,
            previous_discard_reason=state.discard_reason.value if state.discard_reason else None,
            previous_discard_note=state.discard_note,
        )
        base = replace(base, discuss_note="", discard_reason=None, discard_note="", status_by=None)
    return (*_prepopulated_state(item, base, sets, warnings), detail)


class _Computed(NamedTuple):
    """One pre-populated item-language as the batch keeps it until its write: strings and numbers only."""

    item_id: str
    lang: str
    #: The version it was read at: the write checks nobody saved it meanwhile.
    version: int
    overlaps: bool
    reopened: bool
    #: What each lexicon returned (JSON, ``domain.suggestions.LexiconRecord``; "" when no list starts empty).
    record: str
    #: Its related suggestions' stamp and JSON (``services.suggestions.finder.RelatedParts``; "" when not computed).
    related_stamp: str
    related: str
    #: The sources its G0/B0 and Ω(λ) came from: keys of ``provenance_sources``, as a JSON list.
    sources: str
    #: Whether it starts with an empty GOOD list, and with an empty BAD one (the report counts them per language).
    good_empty: bool = False
    bad_empty: bool = False


class _SourcesOf(NamedTuple):
    """The synsets an item's sources come from (Ω(λ), and σ when outside it), found once for all its languages."""

    #: (λ case-folded, POS, σ when outside Ω(λ) else ""): the items sharing it share their sources.
    key: tuple[str, str, str]
    synsets: tuple[str, ...]

    @classmethod
    def of(cls, item: Item, senses: Sequence[SenseEntry]) -> _SourcesOf:
        synsets = tuple(s.synset for s in senses)
        outside = "" if item.synset in synsets else item.synset
        key = (item.target.lemma.casefold(), item.target.pos, outside)
        return cls(key, (*synsets, outside) if outside else synsets)

    @property
    def outside(self) -> bool:
        """Whether σ is not among Ω(λ)."""
        return bool(self.key[2])


class _ItemLexicon(NamedTuple):
    """What an item keeps of the lexicon (``update_items_lexicon``): its gloss and Ω(λ)."""

    item_id: str
    gloss: str
    senses: list[SenseEntry]


class _Sources(NamedTuple):
    """The sources of an item-language's G0/B0 and Ω(λ) (``put_item_language_sources``), as a JSON list."""

    item_id: str
    lang: str
    sources: str


@dataclass
class PrepopulationBatch:
    """Pre-populated item-languages waiting for their write, already encoded (``prepare_saves``): what each item
    keeps of the lexicon, and per item-language its row update, its history row and what the report counts."""

    lexicon_rows: list[_ItemLexicon] = field(default_factory=list)
    computed: list[_Computed] = field(default_factory=list)
    #: A first run's saves, of the lists alone (``prepare_list_saves`` encodes them when they are written).
    list_saves: list[ListSave] = field(default_factory=list)
    #: A redo's saves, encoded (``prepare_saves``).
    updates: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Item-languages a repair leaves unchanged: only their sources recorded.
    sources_only: list[_Sources] = field(default_factory=list)


def sources_rows(batch: PrepopulationBatch) -> list[_Sources]:
    """The batch's rows of ``put_item_language_sources``: its item-languages' sources."""
    return [*(_Sources(c.item_id, c.lang, c.sources) for c in batch.computed), *batch.sources_only]


class PrepopulationRun:
    """One pre-population run: computes a batch outside any transaction, then writes it in a short one.

    Each item's states are encoded for the write as soon as they are computed, and the batch and the memo of G0/B0
    keep only strings, numbers and rows of them: keeping the states, their candidate objects and a run-long memo of
    ``InitialSets`` alive instead made every full pass of Python's cyclic collector walk them.
    """

    def __init__(
        self,
        project: ProjectContext,
        settings: ProjectSettings,
        lexicon: Lexicon,
        report: PrepopulationReport,
        related: RelatedParts | None = None,
    ) -> None:
        self.project = project
        self.lexicon = lexicon
        #: The project's own lexicon's related suggestions, kept with each item-language (None: a lexicon passed in)
        self.related = related
        self.report = report
        self.inventory = SenseInventory(lexicon, settings.languages)
        self.policies: dict[str, Callable[[str], bool]] = {}
        self.consulted_by_lang: dict[str, list[str]] = {}
        self.defaults = default_sources(lexicon)
        self.settings = settings
        self.batch = PrepopulationBatch()
        config = settings.lexicon
        snapshot = project.resolve_path(config.snapshot) if config.provider == "snapshot" and config.snapshot else None
        # a snapshot is named by its file name: its folder on this server is no part of what is published
        self.provenance = lexicon_provenance(lexicon, snapshot, snapshot.name if snapshot else "")
        #: The source keys of each ((λ, POS, σ when outside Ω(λ)), language), JSON: the lemma's items share one.
        self._sources: dict[tuple[tuple[str, str, str], str], str] = {}
        #: The JSON list of source keys per set of sense sources (``_sources_json``).
        self._keys_json: dict[frozenset[str], str] = {}
        #: History details already encoded: most are a few counts, repeated across the run.
        self.details_json: dict[tuple[tuple[str, Any], ...], str] = {}
        #: A first run's history details, per (G0 size, B0 size).
        self._count_details: dict[tuple[int, int], str] = {}
        #: The collector's passes between batches (the run pauses it).
        self.young_passes = YoungPasses(YOUNG_OBJECTS_COLLECTED, YOUNG_OBJECTS_CAP)
        # what is alive before the batches (the lexicon just loaded) is none of their garbage: no pass walks it
        age_objects_alive()

    def sources(self, of: _SourcesOf, lang: str, allowed: Callable[[str], bool]) -> str:
        """The sources of an item-language's G0/B0 (each allowed sense in ``lang`` of σ and of Ω(λ)) and of Ω(λ):
        the same for every item of λ whose σ is among Ω(λ)."""
        key = (of.key, lang)
        found = self._sources.get(key)
        if found is None:
            names: set[str] = set()
            for synset in of.synsets:
                names.update(self.inventory.source_names(synset, lang, allowed))
            if len(self._sources) >= SETS_KEPT:
                self._sources.clear()
                self._keys_json.clear()
            found = self._sources[key] = self._sources_json(frozenset(names))
        return found

    def _sources_json(self, names: frozenset[str]) -> str:
        """The keys of the senses' sources ``names`` and of the English lemmas' source, as a JSON list: a lexicon
        has few sources, so the lemmas share a few answers, each encoded once."""
        found = self._keys_json.get(names)
        if found is None:
            keys = {self.provenance.english, *(self.provenance.key_of(name) for name in names)}
            found = self._keys_json[names] = json.dumps(sorted(keys))
        return found

    def allowed(self, lang: str) -> Callable[[str], bool]:
        if lang not in self.policies:
            self.policies[lang] = allowed_sources(lang, self.settings.allowed_sources, self.defaults).allows
        return self.policies[lang]

    def consulted(self, lang: str) -> list[str]:
        """The lexicons asked for ``lang``: a wordnet's lexicon ids of the language that are allowed, else the
        allowed sources (BabelNet's names; none listed when any source is allowed: those that answered are named)."""
        if lang not in self.consulted_by_lang:
            languages = getattr(self.lexicon, "languages", None)
            if callable(languages):
                names = [name for name in languages().get(lang, []) if self.allowed(lang)(name)]
            else:
                policy = allowed_sources(lang, self.settings.allowed_sources, self.defaults)
                names = sorted(policy.sources) if policy.sources is not None else []
            self.consulted_by_lang[lang] = names
        return self.consulted_by_lang[lang]

    def add_item(self, item: Item, states: Sequence[ItemLanguage | PendingState]) -> None:
        """Compute one item's states into the batch, or record why it is skipped (quota/unavailable stop).

        A first run reads ``PendingState`` rows and saves their lists alone; a redo reads whole states."""
        report = self.report
        foreign = foreign_synset_reason(item.synset, self.lexicon)
        if foreign:
            report.skipped.extend(Skipped(item.id, state.lang, foreign) for state in states)
            report.warn_skipped(f"{item.id} [{' '.join(s.lang for s in states)}]: skipped, left to do: {foreign}")
            return
        redo = report.redo
        if redo is not None and not redo.force:
            kept = [s for s in states if isinstance(s, ItemLanguage) and s.prepopulated and is_curated(s)]
            report.curated_kept.extend((s.item_id, s.lang, s.status.value) for s in kept)
            states = [s for s in states if not any(s is k for k in kept)]
            if not states:
                return  # nothing of this item is redone: no request for it
        try:
            senses = self.inventory.senses(item.target.lemma, item.target.pos)
            gloss = item.gloss or self.inventory.record(item.synset).gloss(ENGLISH)
            warnings: list[str] = []
            saves: list[ListSave] = []
            new_states: list[ItemLanguage] = []
            lists: list[dict[str, str]] = []
            details: list[dict[str, object]] = []
            computed: list[_Computed] = []
            # σ's record and the other senses, for the related suggestions (the record is in hand: its sets are
            # computed from it)
            others = tuple(sense.synset for sense in item.senses if sense.synset != item.synset)
            target = self.inventory.record(item.synset) if self.related is not None else None
            sources_of = _SourcesOf.of(item, senses)
            for state in states:
                lang = state.lang
                allowed = self.allowed(lang)
                sets = self.inventory.encoded_sets(item, senses, lang, allowed)
                reopened = False
                if isinstance(state, PendingState):  # a first run: the lists alone are saved
                    _warn_about_sets(item, lang, sets, warnings)
                    saves.append(_first_save(state, sets, self.count_detail(sets)))
                else:
                    if redo is not None and redo.changed_only and state.prepopulated and _same_sets(state, sets):
                        report.unchanged += 1
                        self.batch.sources_only.append(
                            _Sources(state.item_id, lang, self.sources(sources_of, lang, allowed))
                        )
                        continue
                    redo_detail: dict[str, object] = {
                        "good": sets.good_count, "bad": sets.bad_count, "lexicon": self.lexicon.name,
                    }  # fmt: skip
                    if state.prepopulated:
                        new_state, encoded, extra = _redone_state(item, state, sets, warnings)
                        redo_detail.update(extra)
                    else:
                        new_state, encoded = _prepopulated_state(item, state, sets, warnings)
                    new_states.append(new_state)
                    lists.append(encoded)
                    details.append(redo_detail)
                    reopened = "reopened_from" in redo_detail
                # what each lexicon returned: kept where a list starts empty (the cards that say why)
                good_empty, bad_empty = not sets.good_count, not sets.bad_count
                record = (
                    self.inventory.record_json(item, senses, lang, allowed, self.consulted(lang), sets)
                    if good_empty or bad_empty
                    else ""
                )
                stamp = related = ""
                if self.related is not None and target is not None:
                    stamp, related = self.related.part(item.synset, target, lang, others) or ("", "")
                sources = self.sources(sources_of, lang, allowed)
                computed.append(
                    _Computed(
                        state.item_id, lang, state.version, bool(sets.overlaps), reopened, record, stamp, related,
                        sources, good_empty, bad_empty,
                    )
                )  # fmt: skip
        except (LexiconQuotaError, LexiconUnavailableError):
            raise
        except LexiconError as error:
            reason = " ".join(str(error).split())
            report.skipped.extend(Skipped(item.id, state.lang, reason) for state in states)
            langs = " ".join(state.lang for state in states)
            report.warn_skipped(f"{item.id} [{langs}]: skipped, left to do: {reason}")
            return
        if sources_of.outside:
            report.warnings.append(
                f"{item.id}: {item.synset} is not among the WordNet senses of "
                f"({item.target.lemma}, {item.target.pos}) in the lexicon"
            )
        report.warnings.extend(warnings)
        batch = self.batch
        if new_states:
            prepared = self.project.repo.prepare_saves(
                new_states, SYSTEM_USER, "prepopulate", details, encoded_lists=lists, prepopulated=True,
                details_json=self.details_json,
            )  # fmt: skip
            batch.updates.extend(prepared.updates)
            batch.history.extend(prepared.history)
        batch.list_saves.extend(saves)
        batch.lexicon_rows.append(_ItemLexicon(item.id, gloss, senses))
        batch.computed.extend(computed)

    def count_detail(self, sets: EncodedSets) -> str:
        """A first run's history detail (its G0/B0's sizes and the lexicon), encoded once per distinct one."""
        key = (sets.good_count, sets.bad_count)
        found = self._count_details.get(key)
        if found is None:
            detail = {"good": sets.good_count, "bad": sets.bad_count, "lexicon": self.lexicon.name}
            found = self._count_details[key] = dumps(detail)
        return found

    def take_batch(self) -> PrepopulationBatch | None:
        """The batch computed so far (None when it holds nothing to write); the next one starts empty."""
        batch, self.batch = self.batch, PrepopulationBatch()
        return batch if batch.computed or batch.sources_only else None

    def flush(self) -> None:
        """Write the batch; item-languages a translator changed meanwhile are left for the next run."""
        batch = self.take_batch()
        if batch is None:
            return
        repo = self.project.repo
        self.project.db.pause_for_other_writers()
        # No collector pass inside the write lock: a full one over the run's lexicon outlasts the batch's writes,
        # and every other writer (a translator saving) waits for the lock; it runs once the batch has committed.
        if batch.list_saves:  # a batch is a first run's or a redo's
            prepared = repo.prepare_list_saves(batch.list_saves, SYSTEM_USER, "prepopulate", prepopulated=True)
            batch.updates, batch.history = prepared.updates, prepared.history
        with gc_paused(), self.project.db.write() as conn:
            current = repo.versions_of(conn, [row.item_id for row in batch.lexicon_rows])
            fresh = [current.get((c.item_id, c.lang)) == c.version for c in batch.computed]
            if not all(fresh):
                for moved in (c for c, ok in zip(batch.computed, fresh, strict=True) if not ok):
                    self.report.skipped.append(
                        Skipped(moved.item_id, moved.lang, "changed by someone during pre-population; run again")
                    )
                    self.report.warn_skipped(f"{moved.item_id} [{moved.lang}]: changed meanwhile; left to do")
                batch.computed = [c for c, ok in zip(batch.computed, fresh, strict=True) if ok]
                batch.updates = [u for u, ok in zip(batch.updates, fresh, strict=True) if ok]
                batch.history = [h for h, ok in zip(batch.history, fresh, strict=True) if ok]
            repo.update_items_lexicon(conn, batch.lexicon_rows)
            repo.apply_saves(conn, PreparedSaves(batch.updates, batch.history))
            repo.put_lexicon_records(conn, [(c.item_id, c.lang, c.record) for c in batch.computed if c.record])
            repo.put_related_suggestions(
                conn, [(c.item_id, c.lang, c.related_stamp, c.related) for c in batch.computed if c.related_stamp]
            )
            # the sources themselves: a source already recorded (by use-wordnet, an earlier run) is kept as it was
            repo.put_sources(conn, self.provenance.records, replace=False)
            repo.put_item_language_sources(conn, sources_rows(batch))
        self.written(batch)

    def written(self, batch: PrepopulationBatch) -> None:
        """A batch is saved: count it in the report, and let the memos and the collector catch up."""
        self.young_passes.after_batch()  # the cyclic garbage of the batches since the last pass
        self.inventory.trim()
        self.report.items += len(batch.lexicon_rows)
        self.report.item_languages += len(batch.computed)
        self.report.overlaps += sum(1 for c in batch.computed if c.overlaps)
        self.report.reopened += sum(1 for c in batch.computed if c.reopened)
        for c in batch.computed:
            self.report.per_language[c.lang] = self.report.per_language.get(c.lang, 0) + 1
            self.report.empty_good[c.lang] = self.report.empty_good.get(c.lang, 0) + c.good_empty
            self.report.empty_bad[c.lang] = self.report.empty_bad.get(c.lang, 0) + c.bad_empty


def prepopulate(
    project: ProjectContext,
    languages: tuple[str, ...] | None = None,
    lexicon: Lexicon | None = None,
    progress: ProgressCallback = no_progress,
    batch_size: int = BATCH_SIZE,
    user: User | None = None,
    redo: Redo | None = None,
) -> PrepopulationReport:
    """Pre-populate every item-language of ``languages`` (default: the project's) that is not done yet; with
    ``redo``, the chosen ones again, done or not (see ``Redo``).

    Excluded items are left out. ``user`` is the lead acting in the app (checked and audited); None for
    the command line. Unknown languages or item ids are refused before anything is asked or written.
    """
    return _prepopulate(project, languages, lexicon, progress, batch_size, user, redo)


def _checked_languages(languages: tuple[str, ...] | None, project_languages: tuple[str, ...]) -> tuple[str, ...]:
    if not languages:
        return tuple(project_languages)
    unknown = [lang for lang in languages if lang not in project_languages]
    if unknown:
        raise UserError(
            f"Not languages of this project: {', '.join(unknown)} (its languages: {', '.join(project_languages)})."
        )
    return tuple(dict.fromkeys(languages))


def _redo_todo(project: ProjectContext, redo: Redo) -> tuple[list[str], int]:
    """(item ids to redo in order, excluded ones left out): the chosen items, or every item in import order.

    Unknown ids are refused, naming them, before anything happens.
    """
    repo = project.repo
    with project.db.read() as conn:
        if redo.items is None:
            ids, excluded = [], 0
            for item in repo.iter_items(conn):
                if item.excluded:
                    excluded += 1
                else:
                    ids.append(item.id)
            return ids, excluded
        wanted = list(dict.fromkeys(redo.items))
        found = repo.items_by_id(conn, wanted)
    unknown = [item_id for item_id in wanted if item_id not in found]
    if unknown:
        shown = ", ".join(unknown[:20]) + (f" and {len(unknown) - 20} more" if len(unknown) > 20 else "")
        raise UserError(f"No such item(s) in this project: {shown}. Nothing was changed.")
    kept = [item_id for item_id in wanted if not found[item_id].excluded]
    return kept, len(wanted) - len(kept)


def _prepopulate(
    project: ProjectContext,
    languages: tuple[str, ...] | None,
    lexicon: Lexicon | None,
    progress: ProgressCallback,
    batch_size: int,
    user: User | None,
    redo: Redo | None,
) -> PrepopulationReport:
    administration.check_admin(user, "pre-populate")
    settings = project.settings()
    languages = _checked_languages(languages, settings.languages)
    report = PrepopulationReport(redo=redo)
    if redo is None:
        with project.db.read() as conn:
            todo = project.repo.prepopulation_todo(conn, languages)
        item_ids, report.already_done, report.excluded = todo.item_ids, todo.already_done, len(todo.excluded)
    else:
        item_ids, report.excluded = _redo_todo(project, redo)
    run, before = start_run(project, settings, languages, report, lexicon, related=bool(item_ids))
    lexicon = run.lexicon
    total = len(item_ids)
    finished = False
    # A redo asks the lexicon again, not its cache (for providers that keep one: BabelNet), since the cached
    # answers may be what made the first run wrong.
    fresh = getattr(lexicon, "fresh", None) if redo is not None else None
    answers = fresh() if callable(fresh) else contextlib.nullcontext()
    try:
        # The collector is paused for the run and its young objects collected between batches (``flush``): its
        # full passes walk the run's memos, which only grow, and free nothing.
        with answers, gc_paused(age_survivors=True):
            for start in range(0, total, batch_size):
                page = item_ids[start : start + batch_size]
                states: Mapping[str, Sequence[ItemLanguage | PendingState]]
                with project.db.read() as conn:
                    items = project.repo.items_by_id(conn, page)
                    if redo is None:
                        states = project.repo.to_prepopulate(conn, page, languages)
                    else:
                        states = _states_in(project.repo.item_languages_of_items(conn, page), languages)
                for done, item_id in enumerate(page, start=start + 1):
                    if item_id in items and item_id in states:
                        run.add_item(items[item_id], states[item_id])
                    progress(done, total, item_id)
                run.flush()
        finished = True
    except (LexiconQuotaError, LexiconUnavailableError) as error:
        report.stopped = str(error)
        finished = True
    except BaseException as error:  # a bug, the database, Ctrl-C: save what is done, record the stop, re-raise
        report.stopped = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise
    finally:
        finish_run(project, run, lexicon, before, user, save=finished, languages=languages)
    return report


def start_run(
    project: ProjectContext,
    settings: ProjectSettings,
    languages: tuple[str, ...],
    report: PrepopulationReport,
    lexicon: Lexicon | None = None,
    related: bool = True,
    project_lexicon: Lexicon | None = None,
) -> tuple[PrepopulationRun, dict[str, int]]:
    """A run over ``languages`` with ``lexicon`` (default: the project's, whose related suggestions are then kept
    too when ``related``; ``project_lexicon``: the project's, already built from these settings), and the lexicon's
    request counters before it (``finish_run``)."""
    # the related suggestions are kept only from the project's own lexicon: what a card's stamp says they came from
    parts = None
    if lexicon is None:
        lexicon = project.lexicon(settings) if project_lexicon is None else project_lexicon
        parts = RelatedParts(project, lexicon) if related else None
    before = _lexicon_counters(lexicon)
    lexicon_languages = getattr(lexicon, "languages", None)  # a wordnet says which languages it has lexicons for
    if callable(lexicon_languages):
        have = lexicon_languages()
        report.no_lexicon = [lang for lang in languages if not have.get(lang)]
    return PrepopulationRun(project, settings, lexicon, report, parts), before


def _states_in(by_item: dict[str, list[ItemLanguage]], languages: tuple[str, ...]) -> dict[str, list[ItemLanguage]]:
    """Each item's item-languages of ``languages``, in language order (items without any left out)."""
    wanted = set(languages)
    found = {
        item_id: sorted((s for s in states if s.lang in wanted), key=lambda s: s.lang)
        for item_id, states in by_item.items()
    }
    return {item_id: states for item_id, states in found.items() if states}


def finish_run(
    project: ProjectContext,
    run: PrepopulationRun,
    lexicon: Lexicon,
    before: dict[str, int],
    user: User | None,
    save: bool,
    languages: tuple[str, ...],
) -> None:
    """Save the last computed batch and audit the run; after an unexpected error, do it on a best-effort basis."""
    report = run.report
    with contextlib.suppress(Exception) if not save else contextlib.nullcontext():
        run.flush()
    after = _lexicon_counters(lexicon)
    report.requests = {k: v - before.get(k, 0) for k, v in after.items()}
    detail = {
        "outcome": report.outcome,
        "item_languages": report.item_languages,
        "lexicon": lexicon.name,
        "stopped": report.stopped,
        "skipped": len(report.skipped),
        "skipped_item_languages": [str(s) for s in report.skipped[:AUDIT_SKIPPED_SHOWN]],
        "excluded_items": report.excluded,
    }
    action = "prepopulate"
    if report.redo is not None:
        action = REDO_ACTION
        items = report.redo.items
        detail.update(
            items=None if items is None else list(items[:AUDIT_SKIPPED_SHOWN]),
            item_count=None if items is None else len(items),
            languages=list(languages),
            force=report.redo.force,
            changed_only=report.redo.changed_only,
            unchanged=report.unchanged,
            reopened=report.reopened,
            curated_kept=len(report.curated_kept),
            curated_kept_item_languages=[f"{i} [{lang}]: {status}" for i, lang, status in report.curated_kept[:100]],
        )
    with contextlib.suppress(Exception) if not save else contextlib.nullcontext(), project.db.write() as conn:
        administration.record(project, conn, user, action, detail)
