"""Publish the benchmark (issue 35): a Hugging Face dataset folder from one export.

``FOLDER/`` holds ``data/<LANG>/test.parquet`` per language and ``data/discarded/test.parquet``, ``README.md`` (the
dataset card, ``domain/dataset_card.py``), ``croissant.json`` (``croissant.py``), ``LICENSES/`` (each source's
licence: link, stated text, citation) and ``export/`` (the export every other file was made from: the same rows, the
same manifest id). The licence is checked against the sources' before anything is written
(``domain/licences.py``); the folder appears whole or not at all (written in a hidden folder, renamed at the end).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator import __version__
from annotator.atomic_files import AtomicFolder, cannot_write, write_bytes_synced
from annotator.context import ProjectContext
from annotator.data_export.croissant import ConfigFile, croissant_document
from annotator.data_export.dataset import (
    DATASET_FILE,
    DISCARDED_FILE,
    MANIFEST_FILE,
    STATS_FILE,
    ExportOptions,
    export_dataset,
)
from annotator.data_export.parquet_files import (
    DISCARDED_PATH,
    DISCARDED_SCHEMA,
    LANGUAGE_SCHEMA,
    language_path,
    write_parquet_files,
)
from annotator.domain.dataset_card import CardData, dataset_card, slug
from annotator.domain.licences import OTHER, SourceLicence, licence_by_id, refusals, suggested
from annotator.domain.settings import ProjectSettings
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.lexicon.base import LexiconError
from annotator.lexicon.licences import babelnet_source, snapshot_header, snapshot_source, wordnet_sources
from annotator.lexicon.sources import allowed_sources
from annotator.progress import ProgressCallback, no_progress
from annotator.store import schema

CARD_FILE = "README.md"
CROISSANT_FILE = "croissant.json"
LICENSES_FOLDER = "LICENSES"
EXPORT_FOLDER = "export"

#: What each column of a language configuration holds (the card, Croissant's field descriptions).
FIELD_DESCRIPTIONS = {
    "id": "item id",
    "lang": "target language of this row",
    "sentence": "the English sentence",
    "target": "the target word as it appears in the sentence",
    "target_start": "character offset where the target starts",
    "target_end": "character offset where the target ends",
    "lemma": "lemma of the target word (λ)",
    "pos": "part of speech of the target (UPOS)",
    "synset": "the synset σ the target means in the sentence",
    "gloss": "σ's English gloss",
    "source": "the corpus or file the sentence came from",
    "domain": "the text's domain, when the source gives one",
    "polysemy_degree": "δ(λ): number of senses of λ",
    "sense_rank": "μ(σ): rank of σ among the senses of λ",
    "senses": "Ω(λ): the synsets of λ in rank order",
    "sense_ranks": "the rank of each synset in senses",
    "good": "GOOD translations of λ in this language (canonical form; cross-POS as [text]_POS)",
    "bad": "BAD translations of λ in this language (they render another sense)",
    "good_origin": "where each GOOD translation came from: lexicon or translator",
    "bad_origin": "where each BAD translation came from: lexicon or translator",
    "good_synsets": "the synsets each GOOD translation lexicalises, space-separated",
    "bad_synsets": "the synsets each BAD translation lexicalises, space-separated",
    "status": "done, or the curation status of an unfinished item-language",
    "reason": "why the item-language was discarded",
    "note": "the translator's note on the discard",
    "at": "when it was discarded (UTC)",
    "item_exported": "whether the item is published in its other languages",
}


class LicenceRefused(UserError):
    """The requested licence cannot hold what the sources' licences allow; nothing was written."""


class PublishFolderTaken(UserError):
    """The output folder exists and is not empty: publishing never mixes its files with others."""


@dataclass(frozen=True)
class PublishResult:
    path: Path
    licence: str
    rows: dict[str, int]
    manifest_id: str
    sources: list[SourceLicence]


def _wordnet_sources(project: ProjectContext, settings: ProjectSettings) -> tuple[list[SourceLicence], dict[str, Any]]:
    from annotator.lexicon.wordnet import project_language
    from annotator.lexicon.wordnet_store import lexicon_metadata

    folder = project.wordnet_folder
    if not (folder / "wn.db").exists():
        raise LexiconError(f"No wordnet in {folder}: the project's lexicon sources cannot be named.")
    lexicons = lexicon_metadata(folder)  # the current file: another run may have replaced it since the app started
    found = wordnet_sources(lexicons, settings.languages, settings)
    defaults: dict[str, set[str]] = {}
    for lexicon in lexicons:
        defaults.setdefault(project_language(lexicon.language), set()).add(lexicon.id.upper())
    return found, {lang: frozenset(ids) for lang, ids in defaults.items()}


def project_sources(project: ProjectContext, settings: ProjectSettings) -> tuple[list[SourceLicence], list[str]]:
    """The lexicon sources the project's data came from with their licences, and the allowed sources per language
    as the card states them."""
    config = settings.lexicon
    defaults: dict[str, Any] | None = None
    try:
        if config.provider == "babelnet":
            from annotator.lexicon.babelnet import api_version

            sources = [babelnet_source(api_version(config.base_url))]
        elif config.provider == "wordnet":
            sources, defaults = _wordnet_sources(project, settings)
        else:
            name = config.snapshot or "(none)"
            header = snapshot_header(project.resolve_path(config.snapshot)) if config.snapshot else {}
            sources = [snapshot_source(header, name)]
    except (OSError, ValueError, sqlite3.Error) as error:
        raise LexiconError(f"The project's lexicon cannot be read to name its licences: {error}") from error
    lines = [allowed_sources(lang, settings.allowed_sources, defaults).describe() for lang in settings.languages]
    return sources, lines


def choose_licence(requested: str | None, sources: list[SourceLicence]) -> str:
    """The licence to publish under: the requested one when the sources allow it (else ``LicenceRefused`` saying
    why), or the most open one they allow."""
    if requested is None:
        return suggested(sources)
    reasons = refusals(requested, sources)
    if reasons:
        raise LicenceRefused(
            f"Cannot publish under '{requested}': "
            + " ".join(reasons)
            + f" The sources allow '{suggested(sources)}'; the licence 'other' publishes under the sources' own "
            "licences, listed in the card and in LICENSES/."
        )
    return requested.strip().lower()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _licences_readme(sources: list[SourceLicence], licence: str) -> str:
    lines = [
        "# Licences of the sources",
        "",
        f"The dataset is published under `{licence}`. It was built from these sources; each licence's text is at "
        "its link, and the licence as the source states it is quoted.",
        "",
    ]
    for source in sources:
        lines += [
            f"## {source.source}",
            "",
            f"- What the dataset took from it: {source.provided}",
            f"- Licence: {source.licence.name} (`{source.licence.id}`)"
            + (f", {source.licence.url}" if source.licence.url else ""),
            f"- As the source states it: {source.stated or 'not stated'}",
        ]
        if source.url:
            lines.append(f"- Home page: {source.url}")
        if source.citation:
            lines.append(f"- Cite: {source.citation}")
        lines.append("")
    return "\n".join(lines)


def _write_licences(folder: Path, sources: list[SourceLicence], licence: str) -> None:
    folder.mkdir()
    write_bytes_synced(folder / "README.md", _licences_readme(sources, licence).encode("utf-8"))
    for known in sorted({s.licence.id: s.licence for s in sources if s.licence.known}.values(), key=lambda x: x.id):
        text = f"{known.name}\n\nFull text: {known.url}\n"
        write_bytes_synced(folder / f"{known.id}.txt", text.encode("utf-8"))


def _check_out(out: Path) -> None:
    if out.exists():
        if not out.is_dir() or any(out.iterdir()):
            raise PublishFolderTaken(f"{out} already exists and is not empty: choose a new folder for --out.")
        out.rmdir()


def publish(
    project: ProjectContext,
    out: Path | str,
    *,
    name: str | None = None,
    licence: str | None = None,
    include_incomplete: bool = False,
    progress: ProgressCallback = no_progress,
) -> PublishResult:
    """Write the dataset folder ``out`` (refused when it exists with files in it, or when ``licence`` is not one the
    sources allow)."""
    if name is not None:  # typed in the browser: a lone surrogate cannot be written, a NUL has no place in a card
        check_storable("dataset name", name)
    out = Path(out).resolve()
    _check_out(out)
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
    settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
    sources, allowed = project_sources(project, settings)
    chosen = choose_licence(licence, sources)
    options = ExportOptions(include_incomplete=include_incomplete)
    try:
        with (folder := AtomicFolder(out.parent, out.name)) as tmp:
            rows, manifest_id = _fill(project, tmp, options, name or settings.name, chosen, sources, allowed, progress)
    except OSError as error:
        raise cannot_write(out, error) from error
    return PublishResult(folder.final, chosen, rows, manifest_id, sources)


def _fill(
    project: ProjectContext,
    tmp: Path,
    options: ExportOptions,
    name: str,
    licence: str,
    sources: list[SourceLicence],
    allowed: list[str],
    progress: ProgressCallback,
) -> tuple[dict[str, int], str]:
    """Write everything into the temporary folder ``tmp``: the export first, then what is made from it."""
    holder: dict[str, int] = {"total": 0}

    def export_progress(done: int, total: int, message: str) -> None:
        holder["total"] = total
        progress(done, 2 * total + 1, "export")

    result = export_dataset(
        project, tmp, options, progress=export_progress, allow_empty=False,
        empty_hint=" Add --include-incomplete to publish unfinished ones too (an empty dataset is never published).",
    )  # fmt: skip
    export = result.path.rename(tmp / EXPORT_FOLDER)
    manifest = result.manifest
    manifest_id = "sha256:" + _sha256(export / MANIFEST_FILE)
    languages = list(manifest["languages"])
    total = 2 * result.items + 1
    rows = write_parquet_files(
        tmp,
        export / DATASET_FILE,
        export / DISCARDED_FILE,
        languages,
        progress=lambda done: progress(result.items + done, total, "parquet"),
    )
    published = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    files = [
        ConfigFile(
            lang, language_path(lang), _sha256(tmp / language_path(lang)), LANGUAGE_SCHEMA, rows[lang], f"{lang} rows"
        )
        for lang in languages
    ]
    files.append(
        ConfigFile(
            "discarded",
            DISCARDED_PATH,
            _sha256(tmp / DISCARDED_PATH),
            DISCARDED_SCHEMA,
            rows["discarded"],
            "discarded item-languages",
        )
    )
    target = licence_by_id(licence)
    stats = json.loads((export / STATS_FILE).read_text(encoding="utf-8"))
    card = _card_data(
        result, manifest, stats, name, licence, sources, allowed, manifest_id, published, rows, _filters_run(project)
    )
    document = croissant_document(
        name=slug(name),
        description=f"{name}: a DiBiMT-style benchmark of lexical ambiguity in machine translation "
        f"(English into {', '.join(languages)}). Export manifest {manifest_id}.",
        licence_url=target.url if target else "LICENSES/README.md",
        version="1.0.0",
        date_published=published[:10],
        cite_as=f"{name} ({published[:4]}), export manifest {manifest_id}",
        url=f"https://huggingface.co/datasets/{slug(name)}",
        files=files,
        field_descriptions=FIELD_DESCRIPTIONS,
    )
    write_bytes_synced(tmp / CROISSANT_FILE, (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode())
    write_bytes_synced(tmp / CARD_FILE, dataset_card(card).encode("utf-8"))
    _write_licences(tmp / LICENSES_FOLDER, sources, licence)
    progress(total, total, "done")
    return rows, manifest_id


def _filters_run(project: ProjectContext) -> bool:
    """Whether the selection filters ever ran (their audit row), so the card does not read "0 flagged" as checked."""
    with project.db.read() as conn:
        found = conn.execute(select(schema.audit.c.id).where(schema.audit.c.action == "filters").limit(1)).first()
    return found is not None


def _card_data(
    result: Any,
    manifest: dict[str, Any],
    stats: dict[str, Any],
    name: str,
    licence: str,
    sources: list[SourceLicence],
    allowed: list[str],
    manifest_id: str,
    published: str,
    rows: dict[str, int],
    filters_run: bool,
) -> CardData:
    selection = result.selection
    discards: dict[str, Counter[str]] = {}
    item_sources: Counter[str] = Counter()
    double_curated = 0
    if selection is not None:
        for _item, state, _exported in selection.discarded:
            discards.setdefault(state.lang, Counter())[str(state.discard_reason or "other")] += 1
        item_sources = Counter(exported.item.source for exported in selection.items)
        double_curated = len(selection.copies)
    target = licence_by_id(licence)
    project_items = result.project_items
    return CardData(
        filters_run=filters_run,
        name=name,
        licence=licence,
        licence_name=target.name if target else "the sources' licences",
        licence_url=target.url if target else "LICENSES/README.md",
        languages=tuple(manifest["languages"]),
        rows=rows,
        items=int(manifest["counts"]["items"]),
        table1=stats["counts"],
        refinement=stats["refinement"],
        agreement=stats["agreement"],
        discards={lang: dict(counts) for lang, counts in discards.items()},
        left_out=manifest["counts"]["left_out"],
        options=manifest["options"],
        lexicon=manifest["lexicon"],
        allowed_sources=allowed,
        filters=project_items.get("flagged", {}),
        items_total=int(project_items.get("total", 0)),
        excluded=int(project_items.get("excluded", 0)),
        double_curated=double_curated,
        item_sources=dict(item_sources),
        sources=sources,
        tool_version=__version__,
        manifest_id=manifest_id,
        exported_at=str(manifest["created_at"]),
        published_at=published,
    )


__all__ = ["OTHER", "LicenceRefused", "PublishFolderTaken", "PublishResult", "choose_licence", "publish"]
