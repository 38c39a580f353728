"""Allowed sources per language (SPEC §4.3), including the never-allowed machine-translated ones."""

from __future__ import annotations

import pytest

from annotator.errors import UserError
from annotator.lexicon.base import LexSense, SynsetRecord
from annotator.lexicon.sources import (
    MACHINE_TRANSLATED_SOURCES,
    allowed_lemmas,
    allowed_sources,
    filter_senses,
    normalize_overrides,
)

GUNSHOT = SynsetRecord(
    id="bn:00070966n",
    pos="NOUN",
    senses=(
        LexSense("shot", "EN", "WN", 1),
        LexSense("Shot", "EN", "WIKI"),
        LexSense("sparo", "IT", "OMWN_IT"),
        LexSense("colpo di pistola", "IT", "IWN"),
        LexSense("Sparo", "IT", "IWN"),
        LexSense("tiro", "IT", "WNTR"),
        LexSense("Schuss", "DE", "WIKT"),
        LexSense("Abschuss", "DE", "WIKITR"),
        LexSense("Schuß", "DE", "WIKTLB"),
        LexSense("coup de feu", "FR", "WIKT"),
        LexSense("tir", "FR", "WIKITR"),
    ),
)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("EN", {"WN"}),
        ("IT", {"OMWN_IT", "IWN"}),
        ("ES", {"MCR_ES"}),
        ("ZH", {"OMWN_ZH"}),
        ("DE", {"WIKT", "WIKTLB"}),
        ("ru", {"WIKT", "WIKTLB"}),
    ],
)
def test_defaults_follow_the_spec(lang: str, expected: set[str]) -> None:
    policy = allowed_sources(lang)
    assert policy.sources == expected
    assert all(policy.allows(source) for source in expected)
    assert not policy.allows("WIKI")


def test_a_language_without_default_allows_every_source_but_machine_translation() -> None:
    policy = allowed_sources("FR")
    assert policy.sources is None
    assert policy.allows("WIKT") and policy.allows("omwn_fr")
    assert not policy.allows("WNTR") and not policy.allows("wikitr")
    assert policy.describe() == "FR: any source except WIKITR WNTR"


def test_machine_translated_sources_are_refused_even_when_configured() -> None:
    policy = allowed_sources("IT", {"it": ["OMWN_IT", "WNTR"], "FR": "*, WIKITR"})
    assert policy.sources == {"OMWN_IT"}
    assert policy.refused == {"WNTR"}
    assert not any(policy.allows(source) for source in MACHINE_TRANSLATED_SOURCES)

    everything = allowed_sources("FR", {"FR": "*, WIKITR"})
    assert everything.sources is None and everything.refused == {"WIKITR"}
    assert everything.allows("WIKT") and not everything.allows("WIKITR")


def test_an_override_replaces_the_default() -> None:
    policy = allowed_sources("DE", {"de": "wikt"})
    assert policy.sources == {"WIKT"}
    assert not policy.allows("WIKTLB")
    assert allowed_sources("IT", {"de": "wikt"}).sources == {"OMWN_IT", "IWN"}  # other languages untouched


def test_an_empty_override_means_the_default_and_bad_ones_are_refused() -> None:
    assert allowed_sources("IT", {"IT": []}).sources == {"OMWN_IT", "IWN"}
    assert normalize_overrides({" it ": "omwn_it,  iwn", "DE": ["WIKT WIKTLB"], "ES": None}) == {
        "IT": ("OMWN_IT", "IWN"),
        "DE": ("WIKT", "WIKTLB"),
    }
    with pytest.raises(UserError, match="Allowed sources for IT"):
        normalize_overrides({"IT": [3]})  # type: ignore[list-item]
    with pytest.raises(UserError, match="not a language code"):
        normalize_overrides({"": ["WN"]})


def test_filter_senses_keeps_allowed_senses_of_one_language_in_order() -> None:
    italian = filter_senses(GUNSHOT, "IT")
    assert [(s.lemma, s.source) for s in italian] == [
        ("sparo", "OMWN_IT"),
        ("colpo di pistola", "IWN"),
        ("Sparo", "IWN"),
    ]
    assert [s.lemma for s in filter_senses(GUNSHOT, "DE")] == ["Schuss", "Schuß"]
    assert [s.lemma for s in filter_senses(GUNSHOT, "EN")] == ["shot"]
    assert [s.lemma for s in filter_senses(GUNSHOT, "FR")] == ["coup de feu"]
    assert [s.lemma for s in filter_senses(GUNSHOT, "IT", {"IT": ["IWN"]})] == ["colpo di pistola", "Sparo"]
    assert filter_senses(GUNSHOT, "ZH") == ()


def test_allowed_lemmas_are_distinct_case_insensitively() -> None:
    assert allowed_lemmas(GUNSHOT, "IT") == ["sparo", "colpo di pistola"]
    assert allowed_lemmas(GUNSHOT, "it", {"IT": "WNTR"}) == []  # only a refused source configured
