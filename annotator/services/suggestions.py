"""Why a list is empty, and suggestions per item-language (SPEC §5.2, issue 33): one service for the Curate card,
the Project page and ``annotator suggestions``.

The costly parts are computed once and kept with the item-language (``suggestion_cache``), each with the stamp of
what it came from: related senses with the lexicon's version, the allowed sources and σ; machine-translation words
with the evaluation they came from. Pre-population keeps the related part of every item-language it fills
(``RelatedParts``), so a card normally only reads; a stale stamp means computing it again (the card does it for its
one item-language; a new evaluation refreshes every item-language's MT words at once). The team's suggestions are read
live by an indexed look-up of the few items sharing a sense of λ, so they follow every save without a counter.
Nothing here changes a candidate list: accepting a suggestion is the ordinary add or move; a dismissal is kept per
item-language and user.

For the command handlers of the Curate work area:

- ``card_view(project, item_id, lang, user) -> CardSuggestions``: the reasons and the ranked suggestions (cheap).
- Accepting, dismissing and restoring are commands (``AcceptSuggestion``, ``DismissSuggestion``,
  ``RestoreSuggestion``) to ``CurationService.handle``, which reads ``card_view`` to know what the user is offered:
  an accepted suggestion keeps its source and relation on the candidate and in the history row; a dismissal is the
  user's own (``suggestion_dismissals``, with the suggestion's source and relation), changing no version or history.
  Once the word stands in the list it is no longer suggested. Accepting a ``move-to-GOOD`` suggestion is the
  ordinary move of the BAD candidate with the same identity (``candidate_key(text)``).
- ``wordnet_hints.typed_word_hint(project, item, lang, text)``: what the lexicons say of a word typed in an Add box.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from annotator.analysis.function_words import is_function_word
from annotator.atomic_files import open_atomic
from annotator.context import ProjectContext
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.lexicon_forms import RULES_VERSION
from annotator.domain.lexicon_records import SynsetRecord
from annotator.domain.model import Item, ItemLanguage, User
from annotator.domain.settings import ProjectSettings
from annotator.domain.suggestions import (
    SHOWN_FIRST,
    KindRate,
    LexiconRecord,
    MissTranslation,
    Suggestion,
    TeamCandidate,
    candidate_key,
    decode_suggestions,
    empty_reasons,
    encode_suggestions,
    kind_of,
    kind_rates,
    mt_suggestions,
    rank_suggestions,
    related_suggestions,
    team_suggestions,
)
from annotator.errors import UserError
from annotator.lexicon.base import (
    ENGLISH,
    Lexicon,
    LexiconError,
    LexiconQuotaError,
    LexiconUnavailableError,
    RelatedSynsets,
)
from annotator.lexicon.sources import MACHINE_TRANSLATED_SOURCES, allowed_sources
from annotator.lexicon.wordnet import WordnetLexicon, default_sources
from annotator.lexicon.wordnet_relations import WordnetRelations
from annotator.progress import ProgressCallback, no_progress
from annotator.services import job_files
from annotator.store import jobs as job_rows
from annotator.store import suggestions as rows
from annotator.store.item_languages import candidates_from_json

#: What the kept related part holds (cross-PoS forms, routes and lexicons counted): a part kept in another format is
#: computed again.
RELATED_FORMAT = "related-2"
#: Item-languages per batch when computing or exporting in bulk.
BATCH_SIZE = 200
#: A word used in more than this share of a language's MISS translations is taken for a function word (when the
#: analyser gives no parts of speech), once the language has at least ``COMMON_MIN`` of them.
COMMON_SHARE, COMMON_MIN = 0.08, 30
#: Senses of each other word of the sentence whose translations are told apart from the target's (most frequent).
OTHER_WORD_SENSES = 3


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


# --- the lexicon side, kept per process ------------------------------------------------------------------------


class _Finder:
    """The project's lexicon, its relations (wordnet) and source policies, with answers memoised per (σ, language).

    One per project and lexicon version per process, like the typing hints' provider: loading a wordnet takes
    seconds, each later answer microseconds."""

    def __init__(self, project: ProjectContext, lexicon: Lexicon) -> None:
        settings = project.settings()
        self.lexicon = lexicon
        self.relations: WordnetRelations | None = None
        if isinstance(lexicon, WordnetLexicon):
            self.relations = _relations(lexicon.folder)
        #: The provider's own relations, when it has some: a protocol check is slow, so it is made once.
        self.related_synsets = lexicon if isinstance(lexicon, RelatedSynsets) else None
        defaults = default_sources(lexicon)
        self.policies = {lang: allowed_sources(lang, settings.allowed_sources, defaults) for lang in settings.languages}
        self.stamp_base = _stamp_base(project)
        self.languages = tuple(sorted(lang for lang in settings.languages if lang != ENGLISH))
        self._related: dict[tuple[str, str, tuple[str, ...]], list[Suggestion]] = {}
        self._explained: dict[tuple[str, str], frozenset[str]] = {}
        self._lock = threading.Lock()

    def stamp(self, synset: str) -> str:
        return _stamp(self.stamp_base, synset)

    def allowed(self, lang: str) -> Callable[[str], bool]:
        policy = self.policies.get(lang) or allowed_sources(lang)
        return policy.allows

    def record(self, synset: str, lang: str) -> SynsetRecord | None:
        """The synset's senses in ``lang``; None when the lexicon does not know it. A wordnet is asked for the one
        language (cheap); any other provider for every project language, the request pre-population made, so
        BabelNet's cache answers it. A provider that cannot answer now (quota, unreachable) raises."""
        try:
            return self.lexicon.synset(synset, [lang] if self.relations is not None else self.languages)
        except (LexiconQuotaError, LexiconUnavailableError):
            raise
        except LexiconError:
            return None

    def related(self, synset: str, lang: str, others: Sequence[str] = ()) -> list[Suggestion]:
        """The related-sense suggestions of (σ, language), memoised (``others``: the other senses of λ, see
        ``compute_related``); raises when the provider cannot answer now (nothing is kept then, so a later card asks
        again)."""
        key = (synset, lang, tuple(others))
        found = self._related.get(key)
        if found is None:
            found = self.compute_related(synset, lang, others=others)
            with self._lock:
                self._related[key] = found
        return found

    def compute_related(
        self, synset: str, lang: str, target: SynsetRecord | None = None, others: Sequence[str] = ()
    ) -> list[Suggestion]:
        """``related`` without keeping the answer (pre-population keeps it encoded instead: ``RelatedParts``);
        ``target``: σ's record when the caller has it (with ``lang``'s senses), else it is asked for; ``others``:
        the other senses of λ, whose words that lexicalize a synset two relations from σ are kept too (offered only
        while they stand in BAD)."""
        target = self.record(synset, lang) if target is None else target
        linked: list[tuple[str, SynsetRecord]] = []
        for relation, other in self.links(synset):
            record = self.record(other, lang)
            if record is not None:
                linked.append((relation, record))
        close = self.close_words(synset, lang, others, target.pos if target is not None else "")
        return related_suggestions(
            lang,
            target,
            linked,
            self.allowed(lang),
            lambda source: source.upper() in MACHINE_TRANSLATED_SOURCES,
            close=close,
        )

    def links(self, synset: str) -> list[tuple[str, str]]:
        """σ's relations: a wordnet's from its WN-LMF files, BabelNet's outgoing edges, a snapshot's kept edges;
        none from a provider that knows none. A provider that cannot answer now raises (nothing is kept)."""
        if self.relations is not None:
            return self.relations.related(synset)
        if self.related_synsets is not None:
            try:
                return self.related_synsets.related(synset)
            except (LexiconQuotaError, LexiconUnavailableError):
                raise
            except LexiconError:
                return []
        return []

    def close_words(self, synset: str, lang: str, others: Sequence[str], pos: str) -> list[tuple[str, SynsetRecord]]:
        """(word, record): allowed words of λ's other senses (``others``) in ``lang`` that also lexicalize a synset
        two relations from σ (the record of the first such synset); only with a wordnet (a word's synsets looked
        up in its index)."""
        lookup = getattr(self.lexicon, "synset_ids_in", None)
        if self.relations is None or not others or lookup is None:
            return []
        direct = {other for _relation, other in self.relations.related(synset)}
        near = {far for other in direct for _relation, far in self.relations.related(other)} - direct - {synset}
        if not near:
            return []
        allowed = self.allowed(lang)
        found: list[tuple[str, SynsetRecord]] = []
        for other in others:
            record = self.record(other, lang)
            for sense in record.senses if record is not None else ():
                if sense.lang != lang or not allowed(sense.source):
                    continue
                tied = next((wn_id for wn_id in lookup(sense.lemma, lang, pos) if wn_id in near), None)
                tied_record = self.record(tied, lang) if tied is not None else None
                if tied_record is not None:
                    found.append((sense.lemma, tied_record))
        return found

    @property
    def local(self) -> bool:
        """Asking about any word costs nothing (no request): the sentence's other words can be looked up."""
        return self.lexicon.name in ("wordnet", "snapshot")

    def translations_of(self, english_lemma: str, lang: str) -> frozenset[str]:
        """Allowed ``lang`` lemmas (case-folded) of the most frequent senses of an English word, any POS."""
        key = (english_lemma.casefold(), lang)
        found = self._explained.get(key)
        if found is None:
            words: set[str] = set()
            allowed = self.allowed(lang)
            for pos in ("NOUN", "VERB", "ADJ", "ADV"):
                try:
                    ids = self.lexicon.synset_ids(english_lemma, pos)[:OTHER_WORD_SENSES]
                except LexiconError:
                    continue
                for synset in ids:
                    record = self.record(synset, lang)
                    if record is not None:
                        words.update(s.lemma.casefold() for s in record.senses if s.lang == lang and allowed(s.source))
            found = self._explained[key] = frozenset(words)
        return found


def _stamp(base: str, synset: str) -> str:
    return hashlib.sha1(f"{base}|{synset}".encode()).hexdigest()


_stamp_bases: dict[tuple[str, float], str] = {}


def _stamp_base(project: ProjectContext, settings: ProjectSettings | None = None) -> str:
    """What the related suggestions are computed from, without opening the lexicon (a card whose kept part is
    current never loads the wordnet): the settings (provider, snapshot, allowed sources) and, for a wordnet, its
    lexicons' ``id:version`` (read once per change of its database), for a snapshot its file's time."""
    settings = project.settings() if settings is None else settings
    parts: list[Any] = [RELATED_FORMAT, settings.lexicon.provider, settings.lexicon.snapshot, settings.lexicon.base_url]
    parts.append(sorted((k, sorted(v)) for k, v in settings.allowed_sources.items()))
    parts.append(f"forms-{RULES_VERSION}")  # how lemmas are read (``domain.lexicon_forms``): a change makes them stale
    if settings.lexicon.provider == "wordnet":
        database = project.wordnet_folder / "wn.db"
        stamp = database.stat().st_mtime if database.exists() else 0.0
        key = (str(database), stamp)
        if key not in _stamp_bases:
            from annotator.lexicon.wordnet_store import lexicon_specifiers

            _stamp_bases[key] = "+".join(lexicon_specifiers(project.wordnet_folder))
        parts.append(_stamp_bases[key])
    elif settings.lexicon.snapshot:
        snapshot = project.resolve_path(settings.lexicon.snapshot)  # as ``Project.lexicon`` opens it, from any folder
        parts.append(snapshot.stat().st_mtime if snapshot.exists() else 0.0)
    if settings.lexicon.provider != "wordnet":
        parts.append(EDGES_STAMP)  # parts kept before BabelNet's and snapshots' relations were followed are stale
    return json.dumps(parts, default=str)


#: In the stamp of a BabelNet or snapshot project's related parts: they follow the provider's edges.
EDGES_STAMP = "edges-v1"


def _relations(folder: Path) -> WordnetRelations:
    """The relations of every lexicon in the project's ``wn`` database (exported from it once when missing)."""
    from annotator.lexicon.wordnet_store import using_folder

    with using_folder(folder) as wn:
        lexicons = [(lexicon.id, lexicon.version) for lexicon in wn.lexicons()]

    def export(specifier: str, target: Path) -> None:
        with using_folder(folder) as wn:
            wn.export(wn.lexicons(lexicon=specifier), target)

    return WordnetRelations(folder, lexicons, export)


_finders: dict[tuple[str, str], _Finder] = {}
_finders_lock = threading.Lock()


def _finder(project: ProjectContext, settings: ProjectSettings | None = None) -> _Finder:
    """The project's finder, kept per process: a wordnet's while its database is unchanged (the typing hints'
    provider), any other provider's while the settings are (it is opened only when none is kept)."""
    settings = project.settings() if settings is None else settings
    key = (str(project.wordnet_folder), json.dumps(settings.to_json(), sort_keys=True, default=str))
    wordnet: WordnetLexicon | None = None
    if settings.lexicon.provider == "wordnet":
        from annotator.services.wordnet_hints import project_wordnet

        wordnet = project_wordnet(project)
        if wordnet is None:
            raise UserError("This project has no wordnet yet: add one ('annotator lexicon use-wordnet').")
    with _finders_lock:
        finder = _finders.get(key)
        if finder is None or (wordnet is not None and finder.lexicon is not wordnet):
            finder = _finders[key] = _Finder(project, wordnet or project.lexicon(settings))
        return finder


class RelatedParts:
    """The related part of every item-language, computed by pre-population while it has the project's lexicon open
    and written in its batches (``store.suggestions.put_related``), so no card opens the lexicon for it: the first
    card after a server start loaded the whole snapshot (0.4–0.5 s at 10,000 items) and every new card wrote its part
    in a transaction of its own. Answers are kept per (σ, language) as their stored JSON (strings: nothing for the
    collector to walk), at most ``RELATED_KEPT`` of them. Cost (issue 32, one core, CPU, pre-population opening the
    project's snapshot itself): 2,000 items × 5 languages 1.62–1.68 → 1.73–1.74 s; writing 50,000 parts ≈ 0.12 s.
    ``bench_curate.py --items 2000``, first Curate render after log-in: 3.3 s → 0.7 s (9fb1c3c → this, busy machine)."""

    def __init__(self, project: ProjectContext, lexicon: Lexicon) -> None:
        self.finder = _Finder(project, lexicon)
        self._kept: dict[tuple[str, str, tuple[str, ...]], str] = {}
        self._stamps: dict[str, str] = {}

    def part(self, synset: str, target: SynsetRecord, lang: str, others: Sequence[str] = ()) -> tuple[str, str] | None:
        """(stamp, related JSON) of an item-language of σ (``target``: its record as pre-population read it, every
        project language's senses; ``others``: the other senses of λ) in ``lang``; None when the provider cannot
        answer now (a card computes it later)."""
        key = (synset, lang, tuple(others))
        found = self._kept.get(key)
        if found is None:
            try:
                related = self.finder.compute_related(synset, lang, target, others)
                found = encode_suggestions(related) if related else "[]"  # most have none: no JSON encoder run
            except (LexiconQuotaError, LexiconUnavailableError):
                return None
            if len(self._kept) >= RELATED_KEPT:
                self._kept.clear()
                self._stamps.clear()
            self._kept[key] = found
        stamp = self._stamps.get(synset)
        if stamp is None:
            stamp = self._stamps[synset] = self.finder.stamp(synset)  # one per σ, not per language
        return stamp, found


#: (σ, language) answers ``RelatedParts`` keeps during one pre-population (a few hundred bytes each).
RELATED_KEPT = 100_000


# --- machine translations scored MISS --------------------------------------------------------------------------


def _evaluation(project: ProjectContext) -> int | None:
    """The newest finished evaluation (its job id): a new one means the MISS words are read again."""
    with project.db.read() as conn:
        return _evaluation_in(conn)


#: Evaluations whose MISS translations feed suggestions at most (the newest).
EVALUATIONS_READ = 50


def _evaluation_in(conn: Any) -> int | None:
    for job in job_rows.list_jobs(conn, limit=EVALUATIONS_READ, kinds=[JobKind.EVALUATE]):
        if job.state is JobState.DONE:
            return job.id
    return None


def _mt_stamp(job_id: int | None) -> str:
    return f"evaluation:{job_id}" if job_id is not None else "none"


def _sentence_lemmas(item: Item) -> list[str]:
    """The English lemmas of the sentence's other words (the target's span left out)."""
    from annotator.analysis.default import DefaultAnalyser

    sentence = item.sentence[: item.target.start] + " " + item.sentence[item.target.end :]
    analysis = _english_analyser(DefaultAnalyser).analyse([sentence], "EN")[0]
    lemmas = [lemma for lemma in analysis.lemmas if len(lemma) > 2 and any(ch.isalpha() for ch in lemma)]
    return list(dict.fromkeys(lemma for lemma in lemmas if lemma.casefold() != item.target.lemma.casefold()))


_analysers: dict[str, Any] = {}


def _english_analyser(kind: Callable[[], Any]) -> Any:
    with _finders_lock:
        if "EN" not in _analysers:
            _analysers["EN"] = kind()
        return _analysers["EN"]


def _explained(finder: _Finder, item: Item, lang: str) -> Callable[[str], bool]:
    """Whether a translation word translates another content word of the sentence rather than the target: a lemma of
    another word's frequent senses that no sense of λ has (only told apart with a local lexicon)."""
    if not finder.local:
        return lambda _lemma: False
    others: set[str] = set()
    for lemma in _sentence_lemmas(item):
        others |= finder.translations_of(lemma, lang)
    own: set[str] = set()
    for synset in {item.synset, *(s.synset for s in item.senses)}:
        record = finder.record(synset, lang)
        if record is not None:
            own.update(s.lemma.casefold() for s in record.senses if s.lang == lang)
    told_apart = others - own
    return told_apart.__contains__


def _miss_rows(project: ProjectContext, job_id: int, folder: Path | None = None) -> Iterator[dict[str, Any]]:
    """The MISS lines of evaluation ``job_id`` (``folder``: its results folder while it is still running) and of every
    finished evaluation before it whose analysis can still be read: the Evaluate page's, kept in the database; a
    command line job's, in its results folder. A translation scored by several evaluations counts once."""
    from annotator.evaluation.run import ANALYSED_FILE

    with project.db.read() as conn:
        jobs = [
            job
            for job in job_rows.list_jobs(conn, limit=EVALUATIONS_READ, kinds=[JobKind.EVALUATE])
            if job.id < job_id and job.state is JobState.DONE
        ]
        own = job_rows.get_job(conn, job_id)
    if own is not None:
        if folder is not None:
            own = dataclasses.replace(own, result={**(own.result or {}), "path": str(folder)})
        jobs.insert(0, own)
    seen: set[tuple[str, str, str, str]] = set()
    for job in jobs:
        for row in _analysed_rows(project, job, ANALYSED_FILE):
            if row.get("result") != "MISS":
                continue
            key = (str(row.get("id")), str(row.get("lang")), str(row.get("system")), str(row.get("translation")))
            if key not in seen:
                seen.add(key)
                yield row


def _analysed_rows(project: ProjectContext, job: Job, name: str) -> Iterator[dict[str, Any]]:
    if job.params.get("page") and not job.params.get("out"):
        yield from _json_rows(job_files.lines(project, job.id, name))
        return
    folder = (job.result or {}).get("path")
    path = Path(folder) / name if folder else None
    if path is not None and path.is_file():
        with path.open("rb") as handle:
            yield from _json_rows(handle)


def _json_rows(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row


def _words(row: dict[str, Any]) -> tuple[tuple[str, str, str | None], ...]:
    analysis = row.get("analysis") or {}
    words, lemmas, upos = analysis.get("words") or [], analysis.get("lemmas") or [], analysis.get("upos") or []
    return tuple(
        (str(w), str(lemma or w), tag if isinstance(tag, str) else None)
        for w, lemma, tag in zip(words, lemmas, upos, strict=False)
    )


#: ``meta`` key: the evaluation whose MISS translations every kept MT part comes from (all refreshed at once).
MT_MARKER = "suggestions_mt_evaluation"


def refresh_mt(
    project: ProjectContext,
    job_id: int | None = None,
    progress: ProgressCallback = no_progress,
    folder: Path | None = None,
) -> int:
    """Compute the MT suggestions of every item-language with a MISS in the newest evaluation (or ``job_id``) and keep
    them, then mark the evaluation as read: run once after an evaluation (the Evaluate job calls it), so no card
    waits. An item-language without a kept part of this evaluation has no MT suggestion. Returns how many have."""
    job_id = _evaluation(project) if job_id is None else job_id
    stamp = _mt_stamp(job_id)
    missed: dict[tuple[str, str], list[MissTranslation]] = {}
    per_lang: dict[str, int] = Counter()
    common: dict[str, Counter[str]] = {}
    if job_id is not None:
        for row in _miss_rows(project, job_id, folder):
            words = _words(row)
            key = (str(row["id"]), str(row["lang"]))
            missed.setdefault(key, []).append(MissTranslation(str(row["system"]), str(row["translation"]), words))
            per_lang[key[1]] += 1
            common.setdefault(key[1], Counter()).update({lemma.casefold() for _w, lemma, _u in words})
    too_common = {
        lang: frozenset(w for w, n in counts.items() if n > COMMON_SHARE * per_lang[lang])
        if per_lang[lang] >= COMMON_MIN
        else frozenset()
        for lang, counts in common.items()
    }
    finder = _finder(project) if missed else None
    keys = sorted(missed)
    total = len(keys)
    for start in range(0, total, BATCH_SIZE):
        chunk = keys[start : start + BATCH_SIZE]
        with project.db.read() as conn:
            items = project.repo.items_by_id(conn, list(dict.fromkeys(i for i, _l in chunk)))
            cached = rows.cached_of(conn, chunk)
        updates = []
        for item_id, lang in chunk:
            item = items.get(item_id)
            if item is None or finder is None:
                continue
            explained = _explained(finder, item, lang)
            mt = mt_suggestions(
                missed[(item_id, lang)],
                item.target.pos,
                explained,
                too_common[lang].__contains__,
                functools.partial(is_function_word, lang),
            )
            base = cached.get((item_id, lang)) or rows.CachedSuggestions("", "[]", "", "[]")
            updates.append((item_id, lang, base._replace(mt_stamp=stamp, mt=encode_suggestions(mt))))
        with project.db.write() as conn:
            rows.put_cache(conn, updates)
        progress(min(start + BATCH_SIZE, total), total, "machine translations")
    with project.db.write() as conn:
        project.repo.set_meta(conn, MT_MARKER, job_id)
    return total


#: Per process: the newest evaluation's MISS translations, (item, language) -> [(system, translation)], per project.
_miss_texts: dict[str, tuple[int, dict[tuple[str, str], list[tuple[str, str]]]]] = {}
#: MISS translations shown on a card at most (the systems' lines; their words are the MT suggestions).
MISS_SHOWN = 3


def miss_translations(project: ProjectContext, item_id: str, lang: str) -> list[tuple[str, str]]:
    """The newest evaluation's translations of the item-language scored MISS, as (system, text), for the card's MT
    line. The evaluation's file is read once per evaluation and process (only its MISS lines' system and text are
    kept), so a card costs a dictionary look-up."""
    with project.db.read() as conn:
        job_id = _evaluation_in(conn)
    return miss_lines(project, job_id, item_id, lang)


def miss_lines(project: ProjectContext, job_id: int | None, item_id: str, lang: str) -> list[tuple[str, str]]:
    """``miss_translations`` of evaluation ``job_id`` (the one a card was read with: ``CardSuggestions.evaluation``)."""
    if job_id is None:
        return []
    key = str(project.data_dir)
    with _finders_lock:
        kept = _miss_texts.get(key)
    if kept is None or kept[0] != job_id:
        texts: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for row in _miss_rows(project, job_id):
            texts.setdefault((str(row["id"]), str(row["lang"]).upper()), []).append(
                (str(row["system"]), str(row["translation"]))
            )
        kept = (job_id, texts)
        with _finders_lock:
            _miss_texts[key] = kept
    return kept[1].get((item_id, lang.upper()), [])[:MISS_SHOWN]


def _mt_part(cached: rows.CachedSuggestions | None, job_id: int | None) -> str:
    """The kept MT suggestions when they come from the newest evaluation; none otherwise."""
    return cached.mt if cached is not None and cached.mt_stamp == _mt_stamp(job_id) else "[]"


def _mt_ready(project: ProjectContext, job_id: int | None) -> None:
    """Read the newest evaluation's MISS translations once, if nothing did since it finished."""
    if job_id is None:
        return
    with project.db.read() as conn:
        done = project.repo.get_meta(conn, MT_MARKER)
    if done != job_id:
        refresh_mt(project, job_id)


def _all_item_languages(conn: Any) -> list[tuple[str, str, str]]:
    from sqlalchemy import select

    from annotator.store import schema
    from annotator.store.rows import visible

    il = schema.item_languages
    query = select(il.c.item_id, il.c.lang, il.c.initial_good).where(visible(il)).order_by(il.c.item_id, il.c.lang)
    return [tuple(row) for row in conn.execute(query)]  # type: ignore[misc]


# --- one item-language ---------------------------------------------------------------------------------------


def _team(
    conn: Any, item: Item, lang: str, found: Sequence[rows.TeamRow] | None = None
) -> tuple[list[Suggestion], list[Suggestion]]:
    """The team's suggestions for the item-language; ``found``: curated rows already read for several items (in
    bulk), else they are looked up for this item."""
    rank_of = {sense.synset: sense.rank for sense in item.senses}
    synsets = list(dict.fromkeys([item.synset, *rank_of]))
    if found is None:
        found = rows.team_rows(conn, synsets, lang, item.id)
    wanted = set(synsets)
    curated = [
        TeamCandidate(entry.format(), row.item_id, row.synset, row.user or "")
        for row in found
        if row.item_id != item.id and row.synset in wanted
        for entry in candidates_from_json(row.good)
    ]
    return team_suggestions(item.synset, item.target.lemma, curated, rank_of)


def _teams(
    conn: Any, items: dict[str, Item], keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], tuple[list[Suggestion], list[Suggestion]]]:
    """The team's suggestions of a batch: one look-up per language for every sense of the batch's items."""
    result = {}
    for lang in sorted({lang for _i, lang in keys}):
        mine = [item_id for item_id, other in keys if other == lang and item_id in items]
        synsets = sorted({s for i in mine for s in (items[i].synset, *(x.synset for x in items[i].senses))})
        found: list[rows.TeamRow] = []
        for start in range(0, len(synsets), 400):
            found += rows.team_rows(conn, synsets[start : start + 400], lang, "")
        by_synset: dict[str, list[rows.TeamRow]] = {}
        for row in found:
            by_synset.setdefault(row.synset, []).append(row)
        for item_id in mine:
            item = items[item_id]
            near = [r for s in {item.synset, *(x.synset for x in item.senses)} for r in by_synset.get(s, ())]
            result[(item_id, lang)] = _team(conn, item, lang, near)
    return result


def _fresh_related(finder: _Finder, item: Item, lang: str, cached: rows.CachedSuggestions | None) -> str | None:
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


def _current(cached: rows.CachedSuggestions | None, stamp_base: str, item: Item) -> bool:
    return cached is not None and cached.lexicon_stamp == _stamp(stamp_base, item.synset)


def _view(
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


# --- the team's decisions per kind --------------------------------------------------------------------------


#: Seconds a process keeps the project's rates per kind before reading the decisions again.
RATES_KEPT_SECONDS = 60.0
_rates_memo: dict[str, tuple[float, dict[str, KindRate]]] = {}


def _decided_kind(decision: rows.Decision, cached: rows.CachedSuggestions | None) -> tuple[str, str] | None:
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


def _kind_rates_in(conn: Any, url: str) -> dict[str, KindRate]:
    """The rates the ranking uses per kind: the measured precision, moved by the team's own accepts and dismissals
    once a kind has enough (``domain.suggestions.kind_rates``). Read at most every ``RATES_KEPT_SECONDS`` per
    process (a decision changes the rates little; the card stays one cheap read)."""
    import time

    now = time.monotonic()
    kept = _rates_memo.get(url)
    if kept is not None and now - kept[0] < RATES_KEPT_SECONDS:
        return kept[1]
    found = rows.decisions(conn)
    cached = rows.cached_of(conn, list(dict.fromkeys((d.item_id, d.lang) for d in found)))
    counts: dict[str, list[int]] = {}
    for decision in found:
        kind = _decided_kind(decision, cached.get((decision.item_id, decision.lang)))
        if kind is None:
            continue
        entry = counts.setdefault(kind[0], [0, 0])
        entry[0 if decision.accepted else 1] += 1
    rates = kind_rates({kind: (a, d) for kind, (a, d) in counts.items()})
    _rates_memo[url] = (now, rates)
    return rates


def suggestion_kinds(project: ProjectContext, fresh: bool = False) -> list[KindRate]:
    """The Project page's suggestion table: per kind, the measured precision, the team's accepts and dismissals
    and the rate the ranking uses, best first (as the cards use them; ``fresh``: read the decisions now)."""
    if fresh:
        _rates_memo.pop(project.db.url, None)
    with project.db.read() as conn:
        rates = _kind_rates_in(conn, project.db.url)
    return sorted(rates.values(), key=lambda rate: -rate.rate)


def card_view(project: ProjectContext, item_id: str, lang: str, user: User | None = None) -> CardSuggestions:
    """The card's reasons and suggestions for one item-language (``user``'s dismissals left out): read in one
    transaction from what is kept; only a missing or stale related part is computed (and kept) here."""
    return _card(project, item_id, lang.upper(), None, user)


def shown_card(project: ProjectContext, item: Item, state: ItemLanguage, user: User | None = None) -> CardSuggestions:
    """``card_view`` for an item-language a page has just read (``CurationService.view``): its item and state are
    not read a second time, and the evaluation the card was read with (``CardSuggestions.evaluation``) gives its
    MISS lines without looking it up again (``miss_lines``) — each look-up is a query on every card's run. With the
    settings read in the card's own transaction: 10–11 → 6 queries and 3–4 → 1 transactions per card; CPU per Curate
    event + rerun ≈ 2.7 → 0.9 ms for the card (bench_curate.py --items 2000, 46285f4's whole script run ≈ 6 ms).
    Issue 32 since: a new card no longer computes and writes its related part (pre-population keeps it:
    ``RelatedParts``), the team look-up reads items by σ (10,000 items: 18 → 0.4 ms), and with no lexicon configured
    the card refuses after one query instead of after all of them (Review's DISCUSS rerun in bench_pages.py)."""
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
        record = rows.get_record(conn, item_id, lang)
        cached = rows.cached_one(conn, item_id, lang)
        team = _team(conn, item, lang)
        dismissed = rows.dismissed_keys(conn, item_id, lang, user.name) if user is not None else set()
        job_id = _evaluation_in(conn)
        marked = project.repo.get_meta(conn, MT_MARKER) if job_id is not None else None
        rates = _kind_rates_in(conn, project.db.url)
    if job_id is not None and marked != job_id:
        refresh_mt(project, job_id)  # once per evaluation (normally done when it finished)
        with project.db.read() as conn:
            cached = rows.cached_one(conn, item_id, lang)
    if _current(cached, _stamp_base(project, settings), item):
        related = None  # the lexicon is not even opened
    else:
        finder = _finder(project, settings)
        related = _fresh_related(finder, item, lang, cached)
    if related is not None:
        base = cached or rows.CachedSuggestions("", "[]", "", "[]")
        cached = base._replace(lexicon_stamp=finder.stamp(item.synset), related=related)
        with project.db.write() as conn:
            rows.put_cache(conn, [(item_id, lang, cached)])
    related_part = cached.related if cached is not None else "[]"
    return _view(item, state, record, related_part, _mt_part(cached, job_id), team, dismissed, job_id, rates)


# --- in bulk: the command line, the Project page, after pre-population --------------------------------------


@dataclass
class BulkReport:
    item_languages: int = 0
    computed: int = 0
    empty_good: dict[str, int] = field(default_factory=Counter)
    empty_good_with_suggestions: dict[str, int] = field(default_factory=Counter)


def _batches(
    project: ProjectContext, langs: Sequence[str] | None, items: Sequence[str] | None
) -> tuple[list[tuple[str, str]], int]:
    with project.db.read() as conn:
        every = _all_item_languages(conn)
    wanted_langs = {lang.upper() for lang in langs} if langs else None
    if items is not None:
        known = {item_id for item_id, _l, _g in every}
        unknown = [item_id for item_id in items if item_id not in known]
        if unknown:
            raise UserError(f"No such item(s) in this project: {', '.join(unknown[:20])}. Nothing was written.")
        wanted_items = set(items)
    keys = [
        (item_id, lang)
        for item_id, lang, _g in every
        if (wanted_langs is None or lang in wanted_langs) and (items is None or item_id in wanted_items)
    ]
    return keys, len(keys)


def views(
    project: ProjectContext,
    langs: Sequence[str] | None = None,
    items: Sequence[str] | None = None,
    progress: ProgressCallback = no_progress,
    report: BulkReport | None = None,
) -> Iterator[CardSuggestions]:
    """Every chosen item-language's reasons and suggestions (no user's dismissals), a batch at a time: stale
    cached parts are computed and kept on the way, so a later card finds them."""
    settings = project.settings()
    if langs:
        unknown = [lang for lang in langs if lang.upper() not in settings.languages]
        if unknown:
            raise UserError(f"Not languages of this project: {', '.join(unknown)}.")
    keys, total = _batches(project, langs, items)
    finder = _finder(project)
    job_id = _evaluation(project)
    _mt_ready(project, job_id)
    report = report if report is not None else BulkReport()
    for start in range(0, total, BATCH_SIZE):
        chunk = keys[start : start + BATCH_SIZE]
        with project.db.read() as conn:
            ids = list(dict.fromkeys(i for i, _l in chunk))
            found_items = project.repo.items_by_id(conn, ids)
            states = {(s.item_id, s.lang): s for group in project.repo.item_languages_of_items(conn, ids).values()
                      for s in group}  # fmt: skip
            records = rows.records_of(conn, chunk)
            cached = rows.cached_of(conn, chunk)
            teams = _teams(conn, found_items, chunk)
            rates = _kind_rates_in(conn, project.db.url)
        updates = []
        out = []
        for key in chunk:
            item, state = found_items.get(key[0]), states.get(key)
            if item is None or state is None:
                continue
            old = cached.get(key)
            related = _fresh_related(finder, item, key[1], old)
            current = old or rows.CachedSuggestions("", "[]", "", "[]")
            if related is not None:
                current = current._replace(lexicon_stamp=finder.stamp(item.synset), related=related)
                updates.append((key[0], key[1], current))
            view = _view(
                item, state, records.get(key), current.related, _mt_part(current, job_id), teams[key], (), None, rates
            )
            report.item_languages += 1
            if state.prepopulated and not state.initial_good:
                report.empty_good[key[1]] += 1
                if view.suggestions:
                    report.empty_good_with_suggestions[key[1]] += 1
            out.append(view)
        if updates:
            report.computed += len(updates)
            with project.db.write() as conn:
                rows.put_cache(conn, updates)
        yield from out
        progress(min(start + BATCH_SIZE, total), total, "suggestions")


def refresh(project: ProjectContext, progress: ProgressCallback = no_progress) -> BulkReport:
    """Compute and keep whatever is missing or stale for every item-language (after pre-population)."""
    report = BulkReport()
    for _found in views(project, progress=progress, report=report):
        continue
    return report


def write_jsonl(
    project: ProjectContext,
    out: Path,
    langs: Sequence[str] | None = None,
    items: Sequence[str] | None = None,
    progress: ProgressCallback = no_progress,
) -> BulkReport:
    """``annotator suggestions``: one JSON line per item-language (id, lang, good_empty_reason, suggestions …),
    written by the atomic writer (a private temporary renamed over ``out``), so a failed run leaves no half file
    and ``out`` naming a folder, a pipe or a device is refused before anything is computed."""
    report = BulkReport()
    with open_atomic(out, what="--out") as handle:
        _write_lines(handle, views(project, langs, items, progress, report))
    return report


def _write_lines(handle: TextIO, found: Iterable[CardSuggestions]) -> None:
    for view in found:
        handle.write(json.dumps(view.to_line(), ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class EmptyGoodCounts:
    """Per language: item-languages pre-populated with an empty GOOD list, and how many of those have suggestions
    (from what is kept; ``not_computed`` of them have no kept suggestions yet)."""

    lang: str
    empty_good: int
    with_suggestions: int
    not_computed: int
    #: Of the empty ones, how many a person has worked on: a status other than pending, or a change in its history
    #: by someone other than the import and pre-population jobs (what a translator only looked at is not recorded).
    worked_on: int = 0


#: ``_EmptyRows`` per (database, ``read_model.data_version``); the current version and the one before are kept.
_EMPTY_ROWS_KEEP = 2
_empty_rows_memo: dict[tuple[str, tuple], _EmptyRows] = {}
_empty_rows_lock = threading.Lock()


@dataclass(frozen=True)
class _EmptyRows:
    """What ``empty_good_counts`` keeps per data version: the project's languages and the empty rows."""

    languages: tuple[str, ...]
    rows: tuple[tuple[str, str, str, str, bool, bool], ...]


def _empty_rows(conn: Any, url: str, version: tuple) -> _EmptyRows:
    """(item id, lang, GOOD, BAD, whether another curated item-language of its σ has a GOOD list, whether a person
    worked on it) of every visible, included item-language pre-populated with an empty GOOD list, and the project's
    languages (in the version).

    The Project page reruns this on every widget change, so it is kept per ``data_version`` (which every
    item-language, item and settings change moves); only the kept suggestions, which change without it, are read on
    each call. Plain tuples of str and bool: the collector stops walking them. The rows come from a partial index
    holding only the empty ones (revision 0014): scanning every item-language for them (their JSON lists make the
    rows wide) took 12 ms at 2,000 items and ~60 ms at 10,000 after each change. The team's lists are read only for
    the σ of the empty rows (a subquery through ``ix_items_synset``), not every curated item-language.
    Issue 32, Project page rerun (AppTest, script CPU, median of 15, three alternations): 2,000 items 46285f4
    21–24 ms, with this block before ~30 ms (15 read transactions a run), now 20–25 ms (6); 10,000 items 23–27 →
    21–24 ms."""
    from sqlalchemy import literal_column, select

    from annotator.store import schema
    from annotator.store.languages import SYSTEM_PREFIX
    from annotator.store.rows import visible

    key = (url, version)
    with _empty_rows_lock:
        found = _empty_rows_memo.get(key)
    if found is not None:
        return found
    il, it, h = schema.item_languages, schema.items, schema.history
    by_person = (
        select(h.c.id)
        .where(  # the prefix written into the statement: the page's plan check reads it without parameters
            h.c.item_id == il.c.item_id, h.c.lang == il.c.lang, h.c.user.not_like(literal_column(f"'{SYSTEM_PREFIX}%'"))
        )
        .exists()
    )
    empty_where: tuple[Any, ...] = (
        literal_column(schema.EMPTY_GOOD_WHERE),  # its partial index's very text (a bound '[]' would not use it)
        visible(il),
        it.c.excluded.is_(False),
    )
    query = (
        select(il.c.item_id, il.c.lang, it.c.synset, il.c.good, il.c.bad, il.c.status, by_person)
        .join(it, it.c.id == il.c.item_id)
        .where(*empty_where)
        .order_by(il.c.item_id, il.c.lang)
    )
    empty = list(conn.execute(query))
    curated: dict[tuple[str, str], set[str]] = {}
    if empty:
        empty_synsets = select(it.c.synset).join(il, it.c.id == il.c.item_id).where(*empty_where)
        team_query = (
            select(il.c.lang, it.c.synset, il.c.item_id)
            .join(it, it.c.id == il.c.item_id)
            .where(il.c.status.in_(rows.CURATED_STATUSES), il.c.good != "[]", visible(il))
            .where(it.c.synset.in_(empty_synsets))
        )
        for lang, synset, item_id in conn.execute(team_query):
            curated.setdefault((lang, synset), set()).add(item_id)
    settings = version[-1]  # the settings' stored text ends the version
    found = _EmptyRows(
        ProjectSettings.from_json(json.loads(settings)).languages if settings else ProjectSettings().languages,
        tuple(
            (
                item_id,
                lang,
                good,
                bad,
                bool(curated.get((lang, synset), set()) - {item_id}),
                status != "pending" or bool(touched),
            )
            for item_id, lang, synset, good, bad, status, touched in empty
        ),
    )
    with _empty_rows_lock:
        _empty_rows_memo[key] = found
        for old in [k for k in _empty_rows_memo if k[0] == key[0]][:-_EMPTY_ROWS_KEEP]:  # oldest first
            del _empty_rows_memo[old]
    return found


def empty_good_counts(project: ProjectContext) -> list[EmptyGoodCounts]:
    """The Project page's block: read from the kept suggestions and the team's curated lists (no lexicon), in one
    read transaction (the data version, the empty rows kept for it by ``_empty_rows``, the newest evaluation and the
    empty rows' kept suggestions, which change without the version)."""
    from annotator.services.read_model import data_version_in

    with project.db.read() as conn:
        found = _empty_rows(conn, project.db.url, data_version_in(conn))
        empty = found.rows
        mt_stamp = _mt_stamp(_evaluation_in(conn)) if empty else ""  # nothing to offer MT words to otherwise
        kept = rows.cached_of(conn, [(item_id, lang) for item_id, lang, *_ in empty]) if empty else {}
    counts = {lang: [0, 0, 0, 0] for lang in found.languages}
    for item_id, lang, good, bad, team, worked_on in empty:
        entry = counts.setdefault(lang, [0, 0, 0, 0])
        entry[0] += 1
        entry[3] += worked_on
        cached = kept.get((item_id, lang))
        if cached is None:
            entry[2] += 1
        related, mt, stamp = (cached.related, cached.mt, cached.mt_stamp) if cached else (None, None, None)
        good_keys = {c.key for c in candidates_from_json(good)}
        held = good_keys | {c.key for c in candidates_from_json(bad)}
        offered = any(s.key not in good_keys for s in decode_suggestions(related)) or any(
            s.key not in held for s in decode_suggestions(mt if stamp == mt_stamp else "[]")
        )
        if offered or team:
            entry[1] += 1
    return [EmptyGoodCounts(lang, *values) for lang, values in counts.items()]
