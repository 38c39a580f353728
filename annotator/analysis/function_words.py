"""Function words per language, from the ``stop-words`` package's kept lists (not a hand-typed one).

Used to leave articles, pronouns, auxiliaries and the like out of the words of machine translations offered as
suggestions. Lists are read once per language; a language the package does not cover has none.
"""

from __future__ import annotations

import functools

#: Languages written without spaces: a word is a function word also when each of its characters is one (jieba
#: keeps 这是 "this is" and 一个 "one" as single words; the list holds 这, 是, 一, 个).
_BY_CHARACTER = frozenset({"ZH", "JA"})


@functools.cache
def function_words(lang: str) -> frozenset[str]:
    """The language's function words, case-folded; empty when the package has no list for it."""
    from stop_words import StopWordError, get_stop_words

    try:
        return frozenset(word.casefold() for word in get_stop_words(lang.lower()))
    except StopWordError:
        return frozenset()


def is_function_word(lang: str, word: str) -> bool:
    words = function_words(lang.upper())
    folded = word.casefold()
    if folded in words:
        return True
    if lang.upper() in _BY_CHARACTER:
        letters = [ch for ch in folded if not ch.isspace()]
        return bool(letters) and all(ch in words for ch in letters)
    return False
