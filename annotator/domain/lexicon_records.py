"""What a lexicon answers, as plain data (SPEC §4.1): synsets with their glosses and senses.

In the domain so pre-population and the filters (pure functions) can take them without importing a provider;
``annotator.lexicon.base`` re-exports them for the providers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

#: Language codes are upper-case ISO 639-1 as BabelNet spells them: EN, DE, ES, IT, RU, ZH.
ENGLISH = "EN"


class LexSense(NamedTuple):
    """One lexicalization of a synset: lemma (spaces, not underscores), language, source. A typed row: a provider
    answers one per sense, so it is made cheaply and holds no object of its own for the cyclic collector.

    ``wordnet_sense_number`` is set only for English WordNet senses (type WordNetSense, source WN).
    """

    lemma: str
    lang: str
    source: str
    wordnet_sense_number: int | None = None


@dataclass(frozen=True)
class SynsetRecord:
    """A synset with its glosses (lang -> first gloss) and its senses in the languages asked for."""

    id: str
    pos: str
    glosses: dict[str, str] = field(default_factory=dict)
    senses: tuple[LexSense, ...] = ()

    def gloss(self, lang: str = ENGLISH) -> str:
        return self.glosses.get(lang) or self.glosses.get(ENGLISH) or ""

    def wordnet_sense_number(self, lemma: str) -> int | None:
        """The WordNet sense number of English ``lemma`` in this synset (the sense rank source)."""
        wanted = lemma.casefold().replace("_", " ")
        for sense in self.senses:
            if (
                sense.lang == ENGLISH
                and sense.source == "WN"
                and sense.wordnet_sense_number is not None
                and sense.lemma.casefold() == wanted
            ):
                return sense.wordnet_sense_number
        return None
