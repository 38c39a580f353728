"""Synthetic projects for the benchmarks: N items over L lemmas, each lemma with S senses, 3 lemmas per language."""

from __future__ import annotations

import json
from pathlib import Path

LANGS = ("DE", "ES", "IT", "RU", "ZH")
SOURCES = {"DE": "WIKT", "ES": "MCR_ES", "IT": "OMWN_IT", "RU": "WIKT", "ZH": "OMWN_ZH"}


def write_inputs(root: Path, items: int, lemmas: int, senses: int) -> tuple[Path, Path]:
    """An item file and a lexicon snapshot: each lemma has ``senses`` synsets with 3 lemmas per language."""
    synsets, entries = [], []
    for li in range(lemmas):
        lemma = f"word{li}"
        ids = []
        for rank in range(1, senses + 1):
            synset_id = f"bn:{li * 100 + rank:08d}n"
            ids.append(synset_id)
            lexicalizations = [{"lemma": lemma, "lang": "EN", "source": "WN", "wordnet_sense_number": rank}]
            for lang in LANGS:
                lexicalizations += [
                    {"lemma": f"{lang.lower()}{li}_{rank}_{k}", "lang": lang, "source": SOURCES[lang]} for k in range(3)
                ]
            glosses = {"EN": f"Sense {rank} of {lemma}, a gloss of ordinary length for a synthetic synset."}
            synsets.append({"id": synset_id, "pos": "NOUN", "glosses": glosses, "senses": lexicalizations})
        entries.append({"lemma": lemma, "lang": "EN", "pos": "NOUN", "synsets": ids})
    snapshot = root / "snapshot.json"
    header = {"format": "annotator-lexicon-snapshot", "format_version": 1, "label": "synthetic benchmark data"}
    snapshot.write_text(
        json.dumps({**header, "provider": "synthetic", "version": "bench", "lemmas": entries, "synsets": synsets}),
        encoding="utf-8",
    )
    item_file = root / "items.jsonl"
    with item_file.open("w", encoding="utf-8") as handle:
        for n in range(items):
            li, rank = n % lemmas, 1 + (n // lemmas) % senses
            row = {
                "id": f"item-{n:05d}",
                "sentence": f"Sentence number {n} uses word{li} in a context that makes its meaning clear.",
                "target": f"word{li}",
                "lemma": f"word{li}",
                "pos": "NOUN",
                "synset": f"bn:{li * 100 + rank:08d}n",
                "source": "bench",
            }
            handle.write(json.dumps(row) + "\n")
    return item_file, snapshot
