"""A word of letters and digits (spaces between) is its own form under every lexicon's rules: the snapshot reader
keeps such lemmas as written without calling the rules, so this must hold for every rule."""

from __future__ import annotations

import pytest

from annotator.domain.lexicon_forms import RULES, resolve, rules_for
from annotator.lexicon.snapshot_read import _forms

PLAIN = ["casa", "Haus", "a cielo aperto", "банк", "银行", "città", "Straße 2", "X1", "ǅemal", "١٢٣ عربي"]
MARKED = ["attivita'", "a-cielo-aperto", "Aorta-", "какую-л.", "X+的", "word;", "prendere...in giro", "casa (edificio)"]
SOURCES = sorted({lexicon for rule in RULES for lexicon in rule.lexicons} | {"WIKT", "OMWN_IT", "MCR_ES", "WN"})


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_no_rule_changes_a_word_of_letters_and_digits(rule):
    for lemma in PLAIN:
        assert lemma.replace(" ", "").isalnum()
        assert rule.apply(lemma) == (lemma,), (rule.name, lemma)


@pytest.mark.parametrize("source", SOURCES)
def test_the_readers_forms_are_the_rules_forms(source):
    for lemma in PLAIN + MARKED:
        assert _forms(source, lemma) == resolve(lemma, rules_for(source)), (source, lemma)


def test_marked_lemmas_do_change_under_their_lexicons_rules():
    # the shortcut must leave these to the rules: each is changed by some lexicon's rules
    for lemma in MARKED:
        assert not lemma.replace(" ", "").isalnum()
        assert any(resolve(lemma, rules_for(source)) != (lemma,) for source in SOURCES), lemma
