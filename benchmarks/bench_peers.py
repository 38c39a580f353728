"""Benchmark: ``annotator evaluate`` beside MuCoW's own ``evaluate.py``, whole processes, runs alternating.

Run: ``python benchmarks/bench_peers.py [--data ../shared/data/mucow-wmt19] [--pairs en-de en-ru] [--runs 7]``.

The inputs are built once per pair in a temporary folder: MuCoW's suite as ``dataset.jsonl`` (GOOD = positive,
BAD = negative words) and two systems, the human references and the references with the correct word deleted
(``bench_mucow.perturbed``), as ``translations.jsonl`` for annotator and as one raw file per system for MuCoW. Three
commands are then timed, in turns (the order rotates each round, so a machine that gets busier weighs on all alike):

- ``annotator evaluate dataset.jsonl translations.jsonl`` with a warm dictionary cache (a folder filled beforehand),
  and once per round with an empty cache folder (``cold``: the run starts a process that indexes simplemma's stream
  beside the run's own start-up, looks words up through that index, and leaves the process to write the copy after
  it; the benchmark waits for that copy, untimed, before the next command, so the writer's work never overlaps
  another timed run). A cold run's CPU time counts that process only when it ended before the command did (it is
  then reaped with the command): compare cold runs on wall time;
- MuCoW's core: ``processLanguagePair`` of its ``evaluate.py`` (imported from the data folder, not copied) on the raw
  files and lemma files written beforehand with simplemma (Moses tokens, one lemma each);
- MuCoW with the cheapest lemmatiser before it: the same process lemmatising the raw files with simplemma first.

It prints each median (wall seconds) and the ratios: annotator against MuCoW with simplemma (target ≤ 1.0), against
MuCoW's core alone (target ≤ 2.0), and cold against warm (target ≤ 1.5).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mucow import perturbed
from whole_process import compile_package

from annotator.analysis.default import DefaultAnalyser
from annotator.analysis.dictionary_cache import cache_file
from annotator.data_import.mucow import mucow_dataset_records, read_mucow

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "mucow-wmt19"
SYSTEMS = ("reference", "perturbed")

#: MuCoW's scorer run as its own process: ``argv`` = data folder, pair, raw folder, lemma folder, lemmatise first?
MUCOW_SCRIPT = r"""
import importlib.util, sys
from pathlib import Path

data, pair, raw, lem, lemmatise = sys.argv[1:6]
if lemmatise == "yes":
    import sacremoses, simplemma

    tokenizer = sacremoses.MosesTokenizer(lang=pair[-2:])
    for path in sorted(Path(raw).iterdir()):
        lines = path.read_text(encoding="utf-8").splitlines()
        out = [
            " ".join(simplemma.lemmatize(t, lang=pair[-2:]) for t in tokenizer.tokenize(line.strip(), escape=False))
            for line in lines
        ]
        Path(lem, path.name + ".parsed.toklemma").write_text("\n".join(out) + "\n", encoding="utf-8")
spec = importlib.util.spec_from_file_location("mucow_evaluate", Path(data) / "evaluate.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.processLanguagePair(pair, str(Path(data) / pair), raw + "/*", lem + "/*.parsed.toklemma")
"""


def build(data: Path, pair: str, folder: Path) -> int:
    """Write one pair's inputs into ``folder``; return the number of translations."""
    import sacremoses
    import simplemma

    lang = pair[-2:].upper()
    lines = read_mucow(data / pair)
    analyser = DefaultAnalyser()
    analyses = analyser.analyse([line.reference or "" for line in lines], lang)
    texts = {
        "reference": [line.reference or "" for line in lines],
        "perturbed": [perturbed(line, analysis) for line, analysis in zip(lines, analyses, strict=True)],
    }
    with (folder / "dataset.jsonl").open("w", encoding="utf-8") as out:
        for record in mucow_dataset_records(lines, lang):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (folder / "translations.jsonl").open("w", encoding="utf-8") as out:
        for system in SYSTEMS:
            for line, text in zip(lines, texts[system], strict=True):
                row = {"id": line.item_id, "lang": lang, "system": system, "translation": text}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    tokenizer = sacremoses.MosesTokenizer(lang=pair[-2:])
    for name in ("raw", "lem", "lem-empty"):
        (folder / name).mkdir()
    for system in SYSTEMS:
        (folder / "raw" / system).write_text("\n".join(texts[system]) + "\n", encoding="utf-8")
        lemmas = [
            " ".join(simplemma.lemmatize(t, lang=pair[-2:]) for t in tokenizer.tokenize(text.strip(), escape=False))
            for text in texts[system]
        ]
        (folder / "lem" / f"{system}.parsed.toklemma").write_text("\n".join(lemmas) + "\n", encoding="utf-8")
    return len(lines) * len(SYSTEMS)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``command`` as its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed: {done.stderr.strip()[-500:]}")
    return seconds, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def wait_for_copy(lang: str, folder: Path, deadline_seconds: float = 300) -> None:
    """Wait until the dictionary copy a run of ``lang`` handed off is in ``folder`` (a readiness poll, not a bet)."""
    path = cache_file(lang.lower(), folder)
    deadline = time.monotonic() + deadline_seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"no dictionary copy at {path} after {deadline_seconds:.0f} s")
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--pairs", nargs="+", default=["en-de", "en-ru"])
    parser.add_argument("--runs", type=int, default=7, help="rounds per pair (medians shown)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-cache runs")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    compile_package(REPO)  # as installed, like the peers' own packages
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        root = Path(tmp)
        script = root / "mucow_run.py"
        script.write_text(MUCOW_SCRIPT, encoding="utf-8")
        warm_cache = root / "cache"
        warm = {**env, "ANNOTATOR_CACHE_DIR": str(warm_cache)}
        for pair in args.pairs:
            folder = root / pair
            folder.mkdir()
            count = build(args.data, pair, folder)
            ours = [sys.executable, "-m", "annotator.cli", "evaluate", str(folder / "dataset.jsonl")]
            ours += [str(folder / "translations.jsonl"), "--out", str(folder / "out")]
            core = [sys.executable, str(script), str(args.data), pair, str(folder / "raw"), str(folder / "lem"), "no"]
            lemmatised = [*core[:-2], str(folder / "lem-empty"), "yes"]
            timed(ours, warm)  # fills the warm cache folder
            wait_for_copy(pair[-2:], warm_cache)
            commands = {"annotator": (ours, warm), "mucow core": (core, env), "mucow + simplemma": (lemmatised, env)}
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in (*commands, "annotator cold")}
            for round_number in range(args.runs):
                names = list(commands)
                names = names[round_number % len(names) :] + names[: round_number % len(names)]
                for name in names:
                    command, command_env = commands[name]
                    times[name].append(timed(command, command_env))
                if not args.no_cold:
                    cold = root / f"cold-{pair}-{round_number}"
                    times["annotator cold"].append(timed(ours, {**env, "ANNOTATOR_CACHE_DIR": str(cold)}))
                    wait_for_copy(pair[-2:], cold)
            print(f"{pair.upper()}: {count:,} translations, {args.runs} rounds, medians (wall time; CPU time)")
            wall = {name: statistics.median(w for w, _ in values) for name, values in times.items() if values}
            cpu = {name: statistics.median(c for _, c in values) for name, values in times.items() if values}
            for name in wall:
                print(f"  {name}: {wall[name]:.2f} s wall, {cpu[name]:.2f} s CPU")
            for label, median in (("wall", wall), ("CPU", cpu)):
                lemma = median["annotator"] / median["mucow + simplemma"]
                core_ratio = median["annotator"] / median["mucow core"]
                line = f"  {label} ratios: annotator / (mucow + simplemma) {lemma:.2f} (target ≤ 1.0), "
                line += f"annotator / mucow core {core_ratio:.2f} (target ≤ 2.0)"
                if "annotator cold" in median:
                    cold_ratio = median["annotator cold"] / median["annotator"]
                    line += f", annotator cold / warm {cold_ratio:.2f} (target ≤ 1.5)"
                print(line)


if __name__ == "__main__":
    main()
