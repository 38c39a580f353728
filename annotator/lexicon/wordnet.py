"""A lexicon provider over open wordnets (English WordNet 3.0 + Open Multilingual Wordnet) through the ``wn`` library.

Lets a project pre-populate without a BabelNet key: Ω(λ) comes from the English lexicon in WordNet sense order,
G0/B0 from each language's lexicons through the ILI (or the shared WordNet 3.0 offset). Synset ids are BabelNet's
notation for WordNet synsets (``wn:13773250n``) so items, exports and filters stay provider-neutral.

The project's ``wn`` database lives in its own folder (``using_folder``), never the user's global one. Files are
checked by ``wordnet_lmf`` and added all or nothing by ``wordnet_store`` (names kept here for callers); look-ups read
a per-lexicon index written from the same checked file (``wordnet_index``), since ``wn``'s object-at-a-time queries
cost milliseconds each.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from annotator.domain.lexicon_forms import resolve, rules_for
from annotator.lexicon.base import ENGLISH, LexiconError, LexSense, SynsetRecord
from annotator.lexicon.wordnet_index import LexiconIndex, index_path
from annotator.lexicon.wordnet_lmf import LMF_SUFFIXES, NOT_WORDNET_30, OFFSET_ID, WordnetFileError, project_language
from annotator.lexicon.wordnet_store import (
    DATABASE,
    LexiconInfo,
    add_lexicons,
    find_lexicon,
    installed_lexicons,
    lexicon_rows,
    lexicon_specifiers,
    remove_lexicon,
    using_folder,
)

#: The folder, inside the project's data folder, that holds the project's own ``wn`` database.
WORDNET_FOLDER = "wordnet"
#: Source names the English lexicon's senses carry: rank_senses reads WordNet sense numbers from source "WN".
ENGLISH_SOURCE = "WN"

#: ``wn:`` + WordNet 3.0 offset + n/v/a/r (BabelNet's notation for WordNet synsets; satellites are ``a``).
WN_ID = re.compile(r"^wn:(\d{8})([nvar])$")
UPOS_TO_WN = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
WN_TO_UPOS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}


class WordnetLexicon:
    """The ``Lexicon`` interface over a project's wordnet: one English WordNet 3.0 lexicon plus other languages.

    The lexicons are the ones in the project's ``wn`` database; look-ups read each lexicon's index (written from
    its WN-LMF file by ``add_lexicons``), loaded once: pre-populating 100,000 items stays within seconds.
    """

    name = "wordnet"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if not (folder / DATABASE).exists():
            raise LexiconError(
                f"No wordnet in {folder}: run 'annotator lexicon use-wordnet SOURCE…' (WN-LMF files or wn package ids)."
            )
        lexicons = [(i, v, lang, f"{i}:{v}") for i, v, lang in lexicon_rows(folder)]
        english = [lex for lex in lexicons if project_language(lex[2]) == ENGLISH]
        if len(english) != 1:
            found = ", ".join(lex[3] for lex in english) or "none"
            raise LexiconError(
                f"The project's wordnet needs exactly one English WordNet 3.0 lexicon (found: {found}); "
                "add omw-en:1.4 or a wn30en WN-LMF file."
            )
        self.version = "+".join(sorted(lex[3] for lex in lexicons))
        self._english_spec = english[0][3]
        #: Lexicon id → ``id:version``, and the English lexicon's id (what pre-population records as sources).
        self.specifiers = {lex[0]: lex[3] for lex in lexicons}
        self.english_id = english[0][0]
        en = self._load_index(*english[0][:2])  # one index in memory at a time: the peak stays low
        self._info = en.synsets  # wn: id → [ILI, synset POS, definition, own id]
        self._keys = en.keys
        self._by_ili = {info[0]: wn_id for wn_id, info in en.synsets.items() if info[0]}
        ranked: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._members: dict[str, list[tuple[str, int]]] = {}
        for lemma, pos, senses in en.entries:
            bucket = ranked.setdefault((lemma.casefold(), pos), [])
            for ref, number in senses:
                wn_id = ref if ref.startswith("wn:") else self._by_ili.get(ref)
                if wn_id:
                    bucket.append((number, wn_id))
                    self._members.setdefault(wn_id, []).append((lemma, number))
        self._english_ranks = {
            key: list(dict.fromkeys(wn_id for _n, wn_id in sorted(bucket, key=lambda e: e[0])))
            for key, bucket in ranked.items()
        }
        del en, ranked
        # other languages: lexicon id → wn: id → lemmas (the reverse, for the filters, is built when first asked)
        self._by_lang: dict[str, list[tuple[str, dict[str, list[str]]]]] = {}
        self._lemma_synsets: dict[tuple[str, str, str], list[str]] | None = None
        #: Per lexicon id: how many lemmas each form rule changed, and how many lemmas changed in all
        #: (``domain.lexicon_forms``: a lemma is kept as the form the lexicon means, never with its markers).
        self.form_rules: dict[str, Counter[str]] = {}
        self.forms_resolved: dict[str, int] = {}
        for lex_id, version, language, _spec in lexicons:
            lang = project_language(language)
            if lang == ENGLISH:
                continue
            index = self._load_index(lex_id, version)
            lemmas: dict[str, list[str]] = {}
            rules = rules_for(lex_id)
            counts: Counter[str] = Counter()
            resolved = 0
            for lemma, _pos, senses in index.entries:
                forms = resolve(lemma, rules, counts)
                resolved += forms != (lemma,)
                for ref, _number in senses:
                    wn_id = ref if ref.startswith("wn:") else self._by_ili.get(ref)
                    if wn_id is not None:
                        lemmas.setdefault(wn_id, []).extend(forms)
            self.form_rules[lex_id] = counts
            self.forms_resolved[lex_id] = resolved
            self._by_lang.setdefault(lang, []).append((lex_id, lemmas))
            del index

    def _load_index(self, lexicon_id: str, version: str) -> LexiconIndex:
        path = index_path(self.folder, lexicon_id, version)
        try:
            return LexiconIndex.read(path)
        except (OSError, ValueError, KeyError, EOFError) as error:
            raise LexiconError(
                f"The wordnet lexicon {lexicon_id}:{version} has no readable index in {self.folder} ({error}): "
                "add its WN-LMF file again with 'annotator lexicon use-wordnet'."
            ) from error

    def forms_report(self) -> list[str]:
        """One line per lexicon whose lemmas a form rule changed: how many, and by which rule."""
        from annotator.domain.lexicon_forms import describe

        lines = []
        for lex_id, resolved in sorted(self.forms_resolved.items()):
            if resolved:
                rules = "; ".join(f"{describe(name)}: {n:,}" for name, n in self.form_rules[lex_id].most_common())
                lines.append(f"{lex_id}: {resolved:,} lemma(s) read as the lexicon means them ({rules})")
        return lines

    # --- what the project's source policy needs --------------------------------------------------------

    @property
    def default_sources(self) -> Mapping[str, frozenset[str]]:
        """By default every lexicon of a language is allowed (its id is the sense's source); English is "WN"."""
        defaults = {lang: frozenset(lex_id.upper() for lex_id, _l in nets) for lang, nets in self._by_lang.items()}
        defaults[ENGLISH] = frozenset({ENGLISH_SOURCE})
        return defaults

    def languages(self) -> dict[str, list[str]]:
        """Project language → lexicon ids (for status lines)."""
        return {lang: [lex_id for lex_id, _l in nets] for lang, nets in sorted(self._by_lang.items())}

    # --- the Lexicon interface -------------------------------------------------------------------------

    def synset_ids(self, lemma: str, pos: str) -> list[str]:
        wn_pos = UPOS_TO_WN.get(pos)
        if wn_pos is None:
            return []
        return list(self._english_ranks.get((" ".join(lemma.replace("_", " ").split()).casefold(), wn_pos), ()))

    def _english_synset(self, synset_id: str) -> str:
        match = WN_ID.match(synset_id)
        if not match:
            if synset_id.startswith("bn:"):
                raise LexiconError(
                    f"{synset_id} is a BabelNet synset id, but this project's lexicon is a wordnet (ids like "
                    "wn:13773250n): use a BabelNet lexicon for this item or give it its WordNet 3.0 synset"
                )
            raise LexiconError(f"{synset_id} is not a WordNet 3.0 synset id (wn: + 8 digits + n, v, a or r)")
        if synset_id not in self._info:
            raise LexiconError(f"{synset_id} is not in the English wordnet {self._english_spec}")
        return synset_id

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        self._english_synset(synset_id)
        _ili, ss_type, definition, _own = self._info[synset_id]
        senses = [LexSense(lemma, ENGLISH, ENGLISH_SOURCE, n) for lemma, n in self._members.get(synset_id, ())]
        for lang in dict.fromkeys(lang.upper() for lang in langs):
            for lex_id, lemmas in self._by_lang.get(lang, ()):
                senses.extend(LexSense(lemma, lang, lex_id) for lemma in lemmas.get(synset_id, ()))
        return SynsetRecord(synset_id, WN_TO_UPOS[ss_type], {ENGLISH: definition}, tuple(senses))

    def english_senses(self) -> Iterator[tuple[str, str, str]]:
        """Every (lemma, UPOS, ``wn:`` id) of the English lexicon (for benchmarks and samples)."""
        for (lemma, wn_pos), wn_ids in self._english_ranks.items():
            for wn_id in wn_ids:
                yield lemma, WN_TO_UPOS[wn_pos], wn_id

    def synset_for_sense_key(self, key: str) -> str | None:
        """The ``wn:`` synset of an English WordNet sense key (``shot%1:23:00::``), or None when it has none."""
        return self._keys.get(key.strip())

    def synset_ids_in(self, lemma: str, lang: str, pos: str) -> list[str]:
        lang = lang.upper()
        wn_pos = UPOS_TO_WN.get(pos)
        if wn_pos is None:
            return []
        if lang == ENGLISH:
            return self.synset_ids(lemma, pos)
        if self._lemma_synsets is None:
            reverse: dict[tuple[str, str, str], list[str]] = {}
            for other, nets in self._by_lang.items():
                for _lex_id, lemmas in nets:
                    for wn_id, words in lemmas.items():
                        for word in words:
                            found = reverse.setdefault((other, word.casefold(), wn_id[-1]), [])
                            if wn_id not in found:
                                found.append(wn_id)
            self._lemma_synsets = reverse
        return list(self._lemma_synsets.get((lang, " ".join(lemma.split()).casefold(), wn_pos), ()))


def foreign_synset_reason(synset_id: str, lexicon: object) -> str | None:
    """Why an item's synset id belongs to the other id scheme than the project's lexicon (skip, don't ask)."""
    if isinstance(lexicon, WordnetLexicon):
        if synset_id.startswith("bn:"):
            return (
                f"{synset_id} is a BabelNet synset id but this project's lexicon is a wordnet (wn: ids); "
                "switch to BabelNet ('annotator lexicon use-babelnet') or give the item its WordNet 3.0 synset"
            )
        return None
    if synset_id.startswith("wn:") and getattr(lexicon, "name", "") == "babelnet":
        return (
            f"{synset_id} is a WordNet 3.0 synset id but this project's lexicon is BabelNet (bn: ids); "
            "switch to a wordnet ('annotator lexicon use-wordnet') or give the item its BabelNet synset"
        )
    return None


def default_sources(lexicon: object) -> Mapping[str, frozenset[str]] | None:
    """A provider's own default allowed sources per language (wordnet: its lexicon ids), or None for SPEC §4.3's."""
    found = getattr(lexicon, "default_sources", None)
    return found if isinstance(found, Mapping) else None


__all__ = [
    "LMF_SUFFIXES",
    "NOT_WORDNET_30",
    "OFFSET_ID",
    "WORDNET_FOLDER",
    "LexiconInfo",
    "WordnetFileError",
    "WordnetLexicon",
    "add_lexicons",
    "default_sources",
    "find_lexicon",
    "foreign_synset_reason",
    "installed_lexicons",
    "lexicon_specifiers",
    "project_language",
    "remove_lexicon",
    "using_folder",
]
