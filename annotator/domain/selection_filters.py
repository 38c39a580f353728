"""Selection filters (SPEC §4.4, DiBiMT §3.2.2): find items that would make a weak benchmark item.

They report, never delete: each failing item gets the rules it broke, and a lead decides to exclude it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from annotator.domain.model import Item

POLYSEMY = "polysemy"
ONE_PER_SENSE = "one_per_sense"
TARGET_LANGUAGE = "target_language"
RULES = (POLYSEMY, ONE_PER_SENSE, TARGET_LANGUAGE)
MIN_POLYSEMY = 3


def rule_of(failure: str) -> str:
    """Failures are stored as 'rule: explanation'."""
    return failure.split(":", 1)[0]


def polysemy_failure(item: Item) -> str | None:
    degree = item.polysemy_degree or 0
    if degree < MIN_POLYSEMY:
        return f"{POLYSEMY}: δ({item.target.lemma}, {item.target.pos}) = {degree} < {MIN_POLYSEMY}"
    return None


def one_per_sense_failures(items: Sequence[Item]) -> dict[str, str]:
    """At most one sentence per sense per source: the first item (import order) is kept, the rest flagged."""
    first: dict[tuple[str, str], str] = {}
    failures: dict[str, str] = {}
    for item in items:
        key = (item.synset, item.source)
        if key in first:
            failures[item.id] = (
                f"{ONE_PER_SENSE}: {item.synset} already has item {first[key]} from source {item.source or '(none)'}"
            )
        else:
            first[key] = item.id
    return failures


def target_language_failures(
    item: Item,
    lexicalizations_by_lang: dict[str, list[str]],
    other_synsets_of: Callable[[str, str], Iterable[str]],
    english_lemmas_of: Callable[[str], Iterable[str]],
) -> list[str]:
    """For every language L and l ∈ Λ_L(σ): no other synset of l in L may have λ as an English lexicalization.

    ``other_synsets_of(l, L)`` lists the synsets of ``l`` in ``L``; ``english_lemmas_of(s)`` the English
    lemmas of synset ``s``. One failure string per (language, lemma, synset) that breaks the rule.
    """
    lemma = item.target.lemma.casefold()
    failures = []
    for lang, lemmas in sorted(lexicalizations_by_lang.items()):
        for lexicalization in lemmas:
            for synset in other_synsets_of(lexicalization, lang):
                if synset == item.synset:
                    continue
                if lemma in {e.casefold() for e in english_lemmas_of(synset)}:
                    failures.append(
                        f"{TARGET_LANGUAGE}: {lang} {lexicalization!r} also means {synset}, "
                        f"which has {item.target.lemma!r} in English"
                    )
    return failures
