"""The lexicon side of a pre-population run: Ω(λ), Λ_L and G0/B0 memoised for the items that share them.

What is kept for the whole run is plain strings and rows of them (Λ_L per synset and language, each synset's part
of a stored list, G0/B0 encoded as stored): an item's G0/B0 is usually its senses' parts joined (``joined_sets``).
The lexicon's records, an object per sense, are held only while their item is worked on. Memory stays bounded: the
memos are dropped past ``SETS_KEPT`` sets.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from annotator.domain.model import Item, SenseEntry
from annotator.domain.prepopulation import (
    InitialLists,
    InitialSets,
    LexiconCandidate,
    PreparedLemma,
    as_sets,
    initial_lists,
    prepare_spellings,
    rank_senses,
)
from annotator.domain.suggestions import lexicon_record
from annotator.lexicon.base import (
    ENGLISH,
    Lexicon,
    LexiconError,
    LexiconQuotaError,
    LexiconUnavailableError,
    SynsetRecord,
)
from annotator.store.item_languages import candidates_to_json
from annotator.store.prepopulation import lexicon_list_json, one_synset_candidates_json

#: G0/B0 answers kept for items sharing σ, λ and language (encoded: strings only), dropped past this many: bounds
#: memory (about 1 KB each: 100 MB at most).
SETS_KEPT = 100_000
#: Records of what each lexicon returned kept for reuse (items sharing σ, λ and language share one): bounds memory.
RECORDS_KEPT = 20_000
#: Synset records held at once: more than any lemma has senses, so an item's records stay at hand while it is done.
RECORDS_HELD = 1_000


class EncodedSets(NamedTuple):
    """G0/B0 of one (σ, λ, language) as the run keeps them: encoded as stored, with what the report needs.

    Strings and numbers only, one object per memo entry: a memo of ``InitialSets`` (candidate objects) made every
    full pass of Python's cyclic collector walk them all, and deriving the sets anew for every item instead lost the
    reuse (items sharing σ and λ).
    """

    good: str
    bad: str
    good_count: int
    bad_count: int
    overlaps: tuple[str, ...]
    #: Lexicon lemmas that are not valid candidates (reported, not stored).
    skipped: tuple[str, ...]

    @classmethod
    def of(cls, sets: InitialSets) -> EncodedSets:
        return cls(
            candidates_to_json(sets.good), candidates_to_json(sets.bad), len(sets.good), len(sets.bad),
            sets.overlaps, sets.skipped,
        )  # fmt: skip

    @classmethod
    def of_lists(cls, lists: InitialLists) -> EncodedSets:
        """The same encoding from plain lists. Each candidate is encoded where it is met: keeping every candidate's
        JSON for the lists of its lemma's other items kept an object per lexicon lemma alive, whose cost to the
        cyclic collector outweighed the encoding it saved."""
        fragments: dict[LexiconCandidate, str] = {}
        return cls(
            lexicon_list_json(lists.good, fragments), lexicon_list_json(lists.bad, fragments), len(lists.good),
            len(lists.bad), lists.overlaps, lists.skipped,
        )  # fmt: skip


#: A family not met yet (``SenseInventory.joined_sets``).
_UNKNOWN: Any = object()


class SynsetLanguage(NamedTuple):
    """What the run keeps of one synset in one language, worked out in one pass over its record: Λ_L(σ) ready for
    ``initial_lists``, the sources of its allowed senses, and Λ_L(σ) as a part of a stored list
    (``one_synset_candidates_json``): its candidates' JSON, None when a lemma of it is not a valid candidate or two
    share an identity."""

    prepared: tuple[PreparedLemma, ...]
    sources: tuple[str, ...]
    part: str | None


class SenseInventory:
    """Memoised lexicon look-ups for one run: Ω(λ) per (lemma, POS), Λ_L per (synset, language), synset records.

    Every synset is always fetched for the full project language set, so the provider sees one request
    shape per synset (2 getSynset calls for 5 languages) and its cache serves every later run. Failures
    are memoised too, so a missing synset costs one look-up per run, not one per item. The records themselves
    are kept only while their item is worked on (``RECORDS_HELD``): what the run needs of a synset later is kept
    as plain strings (Λ_L, sources), which cost Python's cyclic collector nothing, where every record kept holds
    an object per sense.
    """

    def __init__(self, lexicon: Lexicon, languages: tuple[str, ...]) -> None:
        self.lexicon = lexicon
        self.languages = tuple(sorted(lang for lang in languages if lang != ENGLISH))
        #: Oldest first (``RECORDS_HELD``).
        self._records: OrderedDict[str, SynsetRecord] = OrderedDict()
        self._failures: dict[str, LexiconError] = {}
        self._senses: dict[tuple[str, str], list[SenseEntry] | LexiconError] = {}
        #: Λ_L(σ), its sources and its part per (σ, language) (``SynsetLanguage``).
        #: Per language, then synset: no key object per entry for the cyclic collector to walk.
        self._lexicalized: dict[str, dict[str, SynsetLanguage]] = {}
        #: The source policy each language's Λ_L was asked with (one per language in a run).
        self._policies: dict[str, Callable[[str], bool]] = {}
        #: Each policy's verdict per (language, source): a lexicon has few sources, met on every sense.
        self._allowed: dict[tuple[str, str], bool] = {}
        #: Each spelling met that needs a parse, prepared (``prepare_spellings``): a lemma recurs across synsets.
        self._lemmas: dict[str, PreparedLemma] = {}
        #: ``EncodedSets`` per (σ, λ, POS, language).
        self._sets: dict[tuple[str, str, str, str], EncodedSets] = {}
        #: The record of what each lexicon returned (JSON), per (σ, λ, language) like the sets.
        self._records_json: dict[tuple[str, str, str, str], str] = {}
        #: Per (λ, POS, language): the parts of Ω(λ)'s senses, None when G0/B0 cannot be joined (``joined_sets``).
        self._families: dict[tuple[str, str, str], tuple[tuple[str, str, int], ...] | None] = {}

    def trim(self) -> bool:
        """Drop the derived answers (Λ_L(σ), G0/B0) once there are more than ``SETS_KEPT``; True when dropped.

        Ω(λ) and the failures stay, so the lexicon is asked again only for the records of synsets met again.
        """
        if len(self._sets) <= SETS_KEPT:
            return False
        self._sets.clear()
        self._lexicalized.clear()
        self._lemmas.clear()
        self._records_json.clear()
        self._families.clear()
        return True

    def record(self, synset_id: str) -> SynsetRecord:
        found = self._records.get(synset_id)
        if found is not None:
            return found
        failure = self._failures.get(synset_id)
        if failure is not None:
            raise failure
        try:
            found = self.lexicon.synset(synset_id, self.languages)
        except (LexiconQuotaError, LexiconUnavailableError):
            raise  # the run stops; a later run asks again
        except LexiconError as error:
            self._failures[synset_id] = error
            raise
        if len(self._records) >= RECORDS_HELD:
            self._records.popitem(last=False)  # the oldest: its item is done
        self._records[synset_id] = found
        return found

    def lexicalized(self, synset_id: str, lang: str, source_allowed: Callable[[str], bool]) -> SynsetLanguage:
        """Λ_L(σ), its sources and its part, memoised: a synset serves every item of its lemmas."""
        in_language = self._lexicalized.get(lang)
        found = in_language.get(synset_id) if in_language is not None else None
        if found is None:
            if self._policies.get(lang) is not source_allowed:
                self._policies[lang] = source_allowed
                self._allowed.clear()
            self._prepare_synset(synset_id)
            found = self._lexicalized[lang][synset_id]
        return found

    def prepared(self, synset_id: str, lang: str, source_allowed: Callable[[str], bool]) -> tuple[PreparedLemma, ...]:
        """Λ_L(σ) ready for ``initial_lists``."""
        return self.lexicalized(synset_id, lang, source_allowed).prepared

    def _prepare_synset(self, synset_id: str) -> None:
        """Λ_L(σ) of every language met so far, from one pass over the synset's record: an item asks for each of
        its languages in turn, so the record is read once, not once per language."""
        policies = self._policies
        lemmas: dict[str, list[str]] = {lang: [] for lang in policies}
        sources: dict[str, dict[str, None]] = {lang: {} for lang in policies}
        allowed = self._allowed
        for lemma, lang, source, _number in self.record(synset_id).senses:
            verdict = allowed.get((lang, source))
            if verdict is None:
                policy = policies.get(lang)
                # a language without a policy yet has none of its senses kept (its policy clears these verdicts)
                verdict = allowed[(lang, source)] = policy is not None and policy(source)
            if verdict:
                lemmas[lang].append(lemma)
                sources[lang][source] = None
        for lang, spellings in lemmas.items():
            in_language = self._lexicalized.setdefault(lang, {})
            if synset_id in in_language:
                continue
            prepared = prepare_spellings(spellings, self._lemmas)
            texts = [text for _, _, text in prepared if text is not None]
            usable = len(texts) == len(prepared) and len({identity for _, identity, _ in prepared}) == len(prepared)
            part = one_synset_candidates_json(synset_id, texts) if usable else None
            in_language[synset_id] = SynsetLanguage(prepared, tuple(sources[lang]), part)

    def source_names(self, synset_id: str, lang: str, source_allowed: Callable[[str], bool]) -> tuple[str, ...]:
        """The sources of the synset's allowed senses in ``lang`` (found with its Λ_L)."""
        return self.lexicalized(synset_id, lang, source_allowed).sources

    def senses(self, lemma: str, pos: str) -> list[SenseEntry]:
        key = (lemma.casefold(), pos)
        found = self._senses.get(key)
        if found is None:
            try:
                ids = self.lexicon.synset_ids(lemma, pos)
                found = rank_senses(lemma, [self.record(i) for i in ids])
            except (LexiconQuotaError, LexiconUnavailableError):
                raise
            except LexiconError as error:
                found = error
            self._senses[key] = found
        if isinstance(found, LexiconError):
            raise found
        return found

    def initial_lists(
        self, item: Item, senses: list[SenseEntry], lang: str, source_allowed: Callable[[str], bool]
    ) -> InitialLists:
        """G0/B0 of one item-language, derived from the memoised Λ_L of σ and of its lemma's senses."""
        prepared = {s.synset: self.prepared(s.synset, lang, source_allowed) for s in senses}
        if item.synset not in prepared:
            prepared[item.synset] = self.prepared(item.synset, lang, source_allowed)
        return initial_lists(item.synset, senses, prepared)

    def initial_sets(
        self, item: Item, senses: list[SenseEntry], lang: str, source_allowed: Callable[[str], bool]
    ) -> InitialSets:
        """``initial_lists`` as candidate objects (the run keeps them encoded instead: ``encoded_sets``)."""
        return as_sets(self.initial_lists(item, senses, lang, source_allowed))

    def encoded_sets(
        self, item: Item, senses: list[SenseEntry], lang: str, source_allowed: Callable[[str], bool]
    ) -> EncodedSets:
        """G0/B0 depend only on (σ, λ, language): items sharing them share one computed and encoded answer."""
        family = (item.target.lemma.casefold(), item.target.pos, lang)
        key = (item.synset, *family)
        found = self._sets.get(key)
        if found is None:
            found = self._joined(item.synset, family, senses, source_allowed) or EncodedSets.of_lists(
                self.initial_lists(item, senses, lang, source_allowed)
            )
            self._sets[key] = found
        return found

    def joined_sets(
        self, item: Item, senses: list[SenseEntry], lang: str, source_allowed: Callable[[str], bool]
    ) -> EncodedSets | None:
        """G0/B0 joined from the parts of σ and of the other senses, when σ is among Ω(λ) and no lemma identity
        recurs among its senses (the common case): then every candidate stands for its one synset, G0 is σ's
        part and B0 the others' in rank order, which is what ``initial_lists`` derives, with no overlap and
        nothing skipped. None otherwise (``initial_lists`` decides)."""
        return self._joined(item.synset, (item.target.lemma.casefold(), item.target.pos, lang), senses, source_allowed)

    def _joined(
        self,
        target: str,
        family: tuple[str, str, str],
        senses: list[SenseEntry],
        source_allowed: Callable[[str], bool],
    ) -> EncodedSets | None:
        """``joined_sets`` of σ = ``target`` in the family (λ case-folded, POS, language) of ``senses``."""
        parts = self._families.get(family, _UNKNOWN)
        if parts is _UNKNOWN:
            parts = self._families[family] = self._family_parts(senses, family[2], source_allowed)
        if parts is None:
            return None
        good: str | None = None
        good_count, bad, bad_count = 0, [], 0
        for synset, text, size in parts:
            if synset == target:
                good, good_count = text, size
            elif size:
                bad.append(text)
                bad_count += size
        if good is None:
            return None  # σ is not among Ω(λ)
        return EncodedSets(f"[{good}]", "[" + ",".join(bad) + "]", good_count, bad_count, (), ())

    def _family_parts(
        self, senses: list[SenseEntry], lang: str, source_allowed: Callable[[str], bool]
    ) -> tuple[tuple[str, str, int], ...] | None:
        """(σ, its part, its size) for the senses of Ω(λ) in rank order; None when a lemma identity recurs among
        them or a part cannot be written (``SynsetLanguage``)."""
        rows = [(sense.synset, self.lexicalized(sense.synset, lang, source_allowed)) for sense in senses]
        keys = [key for _, row in rows for _, key, _ in row.prepared]
        if len(set(keys)) != len(keys):
            return None
        joined = tuple((synset, row.part, len(row.prepared)) for synset, row in rows if row.part is not None)
        return joined if len(joined) == len(rows) else None

    def record_json(
        self,
        item: Item,
        senses: list[SenseEntry],
        lang: str,
        source_allowed: Callable[[str], bool],
        consulted: list[str],
        sets: EncodedSets,
    ) -> str:
        """What each lexicon returned for (σ, λ, language), as stored JSON: shared like the sets."""
        key = (item.synset, item.target.lemma.casefold(), item.target.pos, lang)
        found = self._records_json.get(key)
        if found is None:
            records = {synset: self.record(synset) for synset in {item.synset, *(s.synset for s in senses)}}
            record = lexicon_record(
                self.lexicon.name, item.target.lemma, lang, item.synset, senses, records, source_allowed,
                consulted, sets.good_count, sets.bad_count,
            )  # fmt: skip
            if len(self._records_json) >= RECORDS_KEPT:
                self._records_json.clear()  # bounded on its own: on varied data the records seldom repeat
            found = self._records_json[key] = record.to_json()
        return found
