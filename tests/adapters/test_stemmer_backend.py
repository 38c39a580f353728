"""The stem step runs PyStemmer's C Snowball stemmers (issue 9: throughput); they must give exactly the stems of
snowballstemmer's pure-Python ones, which the MuCoW fidelity figures were measured with."""

from __future__ import annotations

import random

import pytest
import snowballstemmer
import Stemmer
from simplemma.strategies.dictionaries import DEFAULT_DICTIONARY_FACTORY
from snowballstemmer.german_stemmer import GermanStemmer
from snowballstemmer.italian_stemmer import ItalianStemmer
from snowballstemmer.russian_stemmer import RussianStemmer
from snowballstemmer.spanish_stemmer import SpanishStemmer

from annotator.analysis.morphology import Morphology

PURE = {"de": GermanStemmer, "es": SpanishStemmer, "it": ItalianStemmer, "ru": RussianStemmer}


def test_the_analyser_gets_the_c_stemmers() -> None:
    assert snowballstemmer.stemmer is Stemmer.Stemmer


@pytest.mark.parametrize("lang", sorted(PURE))
def test_c_and_pure_python_stems_agree(lang: str) -> None:
    words = sorted(DEFAULT_DICTIONARY_FACTORY.get_dictionary(lang))
    sample = [*random.Random(9).sample(words, 4_000), "Schüsse", "chupitos", "gocce", "выстрелом", "ёлку", "ÄRGER"]
    pure = PURE[lang]()
    morphology = Morphology()
    for word in sample:
        assert morphology.stem(word, lang) == pure.stemWord(word.casefold().replace("ё", "е")), word


def test_pymorphy3_reads_its_dictionaries_with_the_c_dawg_reader() -> None:
    """``dawg2`` (a dependency) gives pymorphy3 the C reader: the Russian analysis is about 2.5 times faster."""
    import pymorphy3.dawg

    assert pymorphy3.dawg.EXTENSION_AVAILABLE is True
