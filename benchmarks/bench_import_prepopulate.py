"""Benchmark: import and pre-populate (snapshot provider) a synthetic project of N items × 5 languages.

Run: ``python benchmarks/bench_import_prepopulate.py [--items 10000]``. Prints wall-clock seconds per phase.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from synthetic import LANGS, write_inputs

from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--lemmas", type=int, default=2_000)
    parser.add_argument("--senses", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items_path, snapshot_path = write_inputs(root, args.items, args.lemmas, args.senses)
        project = Project.open(root / "data", create=True)
        settings = ProjectSettings(
            name="bench", languages=LANGS, lexicon=LexiconSettings(provider="snapshot", snapshot=str(snapshot_path))
        )
        project.save_settings(settings)
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
        rate = pre.item_languages / (done - loaded)
        print(f"pre-population:  {done - loaded:7.2f} s  ({pre.item_languages} item-languages, {rate:,.0f}/s)")


if __name__ == "__main__":
    main()
