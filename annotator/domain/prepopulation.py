"""Pre-population (SPEC §2): rank Ω(λ) and derive G0, B0, provenance and overlaps from lexicon answers.

Pure functions over ``SynsetRecord``s: the service fetches the records, this module decides what they mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from annotator.domain.candidates import CandidateError, key_string, parse_candidate
from annotator.domain.lexicon_records import ENGLISH, SynsetRecord
from annotator.domain.model import CandidateEntry, Origin, SenseEntry


def rank_senses(lemma: str, records: Iterable[SynsetRecord]) -> list[SenseEntry]:
    """Ω(λ): the synsets holding a WordNet sense of ``lemma``, ordered by WordNet sense number (MFS first)."""
    numbered = []
    for record in records:
        number = record.wordnet_sense_number(lemma)
        if number is not None:
            numbered.append((number, record.id, record))
    numbered.sort(key=lambda entry: (entry[0], entry[1]))
    return [
        SenseEntry(synset=synset_id, rank=rank, gloss=record.gloss(ENGLISH), wordnet_sense_number=number)
        for rank, (number, synset_id, record) in enumerate(numbered, start=1)
    ]


def lexicalizations(record: SynsetRecord, lang: str, source_allowed: Callable[[str], bool]) -> list[str]:
    """Λ_L(σ): the synset's lemmas in ``lang`` from allowed sources, first spelling of each identity kept."""
    seen: dict[str, str] = {}
    for sense in record.senses:
        if sense.lang != lang or not source_allowed(sense.source):
            continue
        lemma = " ".join(sense.lemma.replace("_", " ").split())
        seen.setdefault(lemma.casefold(), lemma)
    return list(seen.values())


@dataclass(frozen=True)
class InitialSets:
    good: tuple[CandidateEntry, ...]
    bad: tuple[CandidateEntry, ...]
    overlaps: tuple[str, ...]
    skipped: tuple[str, ...]  # lexicon lemmas that are not valid candidates (reported, not stored)


class LexiconCandidate(NamedTuple):
    """A lexicon lemma in G0 or B0: its candidate text and the synsets it stands for (σ first, then by rank)."""

    text: str
    synsets: tuple[str, ...]


class InitialLists(NamedTuple):
    """G0/B0 as plain tuples (what ``InitialSets`` holds as ``CandidateEntry`` objects)."""

    good: tuple[LexiconCandidate, ...]
    bad: tuple[LexiconCandidate, ...]
    overlaps: tuple[str, ...]
    skipped: tuple[str, ...]


@lru_cache(maxsize=200_000)
def _lexicon_candidate_text(lemma: str) -> str | None:
    """Lexicon lemmas repeat across thousands of items: parse each spelling once (the text, a string, is kept)."""
    try:
        return parse_candidate(lemma).text
    except CandidateError:
        return None


class SenseTable:
    """Λ_L of the senses of one lemma in one language, each lemma's identity and candidate text worked out once.

    Every item of the lemma derives its G0/B0 from the same table (``initial_lists``), so the work per item is a
    merge of prepared parts. ``senses``: Ω(λ) by rank; ``lexicalizations_by_synset`` holds Λ_L of each of them and
    of any target synset outside Ω(λ).
    """

    def __init__(self, senses: Sequence[SenseEntry], lexicalizations_by_synset: Mapping[str, Sequence[str]]) -> None:
        self.order = tuple(s.synset for s in senses)
        self.rank = {s.synset: s.rank for s in senses}
        #: Per synset, its lemmas as (lemma, identity key, the candidate it gives standing for this synset alone, or
        #: None when the lemma is not a valid candidate): most candidates stand for one synset, made once here.
        self.lemmas: dict[str, tuple[tuple[str, str, LexiconCandidate | None], ...]] = {}
        keys: dict[str, str] = {}
        for synset, lemmas in lexicalizations_by_synset.items():
            prepared = []
            for lemma in lemmas:
                key = keys.get(lemma)
                if key is None:
                    key = keys[lemma] = key_string(lemma, None)
                text = _lexicon_candidate_text(lemma)
                prepared.append((lemma, key, None if text is None else LexiconCandidate(text, (synset,))))
            self.lemmas[synset] = tuple(prepared)


def initial_lists(target_synset: str, table: SenseTable) -> InitialLists:
    """G0 = Λ_L(σ); B0 = ⋃ Λ_L(σ') over the other senses, minus G0; lemmas in both stay in G0 as overlaps.

    Provenance lists every synset a lemma came from, σ first, then the others by rank, because the MFS
    metrics need to know which sense a BAD candidate stands for.
    """
    bad_sources: dict[str, list[str]] = {}
    bad_first: dict[str, tuple[str, LexiconCandidate | None]] = {}
    for synset in table.order:
        if synset == target_synset:
            continue
        for lemma, key, alone in table.lemmas.get(synset, ()):
            found = bad_sources.get(key)
            if found is None:
                bad_sources[key] = [synset]
                bad_first[key] = (lemma, alone)
            else:
                found.append(synset)

    good: list[LexiconCandidate] = []
    bad: list[LexiconCandidate] = []
    overlaps: list[str] = []
    skipped: list[str] = []
    good_keys: set[str] = set()
    for lemma, key, alone in table.lemmas.get(target_synset, ()):
        if alone is None:
            skipped.append(lemma)
            continue
        good_keys.add(key)
        also = bad_sources.get(key)
        if also is None:
            good.append(alone)
            continue
        good.append(LexiconCandidate(alone.text, (target_synset, *also)))
        where = ", ".join(f"{s} (sense {table.rank.get(s, '?')})" for s in also)
        overlaps.append(f"{alone.text}: also a lexicalization of {where}; kept in GOOD — decide")
    for key, synsets in bad_sources.items():
        if key in good_keys:
            continue
        lemma, alone = bad_first[key]
        if alone is None:
            skipped.append(lemma)
        elif len(synsets) == 1:
            bad.append(alone)
        else:
            bad.append(LexiconCandidate(alone.text, tuple(synsets)))
    return InitialLists(tuple(good), tuple(bad), tuple(overlaps), tuple(skipped))


def initial_sets(
    target_synset: str,
    senses: Sequence[SenseEntry],
    lexicalizations_by_synset: Mapping[str, Sequence[str]],
) -> InitialSets:
    """``initial_lists`` with candidate objects: G0/B0 of one item-language."""
    lists = initial_lists(target_synset, SenseTable(senses, lexicalizations_by_synset))
    return InitialSets(
        tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.good),
        tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.bad),
        lists.overlaps,
        lists.skipped,
    )
