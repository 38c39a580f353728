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

import functools
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from annotator import __version__
from annotator.atomic_files import AtomicFolder, cannot_write, write_bytes_synced
from annotator.context import ProjectContext
from annotator.data_export.copy_records import agreement_records_in
from annotator.domain.agreement import CopyRecord, agreement_report
from annotator.domain.candidates import key_string
from annotator.domain.dataset_counts import DatasetCounts, dataset_counts
from annotator.domain.model import Item, Status
from annotator.domain.refinement_stats import RefinementRecord, RefinementTable, refinement_table
from annotator.domain.settings import ProjectSettings
from annotator.errors import UserError
from annotator.progress import ProgressCallback, no_progress
from annotator.store import double_curation
from annotator.store.double_curation import CopySetsRow
from annotator.store.repository import CandidateSetsRow

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

#: Why an item was left out, in the order the reasons are checked.
LEFT_OUT_REASONS = ("excluded", "discarded", "incomplete")


@dataclass(frozen=True)
class ExportOptions:
    include_incomplete: bool = False
    keep_partially_discarded: bool = False
    #: Issue 11: each double-curating translator's own sets in ``dataset.jsonl`` (``annotators`` per language),
    #: under anonymous ids (``A1``, ``A2``… in name order) unless ``annotator_names``.
    with_annotators: bool = False
    annotator_names: bool = False

    def to_json(self) -> dict[str, bool]:
        return {
            "include_incomplete": self.include_incomplete,
            "keep_partially_discarded": self.keep_partially_discarded,
            "with_annotators": self.with_annotators,
            "annotator_names": self.annotator_names,
        }


@dataclass(frozen=True)
class ProjectData:
    """Everything an export reads, taken in one read transaction (a consistent snapshot)."""

    settings: ProjectSettings
    items: list[Item]
    states: dict[str, dict[str, CandidateSetsRow]]
    #: Issue 11: the translators' copies of double-curated item-languages, and each copy as agreement data.
    copies: dict[tuple[str, str], list[CopySetsRow]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)


def load_project_data(project: ProjectContext) -> ProjectData:
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
        settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
        items = sorted(project.repo.list_items(conn), key=lambda item: item.id)
        states: dict[str, dict[str, CandidateSetsRow]] = {}
        for state in project.repo.iter_candidate_sets(conn):
            states.setdefault(state.item_id, {})[state.lang] = state
        copies: dict[tuple[str, str], list[CopySetsRow]] = {}
        for copy in double_curation.iter_copy_sets(conn):
            copies.setdefault((copy.item_id, copy.lang), []).append(copy)
        records = agreement_records_in(conn, [c for group in copies.values() for c in group])
    return ProjectData(settings, items, states, copies, records)


def empty_row(item_id: str, lang: str) -> CandidateSetsRow:
    """A missing item-language (a language added after import) counts as pending with empty sets."""
    return CandidateSetsRow(item_id, lang, Status.PENDING, "[]", "[]", "[]", None, "", None, None)


#: ``key_string`` memoised: the same lemma recurs in G0 and Gf and across items, and a 10,000-item export asks
#: for hundreds of thousands of identities.
_identity = functools.lru_cache(maxsize=1 << 16)(key_string)


def keys(stored: str) -> frozenset[str]:
    """SPEC §3 identities (case-folded text + tag) of a stored candidate list."""
    return frozenset(_identity(c["text"], c["pos"]) for c in json.loads(stored))


@dataclass(frozen=True)
class ExportedItem:
    item: Item
    languages: dict[str, CandidateSetsRow]


@dataclass
class Selection:
    """Which items and item-languages an export holds, and why the others were left out."""

    languages: tuple[str, ...]
    options: ExportOptions
    items: list[ExportedItem] = field(default_factory=list)
    #: Every done item-language of a non-excluded item, with the item's σ: the §6 scope, whatever the options.
    done: list[tuple[str, CandidateSetsRow]] = field(default_factory=list)
    discarded: list[tuple[Item, CandidateSetsRow, bool]] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEFT_OUT_REASONS, 0))
    copies: dict[tuple[str, str], list[CopySetsRow]] = field(default_factory=dict)
    copy_records: list[CopyRecord] = field(default_factory=list)

    def annotator_ids(self) -> dict[str, str]:
        """Name → exported id: ``A1``, ``A2``… in name order (anonymised), or the names themselves on request."""
        names = sorted({c.annotator for group in self.copies.values() for c in group})
        if self.options.annotator_names:
            return {name: name for name in names}
        return {name: f"A{n}" for n, name in enumerate(names, start=1)}

    def agreement(self) -> dict[str, Any]:
        """Issue 11: agreement between the translators of double-curated item-languages (over every assignment
        whose copies are all finished, like §6 independent of the export options), translators anonymised."""
        report = agreement_report(self.copy_records, self.languages).to_json()
        ids = self.annotator_ids()
        pairs = report["pairs"]
        if not isinstance(pairs, list):
            raise TypeError("agreement_report's pairs are a list")
        for pair in pairs:
            pair["annotators"] = sorted(ids[name] for name in pair["annotators"])
        return report

    def per_language(self) -> dict[str, int]:
        return {lang: sum(lang in e.languages for e in self.items) for lang in self.languages}

    def refinement(self) -> RefinementTable:
        """Table 2 over ``done`` (SPEC §6: every done item-language of a non-excluded item, not only the exported
        ones, so the figures do not change with the export options)."""
        records = (
            RefinementRecord(state.item_id, state.lang, synset, keys(state.initial_good), keys(state.good))
            for synset, state in self.done
        )
        return refinement_table(records, self.languages)

    def counts(self) -> DatasetCounts:
        return dataset_counts(e.item for e in self.items)


def select(data: ProjectData, options: ExportOptions) -> Selection:
    """Apply the export rules (module docstring) to a snapshot; pure, so it is tested without writing files."""
    languages = tuple(sorted(data.settings.languages))
    selection = Selection(languages, options, copies=data.copies, copy_records=data.copy_records)
    for item in data.items:
        if item.excluded:
            selection.left_out["excluded"] += 1
            continue
        held = data.states.get(item.id, {})
        states = {lang: held.get(lang) or empty_row(item.id, lang) for lang in languages}
        selection.done.extend((item.synset, s) for s in states.values() if s.status is Status.DONE)
        discarded = [lang for lang in languages if states[lang].status is Status.DISCARDED]
        kept = {lang: s for lang, s in states.items() if lang not in discarded}
        reason: str | None = None
        if not kept or (discarded and not options.keep_partially_discarded):
            reason = "discarded"
        elif not options.include_incomplete and any(s.status is not Status.DONE for s in kept.values()):
            reason = "incomplete"
        if reason is None:
            selection.items.append(ExportedItem(item, kept))
        else:
            selection.left_out[reason] += 1
        selection.discarded.extend((item, states[lang], reason is None) for lang in discarded)
    return selection


# --- lines -------------------------------------------------------------------------------------------------


#: A ``"pos"`` key with a string value: only such candidates (cross-PoS) are written differently from how they
#: are stored. A ``"`` inside a JSON string is always escaped, so this cannot match inside a candidate's text.
_STRING_POS = re.compile(r'"pos"\s*:\s*"')


def candidates_json(stored: str) -> str:
    """A stored candidate list as it is exported, as JSON text: objects with ``origin``, ``pos``, ``synsets`` and
    ``text`` in canonical §3 form (``[text]_UPOS`` for cross-PoS).

    A list without cross-PoS candidates is already in that form and is passed through as stored: decoding and
    re-encoding every BAD candidate was most of the time of a large export.
    """
    if not _STRING_POS.search(stored):
        return stored
    candidates = json.loads(stored)
    for candidate in candidates:
        if candidate["pos"]:
            candidate["text"] = f"[{candidate['text']}]_{candidate['pos']}"
    return json.dumps(candidates, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def annotators_json(copies: list[CopySetsRow], ids: dict[str, str]) -> str:
    """The ``annotators`` list of a language (issue 11): each translator's own sets and decision, by exported id."""
    entries = []
    for copy in sorted(copies, key=lambda c: ids[c.annotator]):
        head = _compact({"id": ids[copy.annotator], "status": copy.status})
        good, bad = candidates_json(copy.good), candidates_json(copy.bad)
        entries.append(head[:-1] + ',"good":' + good + ',"bad":' + bad + "}")
    return "[" + ",".join(entries) + "]"


def dataset_line(item: Item, languages: dict[str, CandidateSetsRow], annotators: dict[str, str] | None = None) -> str:
    """One ``dataset.jsonl`` line (without the newline): compact JSON, fields in the order of SPEC §7; the
    candidate lists are spliced in as JSON text (see ``candidates_json``). ``annotators`` maps a language to its
    ``annotators`` JSON text (``--with-annotators``)."""
    target = item.target
    head = _compact(
        {
            "id": item.id,
            "sentence": item.sentence,
            "target": {
                "text": target.text,
                "start": target.start,
                "end": target.end,
                "lemma": target.lemma,
                "pos": target.pos,
            },
            "synset": item.synset,
            "gloss": item.gloss,
            "source": item.source,
            **({"domain": item.domain} if item.domain else {}),
            "polysemy_degree": item.polysemy_degree,
            "sense_rank": item.sense_rank,
            "senses": [{"synset": s.synset, "rank": s.rank} for s in sorted(item.senses, key=lambda s: s.rank)],
        }
    )
    entries = []
    for lang in sorted(languages):
        state = languages[lang]
        status = "" if state.status is Status.DONE else ',"status":' + _compact(state.status.value)
        good, bad = candidates_json(state.good), candidates_json(state.bad)
        extra = ',"annotators":' + annotators[lang] if annotators and lang in annotators else ""
        entries.append(_compact(lang) + ':{"good":' + good + ',"bad":' + bad + status + extra + "}")
    return head[:-1] + ',"languages":{' + ",".join(entries) + "}}"


def discarded_line(item: Item, state: CandidateSetsRow, exported: bool) -> dict[str, Any]:
    return {
        "id": item.id,
        "lang": state.lang,
        "reason": state.discard_reason,
        "note": state.discard_note,
        "by": state.status_by,
        "at": state.updated_at,
        "item_exported": exported,
        "lemma": item.target.lemma,
        "pos": item.target.pos,
        "synset": item.synset,
        "sentence": item.sentence,
    }


def json_line(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8")


def json_document(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def stats_json(selection: Selection) -> dict[str, Any]:
    table = selection.refinement()
    return {
        "scope": "refinement: done item-languages of the non-excluded items (SPEC §6); counts: the exported items",
        "options": selection.options.to_json(),
        "refinement": table.to_json(),
        "counts": selection.counts().to_json(),
        "items_per_language": selection.per_language(),
        "agreement": selection.agreement(),
    }


# --- the folder -----------------------------------------------------------------------------------------


def schema_path(name: str = SCHEMA_FILE) -> Path:
    return Path(str(resources.files("annotator").joinpath("schema", name)))


def _snapshot_header(path: Path) -> dict[str, Any]:
    """A snapshot's label/provider/version without building its index (a real snapshot can be large)."""
    with open(path, encoding="utf-8-sig") as handle:
        first = handle.readline()
        try:
            header = json.loads(first)
        except json.JSONDecodeError:
            header = None
        if not (isinstance(header, dict) and header.get("type") == "header"):
            handle.seek(0)
            header = json.load(handle)
    return header if isinstance(header, dict) else {}


def lexicon_info(project: ProjectContext, settings: ProjectSettings) -> dict[str, Any]:
    """Which lexicon the project is configured with (provider and version) for the manifest; never the API key."""
    config = settings.lexicon
    info: dict[str, Any] = {"provider": config.provider, "version": None}
    if config.provider == "snapshot":
        info["snapshot"] = config.snapshot
        if config.snapshot:
            try:
                header = _snapshot_header(project.resolve_path(config.snapshot))
            except (OSError, ValueError) as error:
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
        except (LexiconError, OSError, sqlite3.Error) as error:  # wn not installed, its folder or database unreadable
            info["error"] = f"wordnet not readable: {error}"
        else:
            info.update(version="+".join(specifiers) or None, lexicons=specifiers)
    return info


@dataclass(frozen=True)
class ExportResult:
    path: Path
    files: dict[str, Path]
    manifest: dict[str, Any]

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
        annotators = None
        if ids:
            annotators = {
                lang: annotators_json(selection.copies[(exported.item.id, lang)], ids)
                for lang in exported.languages
                if (exported.item.id, lang) in selection.copies
            }
        yield (dataset_line(exported.item, exported.languages, annotators) + "\n").encode("utf-8")
        progress(done, total, DATASET_FILE)


def collect(project: ProjectContext, options: ExportOptions | None = None) -> Selection:
    """What an export with ``options`` would hold right now (``annotator stats`` and the Dataset page)."""
    return select(load_project_data(project), options or ExportOptions())


def folder_name(created: datetime) -> str:
    return "dataset-" + created.strftime("%Y%m%d-%H%M%SZ")


def default_export_root(project: ProjectContext) -> Path:
    """Where exports go unless told otherwise: the project's own ``exports`` folder, as an absolute path."""
    return (project.data_dir / EXPORTS_FOLDER).resolve()


class NothingToExport(UserError):
    """The selection holds no item: an empty dataset is refused unless asked for, it is almost always a mistake."""


def export_dataset(
    project: ProjectContext,
    root: Path | str | None = None,
    options: ExportOptions | None = None,
    progress: ProgressCallback = no_progress,
    allow_empty: bool = True,
) -> ExportResult:
    """Write a new export folder under ``root`` (default ``DATA/exports``); with ``allow_empty=False`` a selection
    without items raises ``NothingToExport`` and writes nothing."""
    options = options or ExportOptions()
    root = Path(root) if root is not None else default_export_root(project)
    return _export(project, root, options, progress, allow_empty)


def _export(
    project: ProjectContext, root: Path, options: ExportOptions, progress: ProgressCallback, allow_empty: bool
) -> ExportResult:
    data = load_project_data(project)
    selection = select(data, options)
    if not selection.items and not allow_empty:
        left = ", ".join(f"{n} {why}" for why, n in selection.left_out.items() if n) or "the project has no items"
        raise NothingToExport(
            f"Nothing to export: no item matches the selection (left out: {left}). Items are exported when done in "
            "every language; add --include-incomplete to export unfinished ones, or --allow-empty to write an "
            "empty dataset anyway."
        )
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
                    "item_languages": sum(len(e.languages) for e in selection.items),
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
    return ExportResult(final, {name: final / name for name in [*sorted(files), MANIFEST_FILE]}, manifest)


def read_dataset(path: Path | str) -> list[dict[str, Any]]:
    """The lines of a ``dataset.jsonl`` (for tests, the evaluation and the page)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
