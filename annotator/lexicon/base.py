"""The lexicon interface (SPEC §4.1): what pre-population and the filters may ask of any provider.

Providers (BabelNet HTTP, offline snapshot) implement ``Lexicon``; nothing else in the code base
knows which one it talks to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from annotator.domain.lexicon_records import ENGLISH, LexSense, SynsetRecord
from annotator.errors import UserError

__all__ = [
    "ENGLISH",
    "LexSense",
    "Lexicon",
    "LexiconError",
    "LexiconQuotaError",
    "LexiconUnavailableError",
    "RelatedSynsets",
    "SynsetRecord",
]


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


@runtime_checkable
class RelatedSynsets(Protocol):
    """A provider that also knows σ's relations (BabelNet's outgoing edges, a snapshot holding them): what the
    related-sense suggestions follow when the project's lexicon is not a wordnet (whose relations are read from its
    WN-LMF files instead)."""

    def related(self, synset_id: str) -> list[tuple[str, str]]:
        """(relation, related synset id) of ``synset_id``: hypernym, instance_hypernym, hyponym, similar, also,
        verb_group, entails, derivation, in that kind's order for translators, each related synset once."""
        ...
