"""``annotator evaluate`` on a first run (an empty dictionary cache folder), as a user runs it: the language of the
translations' first line is indexed by a process started ahead, any other language by the run itself; both copies
are left behind, the next run reads them, and both runs give the same analyses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from annotator.analysis.dictionary_cache import CACHE_ENV, CachedDictionaryFactory, SortedDictionary, cache_file

#: Two small dictionaries of simplemma: Italian named on the first line, Galician only further down.
RECORDS = [
    ("i1", "He fired two shots.", "shots", "IT", "sparo", "goccio", "Ha sparato due spari nel bosco."),
    ("i2", "The house is old.", "house", "GL", "casa", "fogar", "As casas son vellas."),
]


def _inputs(folder: Path) -> tuple[Path, Path]:
    dataset, translations = folder / "dataset.jsonl", folder / "mt.jsonl"
    with dataset.open("w", encoding="utf-8") as out, translations.open("w", encoding="utf-8") as mt:
        for item_id, sentence, word, lang, good, bad, translation in RECORDS:
            start = sentence.index(word)
            record = {
                "id": item_id, "sentence": sentence,
                "target": {"text": word, "start": start, "end": start + len(word), "lemma": word, "pos": "NOUN"},
                "synset": f"bn:{item_id}n", "gloss": "", "source": "test", "polysemy_degree": None,
                "sense_rank": None, "senses": [],
                "languages": {lang: {
                    "good": [{"text": good, "pos": None, "origin": "translator", "synsets": []}],
                    "bad": [{"text": bad, "pos": None, "origin": "translator", "synsets": []}],
                }},
            }  # fmt: skip
            out.write(json.dumps(record) + "\n")
            mt.write(json.dumps({"id": item_id, "lang": lang, "system": "s", "translation": translation}) + "\n")
    return dataset, translations


def _evaluate(folder: Path, cache: Path, run: str) -> subprocess.CompletedProcess[str]:
    dataset, translations = _inputs(folder)
    env = {**os.environ, CACHE_ENV: str(cache), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "annotator.cli", "evaluate", str(dataset), str(translations)]
    return subprocess.run([*command, "--out", str(folder / run)], env=env, capture_output=True, text=True, timeout=600)


def test_a_first_run_with_two_languages_leaves_both_copies_and_scores_as_the_warm_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _evaluate(tmp_path, cache, "first")
    assert first.returncode == 0, first.stderr
    assert "2 translations: 2 GOOD" in first.stdout, first.stdout
    paths = [cache_file(lang, cache) for lang in ("it", "gl")]
    deadline = time.monotonic() + 120
    while not all(path.exists() for path in paths) and time.monotonic() < deadline:  # written after the command
        time.sleep(0.05)
    assert all(path.exists() for path in paths), sorted(cache.rglob("*"))
    written = [path.stat().st_mtime_ns for path in paths]
    for lang in ("it", "gl"):
        assert isinstance(CachedDictionaryFactory(cache).get_dictionary(lang), SortedDictionary)
    second = _evaluate(tmp_path, cache, "second")
    assert second.returncode == 0, second.stderr
    assert [path.stat().st_mtime_ns for path in paths] == written  # read, not built again
    first_analyses = (tmp_path / "first" / "analysed.jsonl").read_text(encoding="utf-8")
    assert first_analyses == (tmp_path / "second" / "analysed.jsonl").read_text(encoding="utf-8")
