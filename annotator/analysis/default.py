"""The offline default analyser: regex tokens, simplemma lemmas, jieba for Chinese, no model downloads.

Russian lemmas come from pymorphy3 (OpenCorpora dictionaries) when it is installed: it gives every reading of an
ambiguous form (``были`` → быть, быль; ``стали`` → стать, сталь), the first as the lemma and the others as
``readings``. ``with_stems`` adds a Snowball stem per word (``snowballstemmer``), which the matcher uses only as its
last, separately reported step. Each backend loads on first use of its language, so start-up stays lazy.

It exists so evaluation works on any machine with the base install. It mimics what Stanza does where that matters
for matching: contractions become several words (Italian ``della`` → ``di la``, ``dell'acqua`` → ``di l' acqua``,
German ``zum`` → ``zu dem``, Spanish ``del`` → ``de el``), elided articles and clitics are split off the next word,
and Russian ``ё`` is folded to ``е`` in lemmas. It has no tagger, so every UPOS is None (the cross-PoS check is then
skipped, as SPEC §8 allows).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotator.analysis.base import Analysis
from annotator.analysis.dictionary_cache import cache_root, cached_strategies, jieba_tokenizer, start_reading
from annotator.analysis.morphology import Morphology

if TYPE_CHECKING:  # simplemma is imported when a language first needs it (a Chinese or Russian run may not)
    import simplemma
    from simplemma.strategies import DictionaryLookupStrategy

#: Combining marks kept inside words (NFC leaves some, e.g. in Indic scripts) so they never split a word.
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0900-\u0dff"
_WORD = rf"[\w{_MARKS}]"
#: A word (letters/digits, inner apostrophes and hyphens allowed) or one non-space symbol.
_TOKEN_RE = re.compile(rf"{_WORD}+(?:['’]{_WORD}+)*(?:-{_WORD}+(?:['’]{_WORD}+)*)*|[^\s]")
_APOSTROPHES = "'’"

#: Languages whose elided articles and clitics are written glued to the next word with an apostrophe.
_ELIDING = frozenset({"it", "fr", "ca", "oc"})
#: English clitics split off the end of a word, as Stanza and the UD treebanks do.
_EN_SUFFIXES = ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m")
_EN_SUFFIX_LEMMAS = {"n't": "not", "'re": "be", "'ve": "have", "'ll": "will", "'m": "be"}

#: Contractions expanded into (word, lemma) pairs — the multi-word tokens of the UD treebanks for these languages.
_IT_ARTICLES = {
    "il": "il",
    "lo": "il",
    "la": "il",
    "i": "il",
    "gli": "il",
    "le": "il",
    "l'": "il",
}
_IT_PREPOSITIONS = {"de": "di", "a": "a", "da": "da", "ne": "in", "su": "su"}


def _italian_contractions() -> dict[str, tuple[tuple[str, str], ...]]:
    """``del della dello dei degli delle dell'`` and the same for a, da, in, su (``col``/``coi`` too).

    Built from the stems so the table can't miss a form; ``collo``/``colla`` are left out (neck, glue).
    """
    table: dict[str, tuple[tuple[str, str], ...]] = {}
    endings = {"l": "il", "llo": "lo", "lla": "la", "i": "i", "gli": "gli", "lle": "le", "ll'": "l'"}
    for stem, preposition in _IT_PREPOSITIONS.items():
        for ending, article in endings.items():
            table[stem + ending] = ((preposition, preposition), (article, _IT_ARTICLES[article]))
    table["col"] = (("con", "con"), ("il", "il"))
    table["coi"] = (("con", "con"), ("i", "il"))
    return table


_CONTRACTIONS: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "it": _italian_contractions(),
    "de": {
        form: ((prep, prep), (article, "der"))
        for form, prep, article in (
            ("am", "an", "dem"),
            ("ans", "an", "das"),
            ("aufs", "auf", "das"),
            ("beim", "bei", "dem"),
            ("im", "in", "dem"),
            ("ins", "in", "das"),
            ("vom", "von", "dem"),
            ("zum", "zu", "dem"),
            ("zur", "zu", "der"),
            ("durchs", "durch", "das"),
            ("fürs", "für", "das"),
            ("ums", "um", "das"),
            ("übers", "über", "das"),
        )
    },
    "es": {"del": (("de", "de"), ("el", "el")), "al": (("a", "a"), ("el", "el"))},
    "fr": {
        "du": (("de", "de"), ("le", "le")),
        "au": (("à", "à"), ("le", "le")),
        "aux": (("à", "à"), ("les", "le")),
    },
}

_LEMMA_CACHE_LIMIT = 500_000
_UNSEEN = object()


#: One lemmatizer (and dictionary look-up) per cache folder, shared by every analyser of the process: each
#: language's dictionary loads once.
_LEMMATIZERS: dict[str, tuple[simplemma.Lemmatizer, DictionaryLookupStrategy]] = {}


def _strategies() -> tuple[simplemma.Lemmatizer, DictionaryLookupStrategy]:
    root = cache_root()
    found = _LEMMATIZERS.get(str(root))
    if found is None:
        found = _LEMMATIZERS[str(root)] = cached_strategies(root)
    return found


def _lemmatizer() -> simplemma.Lemmatizer:
    """simplemma's default lemmatizer over the cached dictionaries (``simplemma.lemmatize`` builds one per call)."""
    return _strategies()[0]


def _simplemma_lang(lang: str) -> str:
    return lang.strip().lower().replace("_", "-").split("-")[0]


def start_reading_dictionaries(langs: Sequence[str]) -> None:
    """Start reading the dictionaries of ``langs`` that have no cached copy yet beside the caller's own start-up
    (``dictionary_cache.start_reading``); Chinese has none to read."""
    start_reading(sorted({_simplemma_lang(lang) for lang in langs} - {"zh"}), cache_root())


class DefaultAnalyser:
    """Regex tokens + simplemma lemmas (+ jieba for Chinese); lemma lookups are cached per language.

    Languages simplemma does not know keep the lower-cased word as lemma, so token and surface matching still work.
    """

    name = "default"

    def __init__(self, *, morphology: bool = True, stems: bool = True) -> None:
        self._lemma_cache: dict[tuple[str, str], tuple[str, tuple[str, ...], str]] = {}
        self._token_cache: dict[str, dict[str, tuple[_Piece, ...]]] = {}
        self._simple_cache: dict[str, dict[str, tuple[str, tuple[str, ...]] | None]] = {}
        self._supported: dict[str, bool] = {}
        self._jieba: Any = None
        self._simplemma: simplemma.Lemmatizer | None = None
        self._lookup: DictionaryLookupStrategy | None = None
        self._morphology = Morphology(readings=morphology, stems=stems)
        self._stem_cache: dict[str, dict[str, tuple[str, bool]]] = {}  # word → (stem, settled)

    # --- public -------------------------------------------------------------------------------------------------

    def prepare(self, langs: Sequence[str]) -> None:
        """Nothing to load ahead: each language's dictionaries are read on first use (cached, see
        ``dictionary_cache``)."""

    def analyse(self, texts: Sequence[str], lang: str) -> list[Analysis]:
        code = _simplemma_lang(lang)
        if code == "zh":
            return [self._analyse_chinese(text) for text in texts]
        return [self._analyse_spaced(text, code) for text in texts]

    def with_stems(self, analyses: Sequence[Analysis], lang: str) -> list[Analysis]:
        """The analyses with a Snowball stem per word, for the matcher's last step.

        Kept out of ``analyse`` so only candidates and the translations that nothing else matched pay for it.
        """
        code = _simplemma_lang(lang)
        if not self._morphology.stems_in(code):
            return list(analyses)  # no stem to add (Chinese): the analyses as they are
        cache = self._stem_cache.setdefault(code, {})
        out = []
        for analysis in analyses:
            stems = []
            settled = []
            for word in analysis.words:
                entry = cache.get(word)
                if entry is None:
                    entry = cache[word] = (self._morphology.stem(word, code), self._settles(word, code))
                stems.append(entry[0])
                settled.append(entry[1])
            if any(stems):  # the constructor, not ``dataclasses.replace``: this runs for every unmatched translation
                analysis = Analysis(
                    analysis.text,
                    analysis.tokens,
                    analysis.token_spans,
                    analysis.words,
                    analysis.lemmas,
                    analysis.upos,
                    analysis.word_token,
                    analysis.readings,
                    tuple(stems),
                    tuple(settled),
                )
            out.append(analysis)
        if len(cache) >= _LEMMA_CACHE_LIMIT:
            cache.clear()
        return out

    # --- spaced scripts -----------------------------------------------------------------------------------------

    def _analyse_spaced(self, text: str, code: str) -> Analysis:
        """Most tokens are one word with no contraction: those are read from a (lemma, readings) memo and the tuples
        are built in one go; a sentence with a contraction or clitic takes the general path."""
        simple = self._simple_cache.get(code)
        if simple is None:
            simple = self._simple_cache[code] = {}
        # list comprehensions, not one loop doing it all: this runs for every translation
        spans = [match.span() for match in _TOKEN_RE.finditer(text)]
        raws = [text[start:end] for start, end in spans]
        get = simple.get
        entries: list[Any] = [get(raw, _UNSEEN) for raw in raws]
        if _UNSEEN in entries:
            entries = [
                self._entry(raw, code, simple) if e is _UNSEEN else e for raw, e in zip(raws, entries, strict=True)
            ]
        if None in entries:
            return self._analyse_general(text, code, list(zip(raws, entries, strict=True)), spans)
        count = len(raws)
        tokens = tuple(raws)
        extras = tuple([entry[1] for entry in entries])
        return Analysis(
            text,
            tokens,
            tuple(spans),
            tokens,
            tuple([entry[0] for entry in entries]),
            (None,) * count,
            tuple(range(count)),
            extras if any(extras) else (),
            (),
        )

    def _entry(
        self, raw: str, code: str, simple: dict[str, tuple[str, tuple[str, ...]] | None]
    ) -> tuple[str, tuple[str, ...]] | None:
        """The memoised (lemma, readings) of a regex token, classified on first sight (a repeat in one sentence
        finds the first one's entry)."""
        entry = simple.get(raw, _UNSEEN)
        return self._classify(raw, code, simple) if entry is _UNSEEN else entry  # type: ignore[return-value]

    def _classify(
        self, raw: str, code: str, simple: dict[str, tuple[str, tuple[str, ...]] | None]
    ) -> tuple[str, tuple[str, ...]] | None:
        """Analyse a new regex token: (lemma, readings) when it is one plain word, else None (pieces kept apart)."""
        pieces = self._pieces(raw, code)
        if len(simple) >= _LEMMA_CACHE_LIMIT:
            simple.clear()
            self._token_cache.clear()
        if len(pieces) == 1 and len(pieces[0][3]) == 1 and pieces[0][0] == raw and pieces[0][3][0][0] == raw:
            _, lemma, extra, _ = pieces[0][3][0]
            simple[raw] = (lemma, extra)
            return simple[raw]
        simple[raw] = None
        self._token_cache.setdefault(code, {})[raw] = pieces
        return None

    def _analyse_general(
        self,
        text: str,
        code: str,
        found: list[tuple[str, tuple[str, tuple[str, ...]] | None]],
        spans: list[tuple[int, int]],
    ) -> Analysis:
        tokens: list[str] = []
        token_spans: list[tuple[int, int]] = []
        words: list[str] = []
        lemmas: list[str] = []
        readings: list[tuple[str, ...]] = []
        word_token: list[int] = []
        cache = self._token_cache.setdefault(code, {})
        for (raw, entry), (offset, _) in zip(found, spans, strict=True):
            if entry is not None:
                word_token.append(len(tokens))
                tokens.append(raw)
                token_spans.append((offset, offset + len(raw)))
                words.append(raw)
                lemmas.append(entry[0])
                readings.append(entry[1])
                continue
            pieces = cache.get(raw)
            if pieces is None:  # the memo was cleared since this sentence looked the token up
                pieces = cache[raw] = self._pieces(raw, code)
            for token, start, end, analysed in pieces:
                index = len(tokens)
                tokens.append(token)
                token_spans.append((offset + start, offset + end))
                for word, lemma, extra, _stem in analysed:
                    words.append(word)
                    lemmas.append(lemma)
                    readings.append(extra)
                    word_token.append(index)
        return Analysis(
            text=text,
            tokens=tuple(tokens),
            token_spans=tuple(token_spans),
            words=tuple(words),
            lemmas=tuple(lemmas),
            upos=(None,) * len(words),
            word_token=tuple(word_token),
            readings=tuple(readings) if any(readings) else (),
        )

    def _pieces(self, raw: str, code: str) -> tuple[_Piece, ...]:
        """How one regex token splits into tokens (with offsets) and each token into (word, lemma) pairs; cached."""
        contractions = _CONTRACTIONS.get(code, {})
        pieces = []
        for token, start, end in _split_clitics(raw, 0, code):
            expansion = contractions.get(token.casefold().replace("’", "'"))
            if expansion is not None:
                analysed: tuple[tuple[str, str, tuple[str, ...], str], ...] = tuple(
                    (word[:1].upper() + word[1:] if position == 0 and token[:1].isupper() else word, lemma, (), "")
                    for position, (word, lemma) in enumerate(expansion)
                )
            else:
                analysed = ((token, *self._lemma(token, code)),)
            pieces.append((token, start, end, analysed))
        return tuple(pieces)

    def _lemma(self, token: str, code: str) -> tuple[str, tuple[str, ...], str]:
        """(lemma, further readings, stem) of one word; cached."""
        key = (code, token)
        cached = self._lemma_cache.get(key)
        if cached is not None:
            return cached
        if not any(ch.isalpha() for ch in token):
            found: tuple[str, tuple[str, ...], str] = (token, (), "")
        else:
            extra: tuple[str, ...] = ()
            morph = self._morphology.readings(token, code)
            if morph:
                lemma, extra = morph[0], morph[1:]
            else:
                lemma = self._compute_lemma(token, code)
            found = (lemma, extra, "")
        if len(self._lemma_cache) >= _LEMMA_CACHE_LIMIT:
            self._lemma_cache.clear()
        self._lemma_cache[key] = found
        return found

    def _compute_lemma(self, token: str, code: str) -> str:
        if code == "en":
            for suffix, lemma in _EN_SUFFIX_LEMMAS.items():
                if token.casefold().replace("’", "'") == suffix:
                    return lemma
        lemma = token
        if self._simplemma_knows(code):
            lemma = self._lemmatize(token.replace("’", "'"), code)
        if code == "ru":
            lemma = lemma.replace("ё", "е").replace("Ё", "Е")
        return lemma

    def _settles(self, word: str, code: str) -> bool:
        """Whether the dictionaries know the word, and so which lemmas it has: pymorphy3 lists every reading of a
        Russian word it knows; a word in simplemma's dictionary has the one lemma it gives."""
        if not any(ch.isalpha() for ch in word):
            return False
        if self._morphology.knows(word, code):
            return True
        if not self._simplemma_knows(code):
            return False
        if self._lookup is None:
            self._lookup = _strategies()[1]
        return self._lookup.get_lemma(word.replace("’", "'"), code) is not None

    def _simplemma_knows(self, code: str) -> bool:
        known = self._supported.get(code)
        if known is None:
            try:
                self._lemmatize("a", code)
                known = True
            except (ValueError, KeyError, OSError):
                known = False
            self._supported[code] = known
        return known

    def _lemmatize(self, token: str, code: str) -> str:
        if self._simplemma is None:
            self._simplemma = _lemmatizer()
        return str(self._simplemma.lemmatize(token, lang=code))

    # --- Chinese ------------------------------------------------------------------------------------------------

    def _analyse_chinese(self, text: str) -> Analysis:
        tokenizer = self._jieba_tokenizer()
        tokens: list[str] = []
        spans: list[tuple[int, int]] = []
        end = 0
        for token in tokenizer.cut(text):  # what ``tokenize`` does, without its generator of triples per token
            start, end = end, end + len(token)
            if token.isspace() or not token:
                continue
            tokens.append(token)
            spans.append((start, end))
        count = len(tokens)
        return Analysis(
            text=text,
            tokens=tuple(tokens),
            token_spans=tuple(spans),
            words=tuple(tokens),
            lemmas=tuple(tokens),
            upos=(None,) * count,
            word_token=tuple(range(count)),
        )

    def _jieba_tokenizer(self) -> Any:
        if self._jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            tokenizer = jieba_tokenizer()
            self._jieba = tokenizer
        return self._jieba


#: How one regex token splits: (token, start, end, ((word, lemma, further readings, stem), ...)).
_Piece = tuple[str, int, int, tuple[tuple[str, str, tuple[str, ...], str], ...]]


def _split_clitics(token: str, start: int, code: str) -> list[tuple[str, int, int]]:
    """Split elided articles/clitics (``dell'acqua`` → ``dell'`` ``acqua``) and English ``n't``/``'s``."""
    if not any(ch in token for ch in _APOSTROPHES):
        return [(token, start, start + len(token))]
    if code in _ELIDING:
        pieces: list[tuple[str, int, int]] = []
        begin = 0
        for position, ch in enumerate(token):
            if ch in _APOSTROPHES and 0 < position < len(token) - 1:
                pieces.append((token[begin : position + 1], start + begin, start + position + 1))
                begin = position + 1
        pieces.append((token[begin:], start + begin, start + len(token)))
        return pieces
    if code == "en":
        folded = token.casefold().replace("’", "'")
        for suffix in _EN_SUFFIXES:
            if folded.endswith(suffix) and len(folded) > len(suffix):
                cut = len(token) - len(suffix)
                return [(token[:cut], start, start + cut), (token[cut:], start + cut, start + len(token))]
    return [(token, start, start + len(token))]
