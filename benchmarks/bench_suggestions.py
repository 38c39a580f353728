"""Benchmark (issue 33): suggestions at 10,000 items × 5 languages over the real open wordnets — the full computation
(related senses for every item-language, MT words from an evaluation) and the time one card waits.

Run: ``python benchmarks/bench_suggestions.py --reuse-wordnet DIR [--items 10000] [--work DIR]`` where DIR is a
project's ``wordnet`` folder made by ``annotator lexicon use-wordnet`` from ``../shared/data/open-wordnets`` (it holds
the relations files; one without them gets them from ``wn`` on the first run, which takes minutes).

Steps: init (IT ZH DE RU ES; ES has no lexicon here, so every ES item-language starts empty), import N synthetic items
over real WordNet senses (fixed seed), pre-populate (child processes, wall and CPU time), then in this process: one
evaluation of a MISS translation per item-language kept as the Evaluate page keeps it, the MT words of every
item-language (``refresh_mt``), the related senses of every item-language (``refresh``), and ``card_view`` for 300
random item-languages (also with the work area's MISS-translation line, ``miss_translations``): the first card, the
median and 95th percentile of the rest with everything kept (what a translator meets), and of cards whose kept part
is stale (computed on the card). CPU time is the fair figure on a busy shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_open_data import step, use_wordnet

LANGS = ("IT", "ZH", "DE", "RU", "ES")
WORDS = {
    "IT": "bevve un sorso di acqua fresca con gli amici",
    "ZH": "他 和 朋友 一起 喝 了 一口 凉水",
    "DE": "er trank einen Schluck frisches Wasser mit Freunden",
    "RU": "он выпил глоток свежей воды с друзьями",
    "ES": "bebió un sorbo de agua fresca con los amigos",
}


def timed(label: str, call):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<52} {wall:8.2f} s wall {cpu:8.2f} s CPU")
    return result, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reuse-wordnet", required=True, help="a project's wordnet folder (wn.db + indexes)")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed after)")
    args = parser.parse_args()
    scratch = None if args.work else tempfile.mkdtemp(prefix="bench-suggestions-")
    work = Path(args.work or scratch)
    data = work / "project"
    if data.exists():
        shutil.rmtree(data)
    try:
        run(args, work, data)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def run(args: argparse.Namespace, work: Path, data: Path) -> None:
    from annotator.domain.jobs import JobKind, JobState
    from annotator.evaluation.run import create_analyser, evaluate
    from annotator.lexicon.wordnet import WordnetLexicon
    from annotator.project import Project
    from annotator.services.evaluate_project import prepare_current
    from annotator.services.evaluation_results import save_result
    from annotator.services.suggestions import bulk, card, mt, project_counts
    from annotator.store.repository import utc_now

    print(f"Steps (child processes) — {args.items:,} items × {len(LANGS)} languages")
    step("init", "init", "--data", str(data), "--languages", ",".join(LANGS))
    shutil.copytree(args.reuse_wordnet, data / "wordnet", dirs_exist_ok=True)
    os.chmod(data / "wordnet", 0o700)
    use_wordnet(data)
    lexicon = WordnetLexicon(data / "wordnet")
    senses = [s for s in lexicon.english_senses() if s[0].replace(" ", "").replace("-", "").isalpha()]
    rng = random.Random(33)
    items = work / "items.jsonl"
    ids = []
    with items.open("w", encoding="utf-8") as out:
        for n in range(args.items):
            lemma, pos, synset = senses[rng.randrange(len(senses))]
            sentence = f"They talked about the {lemma} near the old river."
            ids.append(f"s-{n:05d}")
            row = {"id": ids[-1], "sentence": sentence, "start": 22, "end": 22 + len(lemma), "lemma": lemma,
                   "pos": pos, "synset": synset}  # fmt: skip
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    del lexicon, senses
    step("import", "import", "--data", str(data), str(items))
    step("pre-populate (records what each lexicon returned)", "prepopulate", "--data", str(data))

    print("\nIn this process")
    project = Project.open(data)
    translations = work / "translations.jsonl"
    with translations.open("w", encoding="utf-8") as out:
        for item_id in ids:
            for lang in LANGS:
                words = WORDS[lang].split()
                rng.shuffle(words)
                line = {"id": item_id, "lang": lang, "system": "sys-A", "translation": " ".join(words) + "."}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def evaluation() -> int:
        dataset, loaded = prepare_current(project, translations)
        result = evaluate(dataset, loaded, create_analyser("default"))
        with project.db.write() as conn:
            job_id = project.repo.insert_job(conn, JobKind.EVALUATE, "bench", {"page": True}, utc_now())
            project.repo.update_job(conn, job_id, state=JobState.DONE)
        save_result(project, job_id, result)
        return job_id

    timed("evaluate one MISS-heavy system (kept as the page keeps it)", evaluation)
    _r, mt_wall, mt_cpu = timed("MT words of every item-language (refresh_mt)", lambda: mt.refresh_mt(project))
    first_card, first_wall, _c = timed(
        "first card after them (the wordnet already loaded by refresh_mt)",
        lambda: card.card_view(project, ids[0], "IT"),
    )
    report, rel_wall, rel_cpu = timed(
        "related senses of every item-language (refresh)", lambda: bulk.refresh(project)
    )
    print(f"  full computation: {mt_wall + rel_wall:.1f} s wall, {mt_cpu + rel_cpu:.1f} s CPU")

    sample = [(rng.choice(ids), rng.choice(LANGS)) for _ in range(300)]
    times = []
    for item_id, lang in sample:
        start = time.perf_counter()
        card.card_view(project, item_id, lang)
        times.append(time.perf_counter() - start)
    times.sort()
    print(
        f"  per card, everything kept ({len(times)} cards): median {1000 * statistics.median(times):.1f} ms, "
        f"95th percentile {1000 * times[int(0.95 * len(times))]:.1f} ms"
    )
    # the Curate work area's card (issue 33 UI): the reasons and suggestions plus the MISS translations' line, as
    # ``area_data`` asks for them on every run of the page (the evaluation's file read once per process)
    timed(
        "the card's MISS-translation line, first card (reads the evaluation once)",
        lambda: mt.miss_translations(project, ids[0], "IT"),
    )
    card_times = []
    for item_id, lang in sample:
        start = time.perf_counter()
        card.card_view(project, item_id, lang)
        mt.miss_translations(project, item_id, lang)
        card_times.append(time.perf_counter() - start)
    card_times.sort()
    print(
        f"  work-area card with suggestions and MT line ({len(card_times)} cards): median "
        f"{1000 * statistics.median(card_times):.1f} ms, 95th percentile "
        f"{1000 * card_times[int(0.95 * len(card_times))]:.1f} ms"
    )
    from sqlalchemy import delete

    from annotator.store import schema

    stale = sample[:100]
    with project.db.write() as conn:
        for item_id, lang in stale:
            conn.execute(
                delete(schema.suggestion_cache).where(
                    schema.suggestion_cache.c.item_id == item_id, schema.suggestion_cache.c.lang == lang
                )
            )
    stale_times = []
    for item_id, lang in stale:
        start = time.perf_counter()
        card.card_view(project, item_id, lang)
        stale_times.append(time.perf_counter() - start)
    stale_times.sort()
    print(
        f"  per card, kept part missing (computed on the card, {len(stale_times)} cards): median "
        f"{1000 * statistics.median(stale_times):.1f} ms (the MT words then come from one read of the evaluation)"
    )
    fresh = (
        "import sys, time; from annotator.project import Project; from annotator.services.suggestions import card; "
        "p = Project.open(sys.argv[1]); t = time.perf_counter(); card.card_view(p, sys.argv[2], 'IT'); "
        "print(f'{1000 * (time.perf_counter() - t):.1f}')"
    )
    import subprocess

    waited = subprocess.run(
        [sys.executable, "-c", fresh, str(data), sample[-1][0]], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"  first card of a fresh server process, everything kept (no lexicon opened): {waited} ms")
    print("\nEmpty GOOD lists and suggestions, per language")
    for counts in project_counts.empty_good_counts(project):
        share = 100 * counts.with_suggestions / counts.empty_good if counts.empty_good else 0.0
        print(f"  {counts.lang}: {counts.empty_good:>6} empty GOOD, {counts.with_suggestions:>6} with suggestions "
              f"({share:.1f} %)")  # fmt: skip
    print(f"  (first card: {len(first_card.suggestions)} suggestion(s) in {first_wall:.2f} s; "
          f"{report.computed:,} item-languages computed by refresh)")  # fmt: skip
    print(f"  load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    project.db.dispose()


if __name__ == "__main__":
    main()
