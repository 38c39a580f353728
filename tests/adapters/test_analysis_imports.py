"""The default analyser loads a backend when a language first needs it: simplemma (about a tenth of a Chinese or
Russian start-up) only for a word that neither jieba nor pymorphy3 settles."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from annotator.analysis.default import DefaultAnalyser

PROBE = """
import sys
from annotator.analysis.default import DefaultAnalyser

analyser = DefaultAnalyser()
lang, text = sys.argv[1], sys.argv[2]
analysis = analyser.with_stems(analyser.analyse([text], lang), lang)[0]
print(" ".join(analysis.lemmas), "|", "simplemma" in sys.modules)
"""


def _lemmas_and_simplemma(tmp_path: Path, lang: str, text: str) -> tuple[str, bool]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "ANNOTATOR_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, lang, text], env=env, capture_output=True, text=True, check=True, timeout=300
    )
    lemmas, loaded = done.stdout.strip().rsplit(" | ", 1)
    return lemmas, loaded == "True"


def test_simplemma_is_imported_only_for_a_word_it_must_lemmatise(tmp_path: Path) -> None:
    assert _lemmas_and_simplemma(tmp_path, "ZH", "猎人开了一枪") == ("猎人 开 了 一枪", False)
    assert _lemmas_and_simplemma(tmp_path, "RU", "Охотник выстрелил") == ("охотник выстрелить", False)  # pymorphy3
    assert _lemmas_and_simplemma(tmp_path, "IT", "Il cacciatore spara") == ("il cacciatore sparare", True)


def test_chinese_has_no_stems_and_keeps_its_analyses() -> None:
    analyser = DefaultAnalyser()
    analyses = analyser.analyse(["猎人开了一枪", "源头的水很清。"], "ZH")
    stemmed = analyser.with_stems(analyses, "ZH")
    assert stemmed == analyses and all(not analysis.stems for analysis in stemmed)
