"""Pre-population (SPEC §2): rank Ω(λ) and derive G0, B0, provenance and overlaps from lexicon answers.

Pure functions over ``SynsetRecord``s: the service fetches the records, this module decides what they mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from annotator.domain.candidates import MAX_LENGTH, CandidateError, key_string, parse_candidate
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
    return distinct_spellings(s.lemma for s in record.senses if s.lang == lang and source_allowed(s.source))


def distinct_spellings(lemmas: Iterable[str]) -> list[str]:
    """Lexicon lemmas with spaces for underscores, single-spaced, the first spelling of each identity kept."""
    seen: dict[str, str] = {}
    for raw in lemmas:
        lemma = " ".join(raw.replace("_", " ").split())
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


#: A lexicon lemma ready for G0/B0: (the lemma as the lexicon spells it, its identity key, the text of the
#: candidate it gives or None when it is not a valid candidate). A plain tuple of strings: the cyclic collector
#: stops tracking it, so keeping one per lemma of every synset met costs a full collection nothing.
PreparedLemma = tuple[str, str, "str | None"]

#: Characters that make a lemma more than plain text for the candidate rules (brackets, the wildcard).
_SYNTAX = frozenset("[]*")


def _plain(lemma: str) -> bool:
    """Printable ASCII without brackets or wildcard, short enough: its own candidate text once single-spaced."""
    return lemma.isascii() and lemma.isprintable() and 0 < len(lemma) <= MAX_LENGTH and _SYNTAX.isdisjoint(lemma)


def candidate_text(lemma: str) -> str | None:
    """The text of the candidate a lexicon lemma gives (``parse_candidate``), None when it is not a valid one.

    Printable ASCII without brackets or wildcard, single-spaced and short enough, is already its own candidate
    text (no normalisation can change it, no rule refuses it): most lemmas skip the parse.
    """
    if _plain(lemma) and " ".join(lemma.split()) == lemma:
        return lemma
    try:
        return parse_candidate(lemma).text
    except CandidateError:
        return None


def prepare_lemmas(lemmas: Iterable[str], texts: dict[str, str | None] | None = None) -> tuple[PreparedLemma, ...]:
    """Λ_L of one synset ready for ``initial_lists``; ``texts`` keeps each spelling's candidate text (a lemma
    recurs across synsets), so it is worked out once per run."""
    texts = {} if texts is None else texts
    prepared = []
    for lemma in lemmas:
        if lemma in texts:
            text = texts[lemma]
        else:
            text = texts[lemma] = candidate_text(lemma)
        # an ASCII lemma's identity is its case-folded text (NFC changes no ASCII text): no call per lemma for it
        prepared.append((lemma, lemma.casefold() if lemma.isascii() else key_string(lemma, None), text))
    return tuple(prepared)


def prepare_spellings(lemmas: Iterable[str], known: dict[str, PreparedLemma]) -> tuple[PreparedLemma, ...]:
    """``prepare_lemmas(distinct_spellings(lemmas))`` in one pass. A plain lemma (``_plain``) is its own candidate
    text and identity once single-spaced; any other's answer is kept in ``known`` (a lemma recurs across synsets),
    so its parse is made once."""
    distinct: dict[str, PreparedLemma] = {}
    for raw in lemmas:
        spelling = " ".join(raw.replace("_", " ").split())
        if _plain(spelling):  # single-spaced already: ``candidate_text``'s first test holds, without its split
            folded = spelling.casefold()
            if folded not in distinct:
                distinct[folded] = (spelling, folded, spelling)
            continue
        found = known.get(spelling)
        if found is None:
            key = spelling.casefold() if spelling.isascii() else key_string(spelling, None)
            found = known[spelling] = (spelling, key, candidate_text(spelling))
        distinct.setdefault(spelling.casefold(), found)
    return tuple(distinct.values())


def initial_lists(
    target_synset: str, senses: Sequence[SenseEntry], prepared: Mapping[str, Sequence[PreparedLemma]]
) -> InitialLists:
    """G0 = Λ_L(σ); B0 = ⋃ Λ_L(σ') over the other senses, minus G0; lemmas in both stay in G0 as overlaps.

    ``prepared``: Λ_L of each sense of Ω(λ) (``senses``, by rank) and of σ, as ``prepare_lemmas`` gives it.
    Provenance lists every synset a lemma came from, σ first, then the others by rank, because the MFS
    metrics need to know which sense a BAD candidate stands for.
    """
    bad_sources: dict[str, list[str]] = {}
    bad_first: dict[str, tuple[str, str | None]] = {}
    for sense in senses:
        synset = sense.synset
        if synset == target_synset:
            continue
        for lemma, key, text in prepared.get(synset, ()):
            found = bad_sources.get(key)
            if found is None:
                bad_sources[key] = [synset]
                bad_first[key] = (lemma, text)
            else:
                found.append(synset)

    good: list[LexiconCandidate] = []
    bad: list[LexiconCandidate] = []
    overlaps: list[str] = []
    skipped: list[str] = []
    good_keys: set[str] = set()
    for lemma, key, text in prepared.get(target_synset, ()):
        if text is None:
            skipped.append(lemma)
            continue
        good_keys.add(key)
        also = bad_sources.get(key)
        good.append(LexiconCandidate(text, (target_synset,) if also is None else (target_synset, *also)))
        if also is not None:
            rank = {s.synset: s.rank for s in senses}
            where = ", ".join(f"{s} (sense {rank.get(s, '?')})" for s in also)
            overlaps.append(f"{text}: also a lexicalization of {where}; kept in GOOD — decide")
    for key, synsets in bad_sources.items():
        if key in good_keys:
            continue
        lemma, text = bad_first[key]
        if text is None:
            skipped.append(lemma)
        else:
            bad.append(LexiconCandidate(text, tuple(synsets)))
    return InitialLists(tuple(good), tuple(bad), tuple(overlaps), tuple(skipped))


def as_sets(lists: InitialLists) -> InitialSets:
    """G0/B0 as candidate objects."""
    return InitialSets(
        tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.good),
        tuple(CandidateEntry(c.text, None, Origin.LEXICON, c.synsets) for c in lists.bad),
        lists.overlaps,
        lists.skipped,
    )


def initial_sets(
    target_synset: str,
    senses: Sequence[SenseEntry],
    lexicalizations_by_synset: Mapping[str, Sequence[str]],
) -> InitialSets:
    """``initial_lists`` with candidate objects: G0/B0 of one item-language from its senses' Λ_L."""
    texts: dict[str, str | None] = {}
    prepared = {synset: prepare_lemmas(lemmas, texts) for synset, lemmas in lexicalizations_by_synset.items()}
    return as_sets(initial_lists(target_synset, senses, prepared))
