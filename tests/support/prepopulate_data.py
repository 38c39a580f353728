"""A small lexicon snapshot and item rows for the pre-population and BabelNet tests."""

from __future__ import annotations


def sense(lemma: str, lang: str, source: str, number: int | None = None) -> dict:
    record = {"lemma": lemma, "lang": lang, "source": source}
    if number is not None:
        record["wordnet_sense_number"] = number
    return record


# shot (NOUN): drink = WN sense 3 (the item's σ), gunshot = sense 1 (MFS), injection = sense 2, and a synset
# without a WordNet sense of "shot" (must be left out of Ω). "colpo" is Italian for both gunshot and drink here,
# to produce an overlap; "sparo_mt" comes from a machine-translated source and must never appear.
SNAPSHOT = {
    "format": "annotator-lexicon-snapshot",
    "format_version": 1,
    "label": "test data",
    "provider": "test",
    "version": "t1",
    "lemmas": [
        {
            "lemma": "shot",
            "lang": "EN",
            "pos": "NOUN",
            "synsets": ["bn:00000003n", "bn:00000001n", "bn:00000002n", "bn:00000009n"],
        },
        {"lemma": "shot", "lang": "EN", "pos": "VERB", "synsets": ["bn:00000005v"]},
    ],
    "synsets": [
        {
            "id": "bn:00000001n",
            "pos": "NOUN",
            "glosses": {"EN": "the act of firing a projectile"},
            "senses": [
                sense("shot", "EN", "WN", 1),
                sense("gunshot", "EN", "WN", 1),
                sense("sparo", "IT", "OMWN_IT"),
                sense("colpo", "IT", "IWN"),
                sense("sparo_mt", "IT", "WNTR"),
                sense("Schuss", "DE", "WIKT"),
                sense("tiro", "ES", "MCR_ES"),
            ],
        },
        {
            "id": "bn:00000002n",
            "pos": "NOUN",
            "glosses": {"EN": "an injection"},
            "senses": [
                sense("shot", "EN", "WN", 2),
                sense("iniezione", "IT", "OMWN_IT"),
                sense("Injektion", "DE", "WIKT"),
                sense("Spritze", "DE", "WIKTLB"),
            ],
        },
        {
            "id": "bn:00000003n",
            "pos": "NOUN",
            "glosses": {"EN": "a small drink of liquor"},
            "senses": [
                sense("shot", "EN", "WN", 3),
                sense("goccio", "IT", "OMWN_IT"),
                sense("colpo", "IT", "IWN"),
                sense("bicchierino", "IT", "IWN"),
                sense("Schlückchen", "DE", "WIKT"),
                sense("chupito", "ES", "MCR_ES"),
                sense("шот", "RU", "WIKT"),
                sense("小杯", "ZH", "OMWN_ZH"),
            ],
        },
        {
            "id": "bn:00000009n",
            "pos": "NOUN",
            "glosses": {"EN": "no wordnet sense of shot"},
            "senses": [sense("photo", "EN", "WN", 1), sense("foto", "IT", "OMWN_IT")],
        },
        {"id": "bn:00000005v", "pos": "VERB", "glosses": {"EN": "to fire"}, "senses": [sense("shoot", "EN", "WN", 1)]},
    ],
}


#: Three noun items (two with the same synset and source) and one verb item.
ROWS = [
    {
        "id": "drink",
        "sentence": "He poured a shot of whiskey.",
        "target": "shot",
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00000003n",
        "source": "a",
    },
    {
        "id": "drink-2",
        "sentence": "She had a shot of rum.",
        "target": "shot",
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00000003n",
        "source": "a",
    },
    {
        "id": "fire",
        "sentence": "He heard a shot.",
        "target": "shot",
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00000001n",
        "source": "b",
    },
    {
        "id": "verb",
        "sentence": "They shot the film.",
        "target": "shot",
        "lemma": "shot",
        "pos": "VERB",
        "synset": "bn:00000005v",
        "source": "b",
    },
]


GHOST = {
    "id": "ghost",
    "sentence": "A shot nobody can find.",
    "target": "shot",
    "lemma": "shot",
    "pos": "NOUN",
    "synset": "bn:00000077n",
    "source": "c",
}
