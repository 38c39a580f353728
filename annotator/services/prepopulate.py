"""Run pre-population over a project: fetch from the lexicon, compute G0/B0, save in small batches.

Resumable by construction: only item-languages not yet pre-populated are touched, each batch commits on
its own, and when the lexicon refuses (quota, invalid key) the work finished so far is saved first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from annotator.domain.model import Item, ItemLanguage, SenseEntry, Status, User
from annotator.domain.prepopulation import initial_sets, lexicalizations, rank_senses
from annotator.lexicon.base import ENGLISH, Lexicon, LexiconQuotaError, SynsetRecord
from annotator.lexicon.sources import allowed_sources
from annotator.progress import ProgressCallback, no_progress
from annotator.project import Project, ProjectSettings
from annotator.services import administration

SYSTEM_USER = "system:prepopulate"
BATCH_SIZE = 200


class SenseInventory:
    """Memoised lexicon look-ups for one run: Ω(λ) per (lemma, POS) and synset records per id.

    Every synset is always fetched for the full project language set, so the provider sees one request
    shape per synset (2 getSynset calls for 5 languages) and its cache serves every later run.
    """

    def __init__(self, lexicon: Lexicon, languages: tuple[str, ...]) -> None:
        self.lexicon = lexicon
        self.languages = tuple(sorted(lang for lang in languages if lang != ENGLISH))
        self._records: dict[str, SynsetRecord] = {}
        self._senses: dict[tuple[str, str], list[SenseEntry]] = {}
        self._lexicalizations: dict[tuple[str, str], list[str]] = {}

    def record(self, synset_id: str) -> SynsetRecord:
        if synset_id not in self._records:
            self._records[synset_id] = self.lexicon.synset(synset_id, self.languages)
        return self._records[synset_id]

    def lexicalizations(self, synset_id: str, lang: str, source_allowed: Callable[[str], bool]) -> list[str]:
        """Λ_L(σ), memoised: a synset serves every item of its lemma."""
        key = (synset_id, lang)
        if key not in self._lexicalizations:
            self._lexicalizations[key] = lexicalizations(self.record(synset_id), lang, source_allowed)
        return self._lexicalizations[key]

    def senses(self, lemma: str, pos: str) -> list[SenseEntry]:
        key = (lemma.casefold(), pos)
        if key not in self._senses:
            ids = self.lexicon.synset_ids(lemma, pos)
            self._senses[key] = rank_senses(lemma, [self.record(i) for i in ids])
        return self._senses[key]


@dataclass
class PrepopulationReport:
    items: int = 0
    item_languages: int = 0
    already_done: int = 0
    overlaps: int = 0
    warnings: list[str] = field(default_factory=list)
    stopped: str | None = None
    requests: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [
            f"{self.item_languages} item-languages pre-populated over {self.items} items",
            f"{self.already_done} already done",
            f"{self.overlaps} overlaps to decide",
        ]
        if self.requests:
            parts.append(", ".join(f"{k}: {v}" for k, v in sorted(self.requests.items())))
        return "; ".join(parts)


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


def _prepopulated_state(
    item: Item, state: ItemLanguage, senses: list[SenseEntry], inventory: SenseInventory, settings: ProjectSettings
) -> tuple[ItemLanguage, list[str]]:
    lang = state.lang
    allowed = allowed_sources(lang, settings.allowed_sources).allows
    by_synset = {
        synset: inventory.lexicalizations(synset, lang, allowed)
        for synset in {item.synset, *(s.synset for s in senses)}
    }
    sets = initial_sets(item.synset, senses, by_synset)
    warnings = [
        f"{item.id} [{lang}]: lexicon lemma {lemma!r} is not a valid candidate; left out" for lemma in sets.skipped
    ]
    if not sets.good:
        warnings.append(f"{item.id} [{lang}]: no {lang} lexicalization of {item.synset} from allowed sources")
    untouched = state.status is Status.PENDING and not state.good and not state.bad
    new = replace(
        state,
        initial_good=sets.good,
        initial_bad=sets.bad,
        overlaps=sets.overlaps,
        prepopulated=True,
        good=sets.good if untouched else state.good,
        bad=sets.bad if untouched else state.bad,
    )
    return new, warnings


def prepopulate(
    project: Project,
    languages: tuple[str, ...] | None = None,
    lexicon: Lexicon | None = None,
    progress: ProgressCallback = no_progress,
    batch_size: int = BATCH_SIZE,
    user: User | None = None,
) -> PrepopulationReport:
    """Pre-populate every item-language of ``languages`` (default: the project's) that is not done yet.

    ``user`` is the lead acting in the app (checked and audited); None for the command line.
    """
    administration.check_admin(user, "pre-populate")
    settings = project.settings()
    languages = tuple(languages or settings.languages)
    lexicon = lexicon or project.lexicon(settings)
    inventory = SenseInventory(lexicon, settings.languages)
    report = PrepopulationReport()
    with project.db.read() as conn:
        items = project.repo.list_items(conn)
        todo: dict[str, list[ItemLanguage]] = {}
        for state in project.repo.iter_item_languages(conn):
            if state.lang not in languages:
                continue
            if state.prepopulated:
                report.already_done += 1
            else:
                todo.setdefault(state.item_id, []).append(state)
    pending_items = [item for item in items if item.id in todo]
    total = len(pending_items)
    before = _lexicon_counters(lexicon)

    batch: list[tuple[Item, list[SenseEntry], list[ItemLanguage]]] = []

    def flush() -> None:
        if not batch:
            return
        states = [state for _item, _senses, item_states in batch for state in item_states]
        with project.db.write() as conn:
            project.repo.update_items_lexicon(
                conn,
                [
                    (item.id, item.gloss or inventory.record(item.synset).gloss(ENGLISH), senses)
                    for item, senses, _states in batch
                ],
            )
            project.repo.save_item_languages(
                conn,
                states,
                SYSTEM_USER,
                "prepopulate",
                [{"good": len(s.initial_good), "bad": len(s.initial_bad), "lexicon": lexicon.name} for s in states],
            )
        report.items += len(batch)
        report.item_languages += len(states)
        report.overlaps += sum(1 for s in states if s.overlaps)
        batch.clear()

    try:
        for done, item in enumerate(pending_items, start=1):
            senses = inventory.senses(item.target.lemma, item.target.pos)
            if item.synset not in {s.synset for s in senses}:
                report.warnings.append(
                    f"{item.id}: {item.synset} is not among the WordNet senses of "
                    f"({item.target.lemma}, {item.target.pos}) in the lexicon"
                )
            states = []
            for state in todo[item.id]:
                new, warnings = _prepopulated_state(item, state, senses, inventory, settings)
                states.append(new)
                report.warnings.extend(warnings)
            batch.append((item, senses, states))
            if len(batch) >= batch_size:
                flush()
            progress(done, total, item.id)
    except LexiconQuotaError as error:
        report.stopped = str(error)
    finally:
        flush()
        after = _lexicon_counters(lexicon)
        report.requests = {k: v - before.get(k, 0) for k, v in after.items()}
        with project.db.write() as conn:
            detail = {"item_languages": report.item_languages, "lexicon": lexicon.name, "stopped": report.stopped}
            administration.record(project, conn, user, "prepopulate", detail)
    return report
