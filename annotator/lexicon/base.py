"""The lexicon interface (SPEC §4.1): what pre-population and the filters may ask of any provider.

Providers (BabelNet HTTP, offline snapshot) implement ``Lexicon``; nothing else in the code base
knows which one it talks to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from annotator.errors import UserError

#: Language codes are upper-case ISO 639-1 as BabelNet spells them: EN, DE, ES, IT, RU, ZH.
ENGLISH = "EN"


@dataclass(frozen=True)
class LexSense:
    """One lexicalization of a synset: lemma (spaces, not underscores), language, source.

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


class LexiconError(UserError, RuntimeError):
    """A provider failed in a way the user must hear about (bad snapshot, network exhausted).

    A ``UserError``, so the command line and the app show its message instead of a traceback.
    """


class LexiconQuotaError(LexiconError):
    """The provider refused to answer (invalid key or daily limit); the run must stop, keeping its work."""


class LexiconUnavailableError(LexiconError):
    """The provider could not be reached even after retries; the run stops (keeping its work) instead of
    skipping every remaining item one slow timeout at a time."""


@runtime_checkable
class Lexicon(Protocol):
    """What any lexicon provider answers. ``name``/``version`` go into export manifests."""

    name: str
    version: str

    def synset_ids(self, lemma: str, pos: str) -> list[str]:
        """English synsets containing (lemma, UPOS), in the provider's order (unranked)."""
        ...

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        """The synset's glosses and its senses in English plus ``langs``."""
        ...

    def synset_ids_in(self, lemma: str, lang: str, pos: str) -> list[str]:
        """Synsets holding ``lemma`` as a lexicalization in ``lang`` (for the target-language filter, §4.4.3)."""
        ...
