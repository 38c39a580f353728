"""Optional morphology for the default analyser: pymorphy3 readings (Russian) and Snowball stems.

Both libraries are light and offline; ``snowballstemmer`` runs PyStemmer's C stemmers (a dependency) when they are
installed, the same algorithms far faster, else its own pure-Python ones. Each is loaded the first time a
word of its language is seen, so scoring one language never pays for the others; a missing library just means no
extra readings or stems.
"""

from __future__ import annotations

from typing import Any

#: Snowball algorithm per project language code (Chinese has none: jieba tokens are compared as they are).
SNOWBALL = {
    "de": "german",
    "es": "spanish",
    "it": "italian",
    "ru": "russian",
    "en": "english",
    "fr": "french",
    "pt": "portuguese",
    "nl": "dutch",
    "fi": "finnish",
    "sv": "swedish",
}
_MISSING = object()
_KNOWN_LIMIT = 500_000


class Morphology:
    """Lazy per-language backends: ``readings`` (pymorphy3 for ``ru``) and ``stem`` (Snowball)."""

    def __init__(self, *, readings: bool = True, stems: bool = True) -> None:
        self._use_readings = readings
        self._use_stems = stems
        self._morph: Any = None
        self._stemmers: dict[str, Any] = {}
        #: pymorphy3's ``word_is_known`` per word: asked for its readings and again at the stem step
        self._known: dict[str, bool] = {}

    def readings(self, word: str, code: str) -> tuple[str, ...]:
        """Every lemma pymorphy3 gives for a word of its dictionary (most likely first, ё folded); else empty."""
        if not self._use_readings or code != "ru":
            return ()
        if not self.knows(word, code):
            return ()  # pymorphy3's guesses for unknown words are slow and no better than simplemma's
        morph = self._pymorphy()
        out: list[str] = []
        for parse in morph.parse(word):
            lemma = parse.normal_form.replace("ё", "е")
            if lemma not in out:
                out.append(lemma)
        return tuple(out)

    def knows(self, word: str, code: str) -> bool:
        """Whether pymorphy3's dictionary has the word (Russian; False when readings are off or it is missing)."""
        if not self._use_readings or code != "ru":
            return False
        known = self._known.get(word)
        if known is None:
            morph = self._pymorphy()
            known = self._known[word] = bool(morph is not None and morph.word_is_known(word))
            if len(self._known) > _KNOWN_LIMIT:
                self._known.clear()
        return known

    def stems_in(self, code: str) -> bool:
        """Whether ``stem`` gives stems in this language at all (stems are on and Snowball has the language)."""
        return self._stemmer(code) is not None

    def stem(self, word: str, code: str) -> str:
        stemmer = self._stemmer(code)
        return stemmer.stemWord(word.casefold().replace("ё", "е")) if stemmer is not None else ""

    def _stemmer(self, code: str) -> Any:
        if not self._use_stems:
            return None
        stemmer = self._stemmers.get(code, _MISSING)
        if stemmer is _MISSING:
            stemmer = self._stemmers[code] = _snowball(code)
        return stemmer

    def _pymorphy(self) -> Any:
        if self._morph is None:
            try:
                import pymorphy3
            except ImportError:
                self._morph = False
            else:
                self._morph = pymorphy3.MorphAnalyzer(lang="ru")
        return self._morph or None


def _snowball(code: str) -> Any:
    algorithm = SNOWBALL.get(code)
    if algorithm is None:
        return None
    try:
        import snowballstemmer
    except ImportError:
        return None
    return snowballstemmer.stemmer(algorithm)
