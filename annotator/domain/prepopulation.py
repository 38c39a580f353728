"""Pre-population (SPEC §2): rank Ω(λ) and derive G0, B0, provenance and overlaps from lexicon answers.

Pure functions over ``SynsetRecord``s: the service fetches the records, this module decides what they mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

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


@lru_cache(maxsize=200_000)
def _lexicon_candidate_text(lemma: str) -> str | None:
    """Lexicon lemmas repeat across thousands of items: parse each spelling once. The cache keeps the candidate's
    text, a string, rather than the ``Candidate``: 150,000 cached objects made the collector's every full pass
    longer (pre-population at 10,000 items)."""
    try:
        return parse_candidate(lemma).text
    except CandidateError:
        return None


def _entry(lemma: str, synsets: Sequence[str]) -> CandidateEntry | None:
    text = _lexicon_candidate_text(lemma)
    if text is None:
        return None
    return CandidateEntry(text, None, Origin.LEXICON, tuple(synsets))


def initial_sets(
    target_synset: str,
    senses: Sequence[SenseEntry],
    lexicalizations_by_synset: Mapping[str, Sequence[str]],
) -> InitialSets:
    """G0 = Λ_L(σ); B0 = ⋃ Λ_L(σ') over the other senses, minus G0; lemmas in both stay in G0 as overlaps.

    Provenance lists every synset a lemma came from, σ first, then the others by rank, because the MFS
    metrics need to know which sense a BAD candidate stands for.
    """
    other_synsets = [s.synset for s in senses if s.synset != target_synset]
    bad_sources: dict[str, list[str]] = {}
    bad_spelling: dict[str, str] = {}
    for synset in other_synsets:
        for lemma in lexicalizations_by_synset.get(synset, []):
            key = key_string(lemma, None)
            bad_sources.setdefault(key, []).append(synset)
            bad_spelling.setdefault(key, lemma)

    good: list[CandidateEntry] = []
    bad: list[CandidateEntry] = []
    overlaps: list[str] = []
    skipped: list[str] = []
    good_keys: set[str] = set()
    rank = {s.synset: s.rank for s in senses}
    for lemma in lexicalizations_by_synset.get(target_synset, []):
        key = key_string(lemma, None)
        also = bad_sources.get(key, [])
        entry = _entry(lemma, [target_synset, *also])
        if entry is None:
            skipped.append(lemma)
            continue
        good.append(entry)
        good_keys.add(key)
        if also:
            where = ", ".join(f"{s} (sense {rank.get(s, '?')})" for s in also)
            overlaps.append(f"{entry.text}: also a lexicalization of {where}; kept in GOOD — decide")
    for key, synsets in bad_sources.items():
        if key in good_keys:
            continue
        entry = _entry(bad_spelling[key], synsets)
        if entry is None:
            skipped.append(bad_spelling[key])
            continue
        bad.append(entry)
    return InitialSets(tuple(good), tuple(bad), tuple(overlaps), tuple(skipped))
