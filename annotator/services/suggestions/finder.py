"""The lexicon side of suggestions: the project's lexicon, its relations and source policies, answers memoised
per (σ, language) and kept per process; and the stamp of what a kept related part was computed from."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from annotator.context import ProjectContext
from annotator.domain.lexicon_forms import RULES_VERSION
from annotator.domain.lexicon_records import SynsetRecord
from annotator.domain.settings import ProjectSettings
from annotator.domain.suggestions import Suggestion, encode_suggestions, related_suggestions
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
from annotator.versioned_cache import VersionedCache

#: What the kept related part holds (cross-PoS forms, routes and lexicons counted): a part kept in another format is
#: computed again.
RELATED_FORMAT = "related-2"
#: Senses of each other word of the sentence whose translations are told apart from the target's (most frequent).
OTHER_WORD_SENSES = 3


class Finder:
    """The project's lexicon, its relations (wordnet) and source policies, with answers memoised per (σ, language).

    One per project and lexicon version per process, like the typing hints' provider: loading a wordnet is slow,
    a later answer is a dictionary look-up."""

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
        self.stamp_base = stamp_base(project)
        self.languages = tuple(sorted(lang for lang in settings.languages if lang != ENGLISH))
        self._related: dict[tuple[str, str, tuple[str, ...]], list[Suggestion]] = {}
        self._explained: dict[tuple[str, str], frozenset[str]] = {}
        self._lock = threading.Lock()

    def stamp(self, synset: str) -> str:
        return related_stamp(self.stamp_base, synset)

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
        self,
        synset: str,
        lang: str,
        target: SynsetRecord | None = None,
        others: Sequence[str] = (),
        links: Sequence[tuple[str, str]] | None = None,
    ) -> list[Suggestion]:
        """``related`` without keeping the answer (pre-population keeps it encoded instead: ``RelatedParts``);
        ``target``: σ's record when the caller has it (with ``lang``'s senses), else it is asked for; ``others``:
        the other senses of λ, whose words that lexicalize a synset two relations from σ are kept too (offered only
        while they stand in BAD); ``links``: σ's relations when the caller has them (``links``)."""
        target = self.record(synset, lang) if target is None else target
        linked: list[tuple[str, SynsetRecord]] = []
        for relation, other in self.links(synset) if links is None else links:
            record = self.record(other, lang)
            if record is not None:
                linked.append((relation, record))
        close = self.close_words(synset, lang, others, target.pos if target is not None else "")
        return related_suggestions(
            lang,
            target,
            linked,
            self.allowed(lang),
            machine_translated,
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

    def seeks_close_words(self, others: Sequence[str]) -> bool:
        """False when ``close_words`` finds none without looking: no other sense of λ, or no wordnet relations."""
        return self.relations is not None and bool(others)

    def close_words(self, synset: str, lang: str, others: Sequence[str], pos: str) -> list[tuple[str, SynsetRecord]]:
        """(word, record): allowed words of λ's other senses (``others``) in ``lang`` that also lexicalize a synset
        two relations from σ (the record of the first such synset); only with a wordnet (a word's synsets looked
        up in its index)."""
        lookup = getattr(self.lexicon, "synset_ids_in", None)
        if self.relations is None or not self.seeks_close_words(others) or lookup is None:
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


def machine_translated(source: str) -> bool:
    """A source never offered as a word of σ's own (``related_suggestions``' excluded sources)."""
    return source.upper() in MACHINE_TRANSLATED_SOURCES


def related_stamp(base: str, synset: str) -> str:
    """The stamp a related part of σ computed from ``base`` (``stamp_base``) is kept with."""
    return hashlib.sha1(f"{base}|{synset}".encode()).hexdigest()


#: The wordnet's lexicon specifiers per database file, read again when the file's time moves.
_specifiers: VersionedCache[str] = VersionedCache(keep=1)


def stamp_base(project: ProjectContext, settings: ProjectSettings | None = None) -> str:
    """What the related suggestions are computed from, without opening the lexicon (a card whose kept part is
    current never loads the wordnet): the settings (provider, snapshot, allowed sources) and, for a wordnet, its
    lexicons' ``id:version`` (read once per change of its database), for a snapshot its file's time."""
    settings = project.settings() if settings is None else settings
    parts: list[Any] = [RELATED_FORMAT, settings.lexicon.provider, settings.lexicon.snapshot, settings.lexicon.base_url]
    parts.append(sorted((k, sorted(v)) for k, v in settings.allowed_sources.items()))
    parts.append(f"forms-{RULES_VERSION}")  # how lemmas are read (``domain.lexicon_forms``): a change makes them stale
    if settings.lexicon.provider == "wordnet":
        from annotator.lexicon.wordnet_store import lexicon_specifiers

        database = project.wordnet_folder / "wn.db"
        stamp = database.stat().st_mtime if database.exists() else 0.0
        folder = project.wordnet_folder
        parts.append(_specifiers.get(str(database), stamp, lambda: "+".join(lexicon_specifiers(folder))))
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


_finders: dict[tuple[str, str], Finder] = {}
_finders_lock = threading.Lock()


def project_finder(project: ProjectContext, settings: ProjectSettings | None = None) -> Finder:
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
            finder = _finders[key] = Finder(project, wordnet or project.lexicon(settings))
        return finder


class RelatedParts:
    """The related part of every item-language, computed by pre-population while it has the project's lexicon open
    and written in its batches (``repo.put_related_suggestions``), so no card opens the lexicon for it (a first card
    would otherwise load the whole lexicon, and each new card write its part in a transaction of its own). Computed
    answers are kept per (σ, language) as their stored JSON (strings: nothing for the collector to walk), at most
    ``RELATED_KEPT`` of them; those known to be empty (``_has_none``) are not kept."""

    def __init__(self, project: ProjectContext, lexicon: Lexicon) -> None:
        self.finder = Finder(project, lexicon)
        self._kept: dict[tuple[str, str, tuple[str, ...]], str] = {}
        self._stamps: dict[str, str] = {}
        #: The last σ asked about, its relations and ``_own_word_languages`` (an item asks for its languages in turn).
        self._last: tuple[str, list[tuple[str, str]], frozenset[str]] = ("", [], frozenset())
        #: Each project language's policy verdict per (language, source): a lexicon has few sources.
        self._verdicts: dict[tuple[str, str], bool] = {}

    def part(self, synset: str, target: SynsetRecord, lang: str, others: Sequence[str] = ()) -> tuple[str, str] | None:
        """(stamp, related JSON) of an item-language of σ (``target``: its record as pre-population read it, every
        project language's senses; ``others``: the other senses of λ) in ``lang``; None when the provider cannot
        answer now (a card computes it later)."""
        try:
            none = self._has_none(synset, target, lang, others)
            found = "[]" if none else self._computed(synset, target, lang, others)
        except (LexiconQuotaError, LexiconUnavailableError):
            return None
        stamp = self._stamps.get(synset)
        if stamp is None:
            if len(self._stamps) >= RELATED_KEPT:
                self._stamps.clear()
            stamp = self._stamps[synset] = self.finder.stamp(synset)  # one per σ, not per language
        return stamp, found

    def _has_none(self, synset: str, target: SynsetRecord, lang: str, others: Sequence[str]) -> bool:
        """True when σ has no related suggestion in ``lang`` for certain, as most synsets: no relation, no close word
        to seek and no word of σ's own from a lexicon neither allowed nor excluded there, so ``related_suggestions``
        has nothing to offer. Known without asking it, and not kept."""
        finder = self.finder
        last, links, languages = self._last
        if last != synset:
            links = finder.links(synset)
            languages = self._own_word_languages(target)
            self._last = (synset, links, languages)
        return not links and not finder.seeks_close_words(others) and lang in finder.policies and lang not in languages

    def _computed(self, synset: str, target: SynsetRecord, lang: str, others: Sequence[str]) -> str:
        """The related suggestions' JSON, computed and kept (``_has_none`` is asked first: σ's relations are known)."""
        key = (synset, lang, tuple(others))
        found = self._kept.get(key)
        if found is None:
            related = self.finder.compute_related(synset, lang, target, others, self._last[1])
            found = encode_suggestions(related) if related else "[]"
            if len(self._kept) >= RELATED_KEPT:
                self._kept.clear()
            self._kept[key] = found
        return found

    def _own_word_languages(self, target: SynsetRecord) -> frozenset[str]:
        """The project languages in which σ has a word from a lexicon neither allowed for the language nor
        excluded (``machine_translated``): the words ``related_suggestions`` offers from σ itself."""
        policies, verdicts = self.finder.policies, self._verdicts
        found = set()
        for _lemma, lang, source, _number in target.senses:
            if lang in found or lang not in policies:
                continue
            offered = verdicts.get((lang, source))
            if offered is None:
                offered = not policies[lang].allows(source) and not machine_translated(source)
                verdicts[(lang, source)] = offered
            if offered:
                found.add(lang)
        return frozenset(found)


#: (σ, language) answers ``RelatedParts`` keeps during one pre-population (a few hundred bytes each).
RELATED_KEPT = 100_000
