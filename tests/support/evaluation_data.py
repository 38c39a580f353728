"""A small evaluation dataset and JSON-lines writers for the evaluation tests."""

from __future__ import annotations

import json
from pathlib import Path

SHOT_SENSES = [
    {"synset": "bn:gunshot", "rank": 1},
    {"synset": "bn:attempt", "rank": 2},
    {"synset": "bn:drink", "rank": 3},
    {"synset": "bn:photo", "rank": 4},
]


RUN_SENSES = [
    {"synset": "bn:run-move", "rank": 1},
    {"synset": "bn:run-race", "rank": 2},
    {"synset": "bn:run-manage", "rank": 3},
]


def cand(text: str, *synsets: str, origin: str = "lexicon") -> dict:
    pos = text.rsplit("_", 1)[1] if text.startswith("[") else None
    return {"text": text, "pos": pos, "origin": origin, "synsets": list(synsets)}


DATASET = [
    {
        "id": "run-race",
        "sentence": "She will run the marathon.",
        "target": {"text": "run", "start": 9, "end": 12, "lemma": "run", "pos": "VERB"},
        "synset": "bn:run-race",
        "gloss": "Compete in a race.",
        "source": "test",
        "polysemy_degree": 3,
        "sense_rank": 2,
        "senses": RUN_SENSES,
        "languages": {
            "IT": {"good": [cand("correre", "bn:run-race")], "bad": [cand("gestire", "bn:run-manage")]},
            "DE": {"good": [cand("laufen", "bn:run-race")], "bad": [cand("leiten", "bn:run-manage")]},
        },
    },
    {
        "id": "shot-photo",
        "sentence": "She took a nice shot of the bay.",
        "target": {"text": "shot", "start": 18, "end": 22, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:photo",
        "gloss": "A photograph.",
        "source": "test",
        "polysemy_degree": 4,
        "sense_rank": 4,
        "senses": SHOT_SENSES,
        "languages": {
            "IT": {
                "good": [cand("foto", "bn:photo"), cand("scatto", "bn:photo")],
                "bad": [cand("sparo", "bn:gunshot")],
            },
            "DE": {"good": [cand("Aufnahme", "bn:photo")], "bad": [cand("Schuss", "bn:gunshot")]},
            "ZH": {"good": [cand("照片", "bn:photo")], "bad": [cand("枪", "bn:gunshot")]},
        },
    },
    {
        "id": "shot-whiskey",
        "sentence": "He poured a shot of whiskey.",
        "target": {"text": "shot", "start": 12, "end": 16, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:drink",
        "gloss": "A small drink of liquor.",
        "source": "test",
        "polysemy_degree": 4,
        "sense_rank": 3,
        "senses": SHOT_SENSES,
        "languages": {
            "IT": {
                "good": [cand("goccio", "bn:drink")],
                "bad": [
                    cand("sparo", "bn:gunshot"),
                    cand("tentativo", "bn:attempt"),
                    cand("[sparare]_VERB", origin="translator"),
                ],
            },
            "DE": {"good": [cand("Schluck", "bn:drink")], "bad": [cand("Schuss", "bn:gunshot")]},
            "ZH": {"good": [cand("一小杯", "bn:drink")], "bad": [cand("枪", "bn:gunshot")]},
        },
    },
]


def write_dataset(folder: Path, records: list[dict] = DATASET) -> Path:
    path = folder / "dataset.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def jl(**fields: str) -> str:
    return json.dumps(fields, ensure_ascii=False)
