"""The Stanza analyser (DiBiMT §3.4 used Stanza): tokenize, mwt where the language has it, pos, lemma.

Stanza is an optional extra (it pulls in torch), so it is imported only when this analyser is built. It never
downloads anything (``download_method=None``): models come from a model folder (Stanza's own default, which honours
``STANZA_RESOURCES_DIR``, unless one is given) or from explicit model files per language, and a missing model is
reported with the command that downloads it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annotator.analysis.base import AnalyserUnavailable, Analysis
from annotator.atomic_files import write_text_atomic

#: Processors run, in order; ``mwt`` is added by Stanza itself when the language has multi-word tokens.
PROCESSORS = ("tokenize", "mwt", "pos", "lemma")
#: Keys accepted in ``model_paths[lang]`` besides the processors, mapped to Stanza's argument names.
_EXTRA_PATHS = {"pos_pretrain": "pos_pretrain_path", "lemma_pretrain": "lemma_pretrain_path"}


def stanza_language(lang: str) -> str:
    """Project code (``IT``, ``ZH``) → Stanza code (``it``, ``zh``; Stanza resolves ``zh`` to ``zh-hans``)."""
    return lang.strip().lower().replace("_", "-")


def download_command(lang: str, model_dir: Path | None = None) -> str:
    """The shell command that installs the models this analyser needs for ``lang``."""
    code = stanza_language(lang)
    target = f", model_dir={str(model_dir)!r}" if model_dir is not None else ""
    return f"python -c \"import stanza; stanza.download('{code}'{target})\""


def _import_stanza() -> Any:
    try:
        import stanza
    except ImportError as error:
        raise AnalyserUnavailable(
            "The Stanza analyser needs the optional 'stanza' extra: install torch (CPU wheel) first, then "
            "pip install 'annotator[stanza]'. Or use the default analyser (--analyser default)."
        ) from error
    return stanza


class StanzaAnalyser:
    """Analyse translations with Stanza pipelines, one per language, built on first use (or by ``prepare``).

    ``model_dir`` is the Stanza model folder (the one ``stanza.download`` fills). ``model_paths`` gives explicit
    model files per language, e.g. ``{"IT": {"tokenize": ..., "mwt": ..., "pos": ..., "lemma": ...}}``; a language
    given this way needs no ``resources.json``. ``pipeline_options`` are passed to ``stanza.Pipeline`` unchanged.
    """

    name = "stanza"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        model_paths: Mapping[str, Mapping[str, str | Path]] | None = None,
        *,
        use_gpu: bool = False,
        pipeline_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._stanza = _import_stanza()
        self.custom_dir = model_dir is not None
        if model_dir is None:
            from stanza.resources.common import DEFAULT_MODEL_DIR

            model_dir = DEFAULT_MODEL_DIR
        self.model_dir = Path(model_dir).expanduser()
        self.model_paths = {lang.upper(): dict(paths) for lang, paths in (model_paths or {}).items()}
        self.use_gpu = use_gpu
        self.pipeline_options = dict(pipeline_options or {})
        self._pipelines: dict[str, Any] = {}
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    # --- public -------------------------------------------------------------------------------------------------

    def prepare(self, langs: Sequence[str]) -> None:
        """Load every language's pipeline now, so a missing model stops a run before any work is done."""
        for lang in langs:
            self.pipeline(lang)

    def analyse(self, texts: Sequence[str], lang: str) -> list[Analysis]:
        if not texts:
            return []
        nlp = self.pipeline(lang)
        documents = nlp.bulk_process(list(texts))
        return [_to_analysis(text, document) for text, document in zip(texts, documents, strict=True)]

    def with_stems(self, analyses: Sequence[Analysis], lang: str) -> list[Analysis]:
        """Stanza gives no stems: the analyses unchanged (its lemmas already cover what stems would)."""
        return list(analyses)

    def pipeline(self, lang: str) -> Any:
        key = lang.upper()
        pipeline = self._pipelines.get(key)
        if pipeline is None:
            pipeline = self._build(key)
            self._pipelines[key] = pipeline
        return pipeline

    # --- building -----------------------------------------------------------------------------------------------

    def _missing(self, lang: str, reason: str) -> AnalyserUnavailable:
        command = download_command(lang, self.model_dir if self.custom_dir else None)
        return AnalyserUnavailable(
            f"Stanza models for {lang} are not installed in {self.model_dir} ({reason}). Download them with:\n"
            f"  {command}\n"
            "or choose another folder with --stanza-models, or use --analyser default."
        )

    def _build(self, lang: str) -> Any:
        code = stanza_language(lang)
        options: dict[str, Any] = {
            "lang": code,
            "dir": str(self.model_dir),
            "download_method": None,
            "use_gpu": self.use_gpu,
            "logging_level": "ERROR",
        }
        explicit = self.model_paths.get(lang)
        if explicit:
            options.update(self._explicit_options(lang, explicit))
        else:
            options["lang"] = self._check_installed(lang, code)
            options["processors"] = "tokenize,pos,lemma"  # Stanza adds mwt where the language has it
        options.update(self.pipeline_options)
        from stanza.pipeline.core import PipelineRequirementsException  # stanza is imported by now (__init__)

        try:
            return self._stanza.Pipeline(**options)
        except AnalyserUnavailable:
            raise
        except (FileNotFoundError, ValueError, KeyError) as error:
            raise self._missing(lang, f"{type(error).__name__}: {error}") from error
        except PipelineRequirementsException as error:  # a processor needs one that is not loaded
            raise self._missing(lang, str(error).strip()) from error

    def _check_installed(self, lang: str, code: str) -> str:
        resources_file = self.model_dir / "resources.json"
        if not resources_file.is_file():
            raise self._missing(lang, "no resources.json")
        try:
            resources = json.loads(resources_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise self._missing(lang, f"resources.json is unreadable: {error}") from error
        entry = resources.get(code)
        if isinstance(entry, dict) and "alias" in entry:
            code = entry["alias"]
            entry = resources.get(code)
        if entry is None:
            raise AnalyserUnavailable(f"Stanza has no models for language {lang} ('{code}'); use --analyser default.")
        if not (self.model_dir / code).is_dir():
            raise self._missing(lang, f"no folder {code}/")
        return code

    def _explicit_options(self, lang: str, paths: Mapping[str, str | Path]) -> dict[str, Any]:
        """``tokenize_model_path=...`` and friends; a resources index is then optional (an empty one is used)."""
        unknown = set(paths) - set(PROCESSORS) - set(_EXTRA_PATHS)
        if unknown:
            raise ValueError(f"unknown Stanza model keys for {lang}: {', '.join(sorted(unknown))}")
        if "tokenize" not in paths:
            raise ValueError(f"explicit Stanza models for {lang} need at least a 'tokenize' model path")
        options: dict[str, Any] = {"allow_unknown_language": True}
        for key, value in paths.items():
            path = Path(value).expanduser()
            if not path.is_file():
                raise AnalyserUnavailable(
                    f"Stanza {key} model for {lang} not found: {path}. Train it, or download the standard models "
                    f"with:\n  {download_command(lang, self.model_dir if self.custom_dir else None)}"
                )
            options[_EXTRA_PATHS.get(key, f"{key}_model_path")] = str(path)
        options["processors"] = ",".join(p for p in PROCESSORS if p in paths)
        if not (self.model_dir / "resources.json").is_file():
            options["resources_filepath"] = self._empty_resources()
        return options

    def _empty_resources(self) -> str:
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="annotator-stanza-")
        path = Path(self._scratch.name) / "resources.json"
        if not path.exists():
            write_text_atomic(path, "{}")
        return str(path)


def _to_analysis(text: str, document: Any) -> Analysis:
    tokens: list[str] = []
    spans: list[tuple[int, int]] = []
    words: list[str] = []
    lemmas: list[str] = []
    upos: list[str | None] = []
    word_token: list[int] = []
    cursor = 0
    for sentence in document.sentences:
        for token in sentence.tokens:
            index = len(tokens)
            start, end = token.start_char, token.end_char
            if start is None or end is None:  # not all tokenizers give offsets; find the token in the text
                found = text.find(token.text, cursor)
                start, end = (found, found + len(token.text)) if found >= 0 else (cursor, cursor)
            cursor = max(cursor, end)
            tokens.append(token.text)
            spans.append((start, end))
            for word in token.words:
                words.append(word.text)
                lemmas.append(word.lemma or word.text)
                upos.append(word.upos or None)
                word_token.append(index)
    return Analysis(
        text=text,
        tokens=tuple(tokens),
        token_spans=tuple(spans),
        words=tuple(words),
        lemmas=tuple(lemmas),
        upos=tuple(upos),
        word_token=tuple(word_token),
    )
