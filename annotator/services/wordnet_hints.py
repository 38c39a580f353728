"""Which sense of λ a typed candidate lexicalizes, from the project's wordnet (for Curate's hints).

A translator typing "sparo" for the drink sense of *shot* should hear that the wordnet has it under another
sense ("the act of firing a projectile", sense 1). Read-only look-ups; ``wn`` is opened with multithreading
allowed, since Streamlit runs scripts on several threads.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.context import ProjectContext
from annotator.domain.hints import word_lookup_hint
from annotator.domain.model import Item
from annotator.lexicon.base import LexiconError
from annotator.lexicon.wordnet import WordnetLexicon
from annotator.versioned_cache import VersionedCache

#: Per wordnet folder: its provider while the database file's time is unchanged.
_providers: VersionedCache[WordnetLexicon] = VersionedCache(keep=1)


@dataclass(frozen=True)
class WordSense:
    """A synset a typed word lexicalizes: σ itself, another sense of λ (``rank`` μ), or unrelated (``rank`` None)."""

    synset: str
    is_item_synset: bool
    rank: int | None
    gloss: str


def _wordnet(project: ProjectContext) -> WordnetLexicon | None:
    """The project's wordnet provider, reused while its database file is unchanged; None for other providers."""
    if project.settings().lexicon.provider != "wordnet":
        return None
    folder = project.wordnet_folder
    database = folder / "wn.db"
    if not database.exists():
        return None
    return _providers.get(folder, database.stat().st_mtime, lambda: WordnetLexicon(folder))


def project_wordnet(project: ProjectContext) -> WordnetLexicon | None:
    """The project's wordnet provider shared with the suggestions (None for other providers)."""
    return _wordnet(project)


def word_senses(project: ProjectContext, item: Item, lang: str, text: str, limit: int = 8) -> list[WordSense]:
    """Every synset of the project's lexicons that ``text`` lexicalizes in ``lang`` (any part of speech), each marked
    σ, another sense of λ (with its rank) or unrelated, with its gloss: σ first, then λ's senses by rank, then the
    rest (at most ``limit``). Empty for a provider that is not a local wordnet, or an empty text."""
    wanted = " ".join(text.replace("_", " ").split())
    lexicon = _wordnet(project)
    if lexicon is None or not wanted:
        return []
    lang = lang.upper()
    ranks = {sense.synset: sense.rank for sense in item.senses}
    found: list[WordSense] = []
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        for synset in lexicon.synset_ids_in(wanted, lang, pos):
            try:
                gloss = lexicon.synset(synset, []).gloss()
            except LexiconError:
                gloss = ""
            found.append(WordSense(synset, synset == item.synset, ranks.get(synset), gloss))
    found.sort(key=lambda s: (not s.is_item_synset, s.rank is None, s.rank or 0, s.synset))
    return found[:limit]


def typed_word_hint(project: ProjectContext, item: Item, lang: str, text: str) -> str | None:
    """What the project's lexicons say of any word typed in an Add box (σ → usually GOOD, another sense of λ →
    usually BAD, or unrelated), or None when there is nothing to say (not a wordnet project, an empty text)."""
    if _wordnet(project) is None or not text.strip():
        return None
    found = word_senses(project, item, lang, text)
    return word_lookup_hint(item.target.lemma, [(s.synset, s.is_item_synset, s.rank, s.gloss) for s in found])
