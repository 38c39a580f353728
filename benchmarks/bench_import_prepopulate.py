"""Benchmark: import and pre-populate (snapshot provider) a synthetic project of N items × 5 languages.

Run: ``python benchmarks/bench_import_prepopulate.py [--items 10000]``. Prints wall-clock seconds per phase.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

LANGS = ("DE", "ES", "IT", "RU", "ZH")
SOURCES = {"DE": "WIKT", "ES": "MCR_ES", "IT": "OMWN_IT", "RU": "WIKT", "ZH": "OMWN_ZH"}


def synthetic_snapshot(lemmas: int, senses_per_lemma: int) -> dict:
    """Each lemma has ``senses_per_lemma`` synsets, each with 3 lexicalizations per language."""
    synsets, entries = [], []
    for lemma_index in range(lemmas):
        lemma = f"word{lemma_index}"
        ids = []
        for rank in range(1, senses_per_lemma + 1):
            synset_id = f"bn:{lemma_index * 100 + rank:08d}n"
            ids.append(synset_id)
            senses = [{"lemma": lemma, "lang": "EN", "source": "WN", "wordnet_sense_number": rank}]
            for lang in LANGS:
                senses += [
                    {"lemma": f"{lang.lower()}{lemma_index}_{rank}_{k}", "lang": lang, "source": SOURCES[lang]}
                    for k in range(3)
                ]
            synsets.append(
                {"id": synset_id, "pos": "NOUN", "glosses": {"EN": f"sense {rank} of {lemma}"}, "senses": senses}
            )
        random.Random(lemma_index).shuffle(ids)
        entries.append({"lemma": lemma, "lang": "EN", "pos": "NOUN", "synsets": ids})
    return {
        "format": "annotator-lexicon-snapshot",
        "format_version": 1,
        "label": "synthetic benchmark data",
        "provider": "synthetic",
        "version": "bench",
        "lemmas": entries,
        "synsets": synsets,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        snapshot_path = root / "snapshot.json"
        snapshot_path.write_text(json.dumps(synthetic_snapshot(args.lemmas, args.senses)), encoding="utf-8")
        items_path = root / "items.jsonl"
        with items_path.open("w", encoding="utf-8") as handle:
            for n in range(args.items):
                lemma_index = n % args.lemmas
                rank = 1 + (n // args.lemmas) % args.senses
                row = {
                    "id": f"item-{n:05d}",
                    "sentence": f"Sentence number {n} uses word{lemma_index} here.",
                    "target": f"word{lemma_index}",
                    "lemma": f"word{lemma_index}",
                    "pos": "NOUN",
                    "synset": f"bn:{lemma_index * 100 + rank:08d}n",
                    "source": "bench",
                }
                handle.write(json.dumps(row) + "\n")
        project = Project.open(root / "data", create=True)
        project.save_settings(
            ProjectSettings(
                name="bench", languages=LANGS, lexicon=LexiconSettings(provider="snapshot", snapshot=str(snapshot_path))
            )
        )
        started = time.perf_counter()
        report = import_items(project, items_path)
        imported = time.perf_counter()
        lexicon = SnapshotLexicon.load(snapshot_path)
        loaded = time.perf_counter()
        pre = prepopulate(project, lexicon=lexicon)
        done = time.perf_counter()
        print(f"items: {args.items} × {len(LANGS)} languages; lemmas: {args.lemmas}; senses per lemma: {args.senses}")
        print(f"import:          {imported - started:7.2f} s  ({report.summary()})")
        print(f"snapshot load:   {loaded - imported:7.2f} s  ({args.lemmas * args.senses} synsets)")
        print(
            f"pre-population:  {done - loaded:7.2f} s  ({pre.item_languages} item-languages, "
            f"{pre.item_languages / (done - loaded):,.0f}/s)"
        )


if __name__ == "__main__":
    main()
