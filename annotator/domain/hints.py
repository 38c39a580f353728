"""Hints while typing a candidate: which sense of λ the lexicon gave the typed text for.

Pre-population stores, for every candidate the lexicon suggested, the synsets of Ω(λ) it lexicalizes (its
provenance). A translator typing one of those into an Add box is told which sense it came from, with its gloss,
before adding it — "sense 3: a gunshot — usually BAD" — so a lexicalization of another sense is not put in GOOD by
mistake. Works for every lexicon, since it reads only the stored provenance.
"""

from __future__ import annotations

from annotator.domain.model import CandidateEntry, Item, ItemLanguage, Origin


def lexicon_hint(item: Item, il: ItemLanguage, key: str) -> str | None:
    """What the stored provenance says about the candidate with ``key``, or None when the lexicon did not give it."""
    entries = (*il.good, *il.bad, *il.initial_good, *il.initial_bad)
    entry: CandidateEntry | None = next(
        (e for e in entries if e.key == key and e.origin is Origin.LEXICON and e.synsets), None
    )
    if entry is None:
        return None
    if item.synset in entry.synsets:
        gloss = item.gloss or next((s.gloss for s in item.senses if s.synset == item.synset), "")
        return f"The lexicon gives it for this sense (σ){': ' + gloss if gloss else ''} — usually GOOD."
    parts = []
    for synset in entry.synsets:
        sense = next((s for s in item.senses if s.synset == synset), None)
        name = f"sense {sense.rank}" if sense else synset
        parts.append(f"{name}: {sense.gloss}" if sense and sense.gloss else name)
    return "The lexicon gives it for another sense — " + "; ".join(parts) + " — usually BAD."


def word_lookup_hint(lemma: str, senses: list[tuple[str, bool, int | None, str]]) -> str:
    """What the lexicons say of any typed word, from its synsets (id, is σ, rank in Ω(λ) or None, gloss): σ (usually
    GOOD), another sense of λ (usually BAD), or only unrelated senses (neither)."""
    if not senses:
        return "The lexicons do not have this word."
    if any(is_sigma for _s, is_sigma, _r, _g in senses):
        return "The lexicons have it for this sense (σ) — usually GOOD."
    other = [(rank, gloss) for _s, _is, rank, gloss in senses if rank is not None]
    if other:
        rank, gloss = other[0]
        return f"The lexicons have it for sense {rank} of “{lemma}”{': ' + gloss if gloss else ''} — usually BAD."
    gloss = senses[0][3]
    return f"The lexicons have it only for senses unrelated to “{lemma}”{' (e.g. ' + gloss + ')' if gloss else ''}."
