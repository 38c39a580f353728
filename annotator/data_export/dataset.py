"""Dataset export (SPEC §7): ``dataset.jsonl``, ``discarded.jsonl``, ``stats.json``, ``manifest.json`` in a new folder.

What an export contains by default (SPEC §5 and the DiBiMT dataset, which has every item in every language):

- items a lead excluded (selection filters) are never exported;
- an item is exported when it is ``done`` in every project language;
- an item discarded in any language is left out (``keep_partially_discarded`` keeps it for its other languages);
- an item not yet done in some language is left out (``include_incomplete`` exports it with its current sets,
  and each unfinished language says its ``status``).

The refinement statistics in ``stats.json`` follow SPEC §6, not the export options: they are computed over every
``done`` item-language of the items not excluded, so an item unfinished or discarded in one language still counts
in the languages where it is done. The manifest's counts and the Table-1 counts describe the exported items.
Everything is read in one transaction and written to a hidden temporary folder renamed into
place at the end, so the same database always gives the same ``dataset.jsonl`` bytes and a failure never
leaves a folder that looks complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from annotator import __version__
from annotator.atomic_files import AtomicFolder, cannot_write, write_bytes_synced
from annotator.context import ProjectContext
from annotator.data_export.dataset_lines import (
    annotators_json,
    candidates_json,
    dataset_line,
    discarded_line,
    json_document,
    json_line,
)
from annotator.data_export.selection import (
    LEFT_OUT_REASONS,
    ExportOptions,
    Selection,
    collect,
    load_project_data,
    select,
    stats_json,
)
from annotator.domain.selection_filters import RULES, rule_of
from annotator.domain.settings import ProjectSettings
from annotator.errors import UserError
from annotator.gc_pause import gc_paused
from annotator.lexicon.licences import snapshot_header
from annotator.progress import ProgressCallback, no_progress

#: The export is split by job (``selection.py`` what it holds, ``dataset_lines.py`` its lines, this
#: module the folder); the names callers import from here stay importable from here.
__all__ = [
    "DATASET_FILE",
    "DISCARDED_FILE",
    "LEFT_OUT_REASONS",
    "MANIFEST_FILE",
    "STATS_FILE",
    "ExportOptions",
    "ExportResult",
    "NothingToExport",
    "Selection",
    "candidates_json",
    "collect",
    "default_export_root",
    "export_dataset",
    "load_project_data",
    "public_path",
    "read_dataset",
    "schema_path",
    "select",
    "stats_json",
]

#: Version of the ``dataset.jsonl`` line format (``annotator/schema/dataset.schema.json``).
DATASET_SCHEMA_VERSION = 1
EXPORT_FORMAT = "annotator-dataset-export"
DATASET_FILE = "dataset.jsonl"
DISCARDED_FILE = "discarded.jsonl"
STATS_FILE = "stats.json"
MANIFEST_FILE = "manifest.json"
SCHEMA_FILE = "dataset.schema.json"
STATS_SCHEMA_FILE = "stats.schema.json"
#: Exports go beside the project (``DATA/exports``), not into whatever folder the command ran from.
EXPORTS_FOLDER = "exports"


# --- the folder -----------------------------------------------------------------------------------------


def schema_path(name: str = SCHEMA_FILE) -> Path:
    return Path(str(resources.files("annotator").joinpath("schema", name)))


def public_path(project: ProjectContext, path: str) -> str:
    """A configured file as a manifest or a published card may name it, never by a path of the server: ``builtin:``
    names and paths relative to the project's folder as they are, a path inside that folder relative to it, any
    other by its file name."""
    candidate = Path(path)
    if path.startswith("builtin:") or not candidate.is_absolute():
        return path
    try:
        return candidate.relative_to(project.data_dir.resolve()).as_posix()
    except ValueError:
        try:
            return candidate.relative_to(project.data_dir).as_posix()
        except ValueError:
            return candidate.name


def lexicon_info(project: ProjectContext, settings: ProjectSettings) -> dict[str, Any]:
    """Which lexicon the project is configured with (provider and version) for the manifest; never the API key, nor
    a path of the server (``public_path``)."""
    config = settings.lexicon
    info: dict[str, Any] = {"provider": config.provider, "version": None}
    if config.provider == "snapshot":
        info["snapshot"] = public_path(project, config.snapshot) if config.snapshot else config.snapshot
        if config.snapshot:
            try:
                header = snapshot_header(project.resolve_path(config.snapshot))
            except OSError as error:
                info["error"] = f"snapshot not readable: {error.strerror or type(error).__name__}"
            except ValueError as error:
                info["error"] = f"snapshot not readable: {error}"
            else:
                info.update(version=header.get("version"), label=header.get("label"), source=header.get("provider"))
    elif config.provider == "babelnet":
        from annotator.lexicon.babelnet import api_version

        info.update(version=api_version(config.base_url), base_url=config.base_url)
    elif config.provider == "wordnet":
        from annotator.lexicon.base import LexiconError
        from annotator.lexicon.wordnet import lexicon_specifiers

        try:
            specifiers = lexicon_specifiers(project.wordnet_folder)
        except OSError as error:  # its folder or database unreadable: the reason, not the server's path
            info["error"] = f"wordnet not readable: {error.strerror or type(error).__name__}"
        except (LexiconError, sqlite3.Error) as error:  # wn not installed, the database unreadable
            info["error"] = f"wordnet not readable: {error}".replace(str(project.data_dir), "DATA")
        else:
            info.update(version="+".join(specifiers) or None, lexicons=specifiers)
    return info


@dataclass(frozen=True)
class ExportResult:
    path: Path
    files: dict[str, Path]
    manifest: dict[str, Any]
    #: What was exported, from the same snapshot as the files (``publish`` writes its card from it).
    selection: Selection | None = None
    #: Every item of the project (not only the exported): how many, how many a lead excluded, how many each
    #: selection filter flagged (``publish``'s card).
    project_items: dict[str, Any] = field(default_factory=dict)

    @property
    def items(self) -> int:
        return int(self.manifest["counts"]["items"])


class _HashingWriter:
    """Writes lines to a file and hashes them on the way, so the manifest needs no second read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digest = hashlib.sha256()
        self.size = 0
        self.lines = 0
        self._handle = open(path, "wb")  # noqa: SIM115 - closed in close()

    def write(self, data: bytes) -> None:
        self._handle.write(data)
        self.digest.update(data)
        self.size += len(data)
        self.lines += 1

    def close(self) -> dict[str, Any]:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        return {"sha256": self.digest.hexdigest(), "bytes": self.size, "lines": self.lines}


def _write_lines(path: Path, lines: Iterable[bytes]) -> dict[str, Any]:
    writer = _HashingWriter(path)
    try:
        for line in lines:
            writer.write(line)
    finally:
        info = writer.close()
    return info


def _write_document(path: Path, data: bytes) -> dict[str, Any]:
    write_bytes_synced(path, data)
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "lines": data.count(b"\n")}


def _dataset_lines(selection: Selection, progress: ProgressCallback) -> Iterator[bytes]:
    total = len(selection.items)
    ids = selection.annotator_ids() if selection.options.with_annotators else {}
    for done, exported in enumerate(selection.items, start=1):
        item = exported.item
        annotators = None
        if ids:
            annotators = {
                state.lang: annotators_json(selection.copies[(item.id, state.lang)], ids)
                for state in exported.states
                if (item.id, state.lang) in selection.copies
            }
        yield (dataset_line(item, exported.states, annotators) + "\n").encode("utf-8")
        progress(done, total, DATASET_FILE)


def folder_name(created: datetime) -> str:
    return "dataset-" + created.strftime("%Y%m%d-%H%M%SZ")


def default_export_root(project: ProjectContext) -> Path:
    """Where exports go unless told otherwise: the project's own ``exports`` folder, as an absolute path."""
    return (project.data_dir / EXPORTS_FOLDER).resolve()


class NothingToExport(UserError):
    """The selection holds no item: an empty dataset is refused unless asked for, it is almost always a mistake.

    ``left_out`` (why each item was left out, with counts) lets the page say the real reason in its own words."""

    def __init__(self, message: str, left_out: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.left_out = dict(left_out or {})


def nothing_to_export(left_out: dict[str, int], action: str = "export") -> str:
    """Why a selection without items is not exported (``action`` "publish" for the Publish block): the command line
    and the Dataset page say the same."""
    left = ", ".join(f"{n} {why}" for why, n in left_out.items() if n) or "the project has no items"
    return (
        f"Nothing to {action}: no item matches the selection (left out: {left}). Items are {action}ed when done in "
        "every language."
    )


#: What ``annotator export`` offers when nothing matches (both flags are its own).
EXPORT_EMPTY_HINT = (
    " Add --include-incomplete to export unfinished ones, or --allow-empty to write an empty dataset anyway."
)


def export_dataset(
    project: ProjectContext,
    root: Path | str | None = None,
    options: ExportOptions | None = None,
    progress: ProgressCallback = no_progress,
    allow_empty: bool = True,
    empty_hint: str = EXPORT_EMPTY_HINT,
) -> ExportResult:
    """Write a new export folder under ``root`` (default ``DATA/exports``); with ``allow_empty=False`` a selection
    without items raises ``NothingToExport`` and writes nothing. ``empty_hint`` ends its message: what the caller
    offers instead, in its own terms (only options the caller has)."""
    options = options or ExportOptions()
    root = Path(root) if root is not None else default_export_root(project)
    # The export holds one typed row per item and item-language for its run; those rows set off the collector's
    # full passes over the whole heap while nothing they hold can be cyclic garbage (gain: benchmarks/RESULTS.md).
    with gc_paused(age_survivors=True):
        return _export(project, root, options, progress, allow_empty, empty_hint)


def _export(
    project: ProjectContext,
    root: Path,
    options: ExportOptions,
    progress: ProgressCallback,
    allow_empty: bool,
    empty_hint: str = EXPORT_EMPTY_HINT,
) -> ExportResult:
    data = load_project_data(project)
    selection = select(data, options)
    if not selection.items and not allow_empty:
        raise NothingToExport(nothing_to_export(selection.left_out) + empty_hint, selection.left_out)
    stats = stats_json(selection)
    created = datetime.now(UTC).replace(microsecond=0)
    name = folder_name(created)
    files: dict[str, dict[str, Any]] = {}
    lexicon = lexicon_info(project, data.settings)  # read before writing: its errors are not the output folder's
    try:
        with (folder := AtomicFolder(root, name)) as tmp:
            files[DATASET_FILE] = _write_lines(tmp / DATASET_FILE, _dataset_lines(selection, progress))
            files[DISCARDED_FILE] = _write_lines(
                tmp / DISCARDED_FILE, (json_line(discarded_line(*entry)) for entry in selection.discarded)
            )
            files[STATS_FILE] = _write_document(tmp / STATS_FILE, json_document(stats))
            files[SCHEMA_FILE] = _write_document(tmp / SCHEMA_FILE, schema_path().read_bytes())
            files[STATS_SCHEMA_FILE] = _write_document(
                tmp / STATS_SCHEMA_FILE, schema_path(STATS_SCHEMA_FILE).read_bytes()
            )
            manifest = {
                "format": EXPORT_FORMAT,
                "schema_version": DATASET_SCHEMA_VERSION,
                "tool": "annotator",
                "tool_version": __version__,
                "created_at": created.isoformat().replace("+00:00", "Z"),
                "project": data.settings.name,
                "languages": list(selection.languages),
                "options": options.to_json(),
                "counts": {
                    "items": len(selection.items),
                    "item_languages": sum(len(e.states) for e in selection.items),
                    "items_per_language": stats["items_per_language"],
                    "discarded_item_languages": len(selection.discarded),
                    "left_out": dict(selection.left_out),
                    "table1": stats["counts"],
                },
                "lexicon": lexicon,
                "files": {name: files[name] for name in sorted(files)},
            }
            _write_document(tmp / MANIFEST_FILE, json_document(manifest))
    except OSError as error:  # the output folder is a file, cannot be created, is read-only, the disk is full…
        raise cannot_write(root, error) from error
    final = folder.final
    flagged: Counter[str] = Counter()
    excluded = 0
    for item in data.items:
        flagged.update({rule_of(failure) for failure in item.filter_failures})
        excluded += item.excluded
    project_items = {
        "total": len(data.items),
        "excluded": excluded,
        "flagged": {rule: flagged.get(rule, 0) for rule in RULES},
    }
    paths = {name: final / name for name in [*sorted(files), MANIFEST_FILE]}
    return ExportResult(final, paths, manifest, selection, project_items)


def read_dataset(path: Path | str) -> list[dict[str, Any]]:
    """The lines of a ``dataset.jsonl`` (for tests, the evaluation and the page)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
