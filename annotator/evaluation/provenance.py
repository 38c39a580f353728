"""What an evaluation was computed from: tool and library versions, input digests, options, time.

A published score must be traceable to the exact files and analyser that produced it, so ``metrics.json``, the
report, the leaderboard and the significance tables all carry this one document. It is plain JSON-ready data.

The export's *manifest id*: an export's ``manifest.json`` has no ``id`` field, so the id is ``sha256:`` + the
SHA-256 of the manifest file's bytes. The manifest lists every exported file with its own SHA-256, so this one
digest pins the whole export; ``created_at`` and ``project`` are copied beside it for people reading the report.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from annotator import __version__
from annotator.clock import utc_now
from annotator.domain.output_text import markdown_escape
from annotator.evaluation.inputs import Dataset

PROVENANCE_FORMAT = "annotator-provenance"
MANIFEST_FILE = "manifest.json"
LIVE_CURATION = "live curation"
#: The distributions each analyser's results depend on (reported with their installed version, or None).
ANALYSER_LIBRARIES: dict[str, tuple[str, ...]] = {
    "default": ("simplemma", "jieba", "pymorphy3", "pymorphy3-dicts-ru", "snowballstemmer"),
    "stanza": ("stanza", "torch"),
}
_CHUNK = 1 << 20


def library_version(distribution: str) -> str | None:
    """The installed version of a distribution, None when it is not installed (an optional extra)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file, read in 1 MiB pieces (a large translations file is never held at once)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def analyser_provenance(analyser: Any) -> dict[str, Any]:
    """The analyser's name, its libraries' versions and, for Stanza, where its models came from."""
    name = str(getattr(analyser, "name", analyser))
    libraries = ANALYSER_LIBRARIES.get(name, ())
    # the default analyser is annotator's own code; another's version is its backend's (Stanza's)
    version = __version__ if name == "default" else (library_version(libraries[0]) if libraries else None)
    info: dict[str, Any] = {
        "name": name,
        "version": version,
        "libraries": {lib: library_version(lib) for lib in ANALYSER_LIBRARIES.get(name, ())},
    }
    model_dir = getattr(analyser, "model_dir", None)
    if model_dir is not None:
        info["models"] = _stanza_models(Path(model_dir), getattr(analyser, "model_paths", {}) or {})
    return info


def _stanza_models(model_dir: Path, model_paths: Mapping[str, Any]) -> dict[str, Any]:
    """The model folder, the version and digest of its ``resources.json`` (which pins every model's file), and any
    explicit model files; hashing the models themselves (hundreds of MB) would cost more than the evaluation."""
    resources = model_dir / "resources.json"
    models: dict[str, Any] = {"dir": str(model_dir)}
    if resources.is_file():
        models["resources_sha256"] = file_sha256(resources)
        try:
            models["resources_version"] = json.loads(resources.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError, AttributeError):
            models["resources_version"] = None
    if model_paths:
        models["explicit"] = {lang: {k: str(v) for k, v in paths.items()} for lang, paths in model_paths.items()}
    return models


def export_manifest(dataset_path: str | Path) -> dict[str, Any] | None:
    """The export ``manifest.json`` beside the dataset file, summarised; None when the dataset is not an export's."""
    manifest = Path(dataset_path).parent / MANIFEST_FILE
    if not manifest.is_file():
        return None
    data = manifest.read_bytes()
    info: dict[str, Any] = {"id": "sha256:" + hashlib.sha256(data).hexdigest()}
    try:
        document = json.loads(data)
    except ValueError:
        return info | {"readable": False}
    if isinstance(document, dict):
        info["created_at"] = document.get("created_at")
        info["project"] = document.get("project")
        listed = (document.get("files") or {}).get(Path(dataset_path).name) or {}
        if isinstance(listed, dict) and "sha256" in listed:
            info["lists_this_dataset"] = listed["sha256"] == file_sha256(dataset_path)
    return info


def dataset_digest(dataset: Dataset) -> str:
    """A digest of what a live evaluation scored: every item's facts and candidates, in id order."""
    digest = hashlib.sha256()
    for item_id in sorted(dataset.items):
        item = dataset.items[item_id]
        languages = {
            lang: [[side, position, text, synsets] for text, _pos, side, position, *synsets in specs]
            for lang, specs in sorted(item.candidates.items())
        }
        record = [
            item.id, item.sentence, item.lemma, item.pos, item.synset, item.sense_rank, item.polysemy_degree,
            sorted(item.sense_ranks.items()), languages,
        ]  # fmt: skip
        digest.update(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    return "sha256:" + digest.hexdigest()


def _translations(paths: Iterable[tuple[str, str | Path]]) -> list[dict[str, Any]]:
    return [{"name": name, "sha256": file_sha256(path)} for name, path in paths]


def file_provenance(
    dataset_path: str | Path,
    translations: Sequence[tuple[str, str | Path]],
    analyser: Any,
    options: Mapping[str, Any],
    dataset_name: str | None = None,
) -> dict[str, Any]:
    """Provenance of an evaluation of a dataset file; ``translations`` are (name shown, path read) pairs."""
    dataset: dict[str, Any] = {
        "kind": "file",
        "name": dataset_name or str(dataset_path),
        "sha256": file_sha256(dataset_path),
    }
    manifest = export_manifest(dataset_path)
    if manifest is not None:
        dataset["export_manifest"] = manifest
    return _document(dataset, translations, analyser, options)


def live_provenance(
    dataset: Dataset,
    translations: Sequence[tuple[str, str | Path]],
    analyser: Any,
    options: Mapping[str, Any],
    project: str = "",
) -> dict[str, Any]:
    """Provenance of an evaluation of the project's current curation (no dataset file): a digest of the items."""
    scored = {"kind": LIVE_CURATION, "project": project, "items": len(dataset.items), "digest": dataset_digest(dataset)}
    return _document(scored, translations, analyser, options)


def job_provenance(
    project_name: str, params: Mapping[str, Any], dataset: Dataset, analyser: Any, translations_name: str
) -> dict[str, Any]:
    """Provenance of an evaluation job (the Evaluate page or a queued command): the live curation when the job
    scored it (``current``), else the dataset file the job read (an upload: its own name, no export manifest)."""
    translations = [(translations_name, params["translations"])]
    options = {"analyser": getattr(analyser, "name", str(analyser)), "stanza_models": params.get("models") or None}
    if params.get("current"):
        return live_provenance(dataset, translations, analyser, options, project=project_name)
    return file_provenance(params["dataset"], translations, analyser, options, params.get("dataset_name"))


def _document(
    dataset: dict[str, Any], translations: Sequence[tuple[str, str | Path]], analyser: Any, options: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "format": PROVENANCE_FORMAT,
        "annotator": __version__,
        "analyser": analyser_provenance(analyser),
        "dataset": dataset,
        "translations": _translations(translations),
        "options": dict(options),
        "evaluated_at": utc_now("seconds", zulu=True),
    }


def provenance_lines(provenance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The document as (label, value) lines, in reading order, for the report's and the leaderboard's text."""
    if not provenance:
        return [("Provenance", "not recorded (an evaluation from before provenance was kept)")]
    analyser = provenance.get("analyser") or {}
    libraries = analyser.get("libraries") or {}
    lines = [("annotator", str(provenance.get("annotator")))]
    used = ", ".join(f"{lib} {version or 'not installed'}" for lib, version in libraries.items())
    lines.append(("Analyser", f"{analyser.get('name')} {analyser.get('version')}" + (f" ({used})" if used else "")))
    models = analyser.get("models")
    if models:
        lines.append(("  Stanza models", json.dumps(models, ensure_ascii=False, sort_keys=True)))
    dataset = provenance.get("dataset") or {}
    if dataset.get("kind") == LIVE_CURATION:
        lines.append(("Dataset", f"the live curation of project {dataset.get('project') or '?'}"))
        lines.append(("Items evaluated", str(dataset.get("items"))))
        lines.append(("Curation digest", str(dataset.get("digest"))))
    else:
        lines.append(("Dataset", str(dataset.get("name"))))
        lines.append(("Dataset SHA-256", str(dataset.get("sha256"))))
        manifest = dataset.get("export_manifest")
        if manifest:
            lines.append(("Export manifest id", str(manifest.get("id"))))
            lines.append(("Export", f"{manifest.get('project')} at {manifest.get('created_at')}"))
    for entry in provenance.get("translations") or []:
        lines.append((f"Translations {entry.get('name')}", f"SHA-256 {entry.get('sha256')}"))
    options = provenance.get("options") or {}
    lines.append(("Options", json.dumps(options, ensure_ascii=False, sort_keys=True)))
    if provenance.get("bootstrap"):
        lines.append(("Bootstrap", json.dumps(provenance["bootstrap"], sort_keys=True)))
    lines.append(("Evaluated at (UTC)", str(provenance.get("evaluated_at"))))
    return lines


def provenance_markdown(provenance: Mapping[str, Any]) -> str:
    """A Markdown list of the provenance lines (for leaderboard.md and significance.md)."""
    lines = provenance_lines(provenance)
    rows = [f"- {markdown_escape(label.strip())}: {markdown_escape(value)}" for label, value in lines]
    return "**Provenance**\n\n" + "\n".join(rows) + "\n"


def provenance_latex_comment(provenance: Mapping[str, Any]) -> str:
    """The provenance as LaTeX comment lines, harmless when the table is ``\\input`` into a paper."""
    lines = [f"% {label.strip()}: {value}".replace("\n", " ") for label, value in provenance_lines(provenance)]
    return "% Provenance\n" + "\n".join(lines) + "\n"
