"""Benchmark: analyse + match N synthetic translations with the default analyser (translations per second).

Run: ``python benchmarks/bench_evaluate.py [--translations 20000] [--items 500]``. A synthetic dataset (items × five
languages, ~6 GOOD and ~10 BAD candidates each, some multiword and wildcard, some cross-PoS) and translations of
about ten words are built in memory. Start-up (loading simplemma's dictionaries and jieba's) is timed apart, per
language in a fresh interpreter, cold (empty cache folder: the dictionaries are decoded and cached) and warm (read
from the cache, as every later run does); the throughput part uses the cache in ``ANNOTATOR_CACHE_DIR`` or the
user's cache folder. The timed part is ``evaluate()`` exactly as ``annotator evaluate`` runs it: compile candidates,
analyse in batches, match, compute metrics.

The vocabulary mimics real output: 40 % of the words are frequent real words, 55 % come from a stable pool of 5,000
words per language (Zipf-like frequencies), 5 % are new every time (names, typos). For the spaced languages the pool
and new words are invented, so simplemma does not know them: its affix search on an unknown word is the most
expensive thing the analyser does, which makes this a pessimistic set-up. The Chinese pool is real words from the
dictionary jieba ships (new words stay random characters). Candidates are drawn from the same vocabulary, so most
do not occur in a given translation, as in the real benchmark. CPU time is printed beside wall time because a shared
machine's load moves the wall-clock figure a lot.

The figure depends on the machine: ``python benchmarks/compare_revisions.py --old REV --runs 3 "bench_evaluate.py
--startup-repeat 1"`` measures two revisions on one machine, taking turns, so the ratio holds wherever it is run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jieba

from annotator.analysis.default import DefaultAnalyser
from annotator.analysis.dictionary_cache import wait_for_cache_writes
from annotator.evaluation.inputs import Translation, dataset_from_records
from annotator.evaluation.run import evaluate


def _words(text: str) -> list[str]:
    return text.split()


WORDS = {
    "IT": _words(
        "il la di della nel goccio gocce sparo spari colpo colpi foto scatto casa case acqua dell'acqua bere "
        "beve versato ha fatto bello grande piccolo bicchiere vino cacciatore spara prendersi permesso lungo un una"
    ),
    "DE": _words(
        "der die das des dem Schuss Schusses Schüsse Schnaps Schnäpse Schluck Aufnahme Foto Haus Häuser im zum "
        "trank goss einen einer kleinen großen Glas Wein Jäger schießt Erlaubnis nimmt sich lange ein"
    ),
    "ES": _words(
        "el la de del al disparo disparos trago tragos foto toma casa casas agua bebió sirvió un una pequeño "
        "gran vaso vino cazador dispara tomarse permiso largo hizo bonita"
    ),
    "RU": _words(
        "он она выпил налил рюмку рюмка выстрел выстрела выстрелом снимок фото дом дома воду ёлку елку "
        "маленький большой стакан вина охотник стреляет взять отпуск долгий один"
    ),
    "ZH": _words("他 她 倒 了 一小杯 一枪 开枪 照片 拍 房子 水 喝 威士忌 好 大 小 杯子 酒 猎人 射击 请假 长 一个"),
}
POS = ("NOUN", "VERB")


def invented(rng: random.Random, lang: str) -> str:
    if lang == "ZH":
        return "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(rng.randint(1, 3)))
    if lang == "RU":
        return "".join(rng.choice("абвгдежзиклмнопрстуфхцчшщыэюя") for _ in range(rng.randint(4, 9)))
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))


def chinese_words(rng: random.Random, count: int) -> list[str]:
    """Real Chinese words from jieba's own dictionary (its frequent part)."""
    path = Path(jieba.__file__).with_name("dict.txt")
    frequent = [line.split(" ")[0] for line in path.read_text(encoding="utf-8").splitlines() if line.count(" ") == 2]
    frequent = [word for word in frequent if len(word) <= 3 and word.isalpha()]
    return rng.sample(frequent, count)


class Vocabulary:
    """Frequent real words, a stable pool with Zipf-like weights, and fresh invented words."""

    def __init__(self, rng: random.Random, pool_size: int = 5_000) -> None:
        self.rng = rng
        self.pool = {lang: [invented(rng, lang) for _ in range(pool_size)] for lang in WORDS if lang != "ZH"}
        self.pool["ZH"] = chinese_words(rng, pool_size)
        self.weights = [1 / (rank + 10) for rank in range(pool_size)]

    def word(self, lang: str) -> str:
        draw = self.rng.random()
        if draw < 0.40:
            return self.rng.choice(WORDS[lang])
        if draw < 0.95:
            return self.rng.choices(self.pool[lang], self.weights)[0]
        return invented(self.rng, lang)

    def candidate(self, lang: str) -> str:
        shape = self.rng.random()
        if shape < 0.6:
            return self.word(lang)
        if shape < 0.8:
            return f"{self.word(lang)} {self.word(lang)}"
        if shape < 0.9:
            return f"{self.word(lang)} * {self.word(lang)}"
        return f"[{self.word(lang)}]_{self.rng.choice(POS)}"

    def sentence(self, lang: str) -> str:
        words = [self.word(lang) for _ in range(self.rng.randint(6, 14))]
        if lang == "ZH":
            return "".join(words) + "。"
        return " ".join(words).capitalize() + "."


def build_dataset(items: int, rng: random.Random, vocabulary: Vocabulary) -> list[dict]:
    records = []
    for n in range(items):
        degree = rng.randint(3, 12)
        rank = rng.randint(1, degree)
        senses = [{"synset": f"bn:{n:05d}{r:02d}n", "rank": r} for r in range(1, degree + 1)]
        pos = rng.choice(POS)
        languages = {}
        for lang in WORDS:
            good, bad, seen = [], [], set()
            for side, count in ((good, rng.randint(3, 9)), (bad, rng.randint(5, 15))):
                for _ in range(count):
                    text = vocabulary.candidate(lang)
                    if text.casefold() in seen or text.endswith(f"_{pos}]") or f"]_{pos}" in text:
                        continue
                    seen.add(text.casefold())
                    synset = senses[rank - 1]["synset"] if side is good else rng.choice(senses)["synset"]
                    tag = text.rsplit("_", 1)[1] if text.startswith("[") else None  # the schema: pos repeats the tag
                    side.append({"text": text, "pos": tag, "origin": "lexicon", "synsets": [synset]})
            languages[lang] = {"good": good, "bad": bad}
        records.append(
            {
                "id": f"item-{n:05d}",
                "sentence": "synthetic",
                "gloss": "",
                "source": "synthetic",
                "target": {"text": "w", "start": 0, "end": 1, "lemma": "w", "pos": pos},
                "synset": senses[rank - 1]["synset"],
                "polysemy_degree": degree,
                "sense_rank": rank,
                "senses": senses,
                "languages": languages,
            }
        )
    return records


_STARTUP = (
    "import time; t, c = time.perf_counter(), time.process_time(); "
    "from annotator.analysis.default import DefaultAnalyser; "
    "a = DefaultAnalyser(); a.with_stems(a.analyse(['{text}'], '{lang}'), '{lang}'); "
    "print(time.perf_counter() - t, time.process_time() - c, flush=True); "
    "from annotator.analysis.dictionary_cache import wait_for_cache_writes; wait_for_cache_writes()"
)  # a cold run's cache copy is written in the background: waited for after the timing, so the warm runs read it


def startup_one_language(lang: str, cache_dir: Path) -> tuple[float, float]:
    """(wall, CPU) seconds from a fresh interpreter's import to the first analysed sentence of one language.

    ``cache_dir`` is the annotator's cache folder (simplemma's and jieba's dictionaries): empty for a cold start.
    """
    code = _STARTUP.format(text=" ".join(WORDS[lang][:8]), lang=lang)
    env = {**os.environ, "ANNOTATOR_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def report_startup(repeat: int) -> None:
    """Cold (first run ever: an empty cache folder per language) and warm (cache built) start-up per language."""
    with tempfile.TemporaryDirectory() as tmp:
        for lang in sorted(WORDS):
            folder = Path(tmp, lang)
            cold_wall, cold_cpu = startup_one_language(lang, folder)
            warm = [startup_one_language(lang, folder) for _ in range(repeat)]
            warm_wall = statistics.median(w for w, _ in warm)
            warm_cpu = statistics.median(c for _, c in warm)
            print(
                f"start-up for {lang} alone (fresh interpreter, import + first sentence): "
                f"cold {cold_wall:.2f} s (CPU {cold_cpu:.2f} s), "
                f"warm {warm_wall:.2f} s (CPU {warm_cpu:.2f} s, median of {repeat})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--translations", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--startup-only", action="store_true", help="only time start-up per language")
    parser.add_argument("--startup-repeat", type=int, default=3, help="warm start-ups per language (median)")
    args = parser.parse_args()
    report_startup(args.startup_repeat)
    if args.startup_only:
        return
    rng = random.Random(args.seed)

    vocabulary = Vocabulary(rng)
    dataset = dataset_from_records(build_dataset(args.items, rng, vocabulary), "synthetic")
    ids = sorted(dataset.items)
    langs = sorted(WORDS)
    systems = [f"system-{k}" for k in range(max(1, args.translations // (len(ids) * len(langs)) + 1))]
    translations: list[Translation] = []
    for system in systems:
        for item_id in ids:
            for lang in langs:
                if len(translations) < args.translations:
                    translations.append(Translation(item_id, lang, system, vocabulary.sentence(lang)))

    started = time.perf_counter()
    analyser = DefaultAnalyser()
    for lang in langs:  # load simplemma's dictionary for each language and jieba's
        analyser.analyse(["warm up"], lang)
    startup = time.perf_counter() - started
    wait_for_cache_writes()  # a first-ever run writes its cache copies in the background: not during the timing

    started, cpu_started = time.perf_counter(), time.process_time()
    result = evaluate(dataset, translations, analyser)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started

    counts = {o: len(result.with_outcome(o)) for o in ("GOOD", "BAD", "MISS")}
    candidates = sum(len(specs) for item in dataset.items.values() for specs in item.candidates.values())
    print(f"dataset: {len(ids)} items x {len(langs)} languages, {candidates} candidates")
    print(f"translations: {len(translations)} ({counts['GOOD']} GOOD, {counts['BAD']} BAD, {counts['MISS']} MISS)")
    print(f"start-up (simplemma + jieba dictionaries): {startup:.2f} s")
    print(f"analyse + match + metrics: {elapsed:.2f} s = {len(translations) / elapsed:,.0f} translations/s")
    print(f"  CPU time: {cpu:.2f} s = {len(translations) / cpu:,.0f} translations/s of CPU")


if __name__ == "__main__":
    main()
