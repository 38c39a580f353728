"""Benchmark: export a curated synthetic project of N items × 5 languages (issue 4 target: 10,000 items < 5 s).

Run: ``python benchmarks/bench_export.py [--items 10000] [--runs 3] [--cross-pos 0.1] [--keep DIR] [--sheet]``.
The project is seeded straight through the repository (one transaction) so the set-up is quick; the timed part is
``export_dataset`` exactly as ``annotator export`` runs it (read everything, select, write the files, hash,
rename). ``--cross-pos 1`` is the worst case (every BAD list holds a cross-PoS candidate, so none can be passed
through as stored); ``--keep DIR`` reuses a seeded project; ``--sheet`` also times one language's spreadsheet.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.domain.model import CandidateEntry, Origin, SenseEntry, Status
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.importing import import_items

LANGS = ("DE", "ES", "IT", "RU", "ZH")


def seed(project: Project, items: int, folder: Path, cross_pos: float) -> None:
    """``items`` items over items/4 synsets (so % shared has pairs), every item-language done: 4 G0, 1-4 kept plus
    one translator addition in G, 10 BAD with provenance, and a cross-PoS BAD in ``cross_pos`` of them."""
    rng = random.Random(4)
    path = folder / "items.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for index in range(items):
            lemma = f"word{index // 8}"
            sentence = f"Sentence number {index} uses the {lemma} in context."
            row = {
                "id": f"item-{index:06d}",
                "sentence": sentence,
                "target": lemma,
                "lemma": lemma,
                "pos": "NOUN",
                "synset": f"bn:{index // 4:08d}n",
                "source": "bench",
            }
            handle.write(json.dumps(row) + "\n")
    import_items(project, path)
    with project.db.write() as conn:
        repo = project.repo
        items = {item.id: item for item in repo.list_items(conn)}
        senses_of = {}
        for item in items.values():
            base = int(item.synset[3:11])
            senses_of[item.id] = [SenseEntry(f"bn:{base + k:08d}n", k + 1, f"gloss {k}") for k in range(5)]
            repo.update_item_lexicon(conn, item.id, f"gloss of {item.synset}", senses_of[item.id])
        for state in list(repo.iter_item_languages(conn)):
            item, senses, lang = items[state.item_id], senses_of[state.item_id], state.lang
            base = int(item.synset[3:11])
            initial_good = tuple(
                CandidateEntry(f"{lang.lower()}-good-{base}-{k}", None, Origin.LEXICON, (item.synset,))
                for k in range(4)
            )
            initial_bad = tuple(
                CandidateEntry(f"{lang.lower()}-bad-{base}-{k}", None, Origin.LEXICON, (senses[k % 4 + 1].synset,))
                for k in range(10)
            )
            added = CandidateEntry(f"{lang.lower()} added {rng.randint(0, 3)}")
            good = (*initial_good[: rng.randint(1, 4)], added)
            new = replace(
                state,
                status=Status.DONE,
                good=good,
                bad=(*initial_bad, CandidateEntry("sparare", "VERB")) if rng.random() < cross_pos else initial_bad,
                initial_good=initial_good,
                initial_bad=initial_bad,
                prepopulated=True,
                status_by="bench",
            )
            repo.save_item_language(conn, new, state.version, "bench", "seed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sheet", action="store_true", help="also time a one-language spreadsheet export")
    parser.add_argument("--keep", metavar="DIR", help="seed into DIR once and reuse it on later runs")
    parser.add_argument(
        "--cross-pos", type=float, default=0.1, help="share of item-languages with a cross-PoS BAD (default 0.1)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        fresh = not (folder / "data" / "annotator.sqlite").exists()
        project = Project.open(folder / "data", create=fresh)  # a kept project is opened, not created again
        if fresh:
            project.save_settings(ProjectSettings(name="bench", languages=LANGS, lexicon=LexiconSettings("snapshot")))
            started = time.perf_counter()
            seed(project, args.items, folder, args.cross_pos)
            print(f"seed: {args.items} items × {len(LANGS)} languages in {time.perf_counter() - started:.1f} s")
        wall, cpu = [], []
        for _run in range(args.runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            result = export_dataset(project, Path(tmp) / "exports", ExportOptions())
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        size = result.files["dataset.jsonl"].stat().st_size
        print(
            f"export: {result.items} items × {len(LANGS)} languages, dataset.jsonl {size / 1e6:.1f} MB: "
            f"best {min(wall):.2f} s wall ({min(cpu):.2f} s CPU); runs {', '.join(f'{t:.2f}' for t in wall)} s "
            f"(target < 5 s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )
        if args.sheet:
            from annotator.data_export.spreadsheet import export_sheet

            started = time.perf_counter()
            path = export_sheet(project, "IT", Path(tmp) / "sheets")
            print(f"sheet export (IT, {result.items} rows): {time.perf_counter() - started:.2f} s, {path.name}")


if __name__ == "__main__":
    main()
