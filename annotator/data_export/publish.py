"""Publish the benchmark: a Hugging Face dataset folder from one export.

``FOLDER/`` holds ``data/<LANG>/test.parquet`` per language and ``data/discarded/test.parquet`` (a configuration
without rows is neither written nor declared: ``datasets`` cannot load an empty file), ``README.md`` (the
dataset card, ``domain/dataset_card.py``), ``croissant.json`` (``croissant.py``), ``LICENSES/`` (each source's
licence: its text or summary, as stated, citation) and ``export/`` (the export every other file was made from: the
same rows, the same manifest id). The licence is checked (``domain/licences.py``) against the sources the exported
rows came from, as recorded when their data was taken (``published_sources``), before anything else is written; the
folder appears whole or not at all (written in a hidden folder, renamed at the end, removed on an error, Ctrl-C,
SIGTERM or SIGHUP), and a refusal leaves an empty ``--out`` folder as it was.

By default only usable rows are published (done, with something in GOOD): ``include_unusable`` publishes the rest,
their ``status`` and ``usable`` columns saying what they are. Nothing published names a path of the server: a
snapshot is named relative to the project's folder, or by its file name.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    NothingToExport,
    export_dataset,
    public_path,
)
from annotator.data_export.parquet_files import (
    DISCARDED_PATH,
    DISCARDED_SCHEMA,
    LANGUAGE_SCHEMA,
    RowFacts,
    language_path,
    write_parquet_files,
)
from annotator.data_export.selection import Selection
from annotator.domain.dataset_card import (
    CardData,
    check_hub_id,
    check_name,
    dataset_card,
    hub_url,
    placeholders,
    rai_fields,
    slug,
)
from annotator.domain.licences import OTHER, SourceLicence, licence_by_id, refusals, suggested, unknown_licence
from annotator.domain.output_text import markdown_escape
from annotator.domain.selection_filters import rule_of
from annotator.domain.settings import ProjectSettings
from annotator.domain.unicode_rules import check_storable
from annotator.errors import UserError
from annotator.lexicon.base import LexiconError
from annotator.lexicon.licences import (
    babelnet_source,
    licence_text,
    snapshot_header,
    snapshot_source,
    wordnet_sources,
)
from annotator.lexicon.sources import allowed_sources
from annotator.progress import ProgressCallback, no_progress
from annotator.store.history import PersonChange

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
    "good_origin": "where each GOOD translation came from: lexicon (pre-populated, in G0, or in B0 and moved to "
    "GOOD by a translator) or translator (typed or accepted by a translator)",
    "bad_origin": "where each BAD translation came from: lexicon (pre-populated) or translator",
    "good_synsets": "the synsets each GOOD translation lexicalises, space-separated",
    "bad_synsets": "the synsets each BAD translation lexicalises, space-separated",
    "status": "done, or the curation status of an unfinished item-language (pending: nobody touched it)",
    "filters_failed": "the selection rules the item broke (flagged, not excluded by a lead): polysemy, "
    "one_per_sense, target_language",
    "usable": "whether the row is done and its GOOD list holds something",
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
    #: How many ``TO FILL`` placeholders the card holds (what the project cannot know: a lead writes them).
    placeholders: int = 0
    hub_id: str | None = None


def nothing_to_publish(left_out: dict[str, int], options: ExportOptions) -> str:
    """Why nothing is published, with the ``publish`` options that would publish something (each one exists)."""
    left = ", ".join(f"{n} {why}" for why, n in left_out.items() if n) or "the project has no items"
    offers = []
    if left_out.get("incomplete") and not options.include_incomplete:
        offers.append(
            "--include-incomplete publishes the usable rows of items not yet done in every language"
            + (" (with --include-unusable, all their rows)" if options.usable_only else "")
        )
    if left_out.get("unusable") and options.usable_only:
        offers.append("--include-unusable publishes rows not done or without GOOD too (their columns say so)")
    if left_out.get("discarded") and not options.keep_partially_discarded:
        offers.append("--keep-partially-discarded keeps an item discarded in one language for its others")
    offer = (" " + "; ".join(offers) + ".") if offers else ""
    return f"Nothing to publish: no row matches the selection (left out: {left}).{offer}"


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
            name = public_path(project, config.snapshot) if config.snapshot else "(none)"
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
    """The sources' licences as Markdown: every value a source's metadata gives is text, escaped (a crafted label
    must not become a heading, a link or an image)."""
    lines = [
        "# Licences of the sources",
        "",
        f"The dataset is published under `{licence}`. It was built from these sources; each licence's text is at "
        "its link, and the licence as the source states it is quoted.",
        "",
    ]
    for source in sources:
        lines += [
            f"## {markdown_escape(source.source)}",
            "",
            f"- What the dataset took from it: {markdown_escape(source.provided)}",
            f"- Licence: {markdown_escape(source.licence.name)} ({_code_span(source.licence.id)})"
            + (f", {markdown_escape(source.licence.url)}" if source.licence.url else ""),
            f"- As the source states it: {markdown_escape(source.stated or 'not stated')}",
        ]
        if source.url:
            lines.append(f"- Home page: {markdown_escape(source.url)}")
        if source.citation:
            lines.append(f"- Cite: {markdown_escape(source.citation)}")
        lines.append("")
    return "\n".join(lines)


def _code_span(text: str) -> str:
    return "`" + " ".join(text.replace("`", "'").split()) + "`"


def _write_licences(folder: Path, sources: list[SourceLicence], licence: str) -> None:
    """``LICENSES/``: the README naming each source, and one text per licence: in full where the licence asks for
    its notice in every copy (WordNet's, COW's: as the source ships it), a summary with the legal code's URL for
    Creative Commons, the name and URL otherwise."""
    folder.mkdir()
    write_bytes_synced(folder / "README.md", _licences_readme(sources, licence).encode("utf-8"))
    shipped: dict[str, str] = {}
    for source in sources:
        if source.licence.known and source.notice:
            shipped.setdefault(source.licence.id, source.notice)
    known = {s.licence.id: s.licence for s in sources if s.licence.known}
    target = licence_by_id(licence)
    if target is not None:
        known.setdefault(target.id, target)
    for entry in sorted(known.values(), key=lambda x: x.id):
        write_bytes_synced(folder / f"{entry.id}.txt", licence_text(entry, shipped.get(entry.id, "")).encode("utf-8"))


def _check_out(out: Path) -> None:
    """Refuse an ``out`` that exists as anything but an empty folder; an empty one is left as it is (a refusal
    later changes nothing) and replaced by the finished folder in one rename."""
    if (out.exists() or out.is_symlink()) and (not out.is_dir() or any(out.iterdir())):
        raise PublishFolderTaken(f"{out} already exists and is not empty: choose a new folder for --out.")


def publish(
    project: ProjectContext,
    out: Path | str,
    *,
    name: str | None = None,
    licence: str | None = None,
    include_incomplete: bool = False,
    progress: ProgressCallback = no_progress,
    include_unusable: bool = False,
    keep_partially_discarded: bool = False,
    hub_id: str | None = None,
    authors: tuple[str, ...] = (),
) -> PublishResult:
    """Write the dataset folder ``out`` (refused when it exists with files in it, when ``licence`` is not one the
    sources allow, or when a name holds a control character)."""
    if name is not None:  # typed in the browser: a lone surrogate cannot be written, a NUL has no place in a card
        check_storable("dataset name", name)
    for author in authors:
        check_storable("author", author)
        check_name("author", author)
    if hub_id is not None:
        check_hub_id(hub_id)
    out = Path(out).resolve()
    _check_out(out)
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
    settings = ProjectSettings.from_json(raw) if raw else ProjectSettings()
    title = name if name is not None else settings.name
    check_name("dataset name" if name is not None else "project's name (give another with --name)", title)
    if licence is not None and licence.strip().lower() != OTHER:
        refused = refusals(licence, [])  # an id publish does not know: refused before the export runs
        if refused:
            raise LicenceRefused(f"Cannot publish under '{licence}': " + " ".join(refused))
    current, allowed = _current_sources(project, settings)
    options = ExportOptions(
        include_incomplete=include_incomplete,
        keep_partially_discarded=keep_partially_discarded,
        usable_only=not include_unusable,
    )
    card = _Card(title, tuple(authors), hub_id)
    chosen: list[str] = []
    sources: list[SourceLicence] = []
    try:
        with (folder := AtomicFolder(out.parent, out.name, exact=True)) as tmp:
            rows, manifest_id, to_fill = _fill(
                project, tmp, options, card, licence, current, allowed, progress, chosen, sources
            )
    except NothingToExport as nothing:
        raise NothingToExport(nothing_to_publish(nothing.left_out, options), nothing.left_out) from None
    except OSError as error:
        raise cannot_write(out, error) from error
    return PublishResult(folder.final, chosen[0], rows, manifest_id, sources, to_fill, hub_id)


@dataclass(frozen=True)
class _Card:
    """What the lead says about the dataset: its name, its authors, its Hub id."""

    name: str
    authors: tuple[str, ...]
    hub_id: str | None


def _current_sources(
    project: ProjectContext, settings: ProjectSettings
) -> tuple[list[SourceLicence] | None, list[str]]:
    """The lexicon in use now (only for item-languages pre-populated before their sources were recorded) and the
    allowed sources per language as the card states them."""
    try:
        return project_sources(project, settings)
    except LexiconError:
        lines = [allowed_sources(lang, settings.allowed_sources, None).describe() for lang in settings.languages]
        return None, lines


def published_sources(
    project: ProjectContext, selection: Selection, current: list[SourceLicence] | None
) -> list[SourceLicence]:
    """The sources the published rows came from, as recorded when their data was taken: each imported corpus of a
    published item's sentence, each lexicon of a published item-language's candidates and senses. An item imported
    before licences were recorded counts as a corpus of unknown licence; an item-language pre-populated before its
    sources were recorded falls back on the lexicon in use now (``current``), named as such."""
    pairs = [(exported.item.id, state.lang) for exported in selection.items for state in exported.states]
    pairs += [(discarded.item.id, discarded.state.lang) for discarded in selection.discarded]
    with project.db.read() as conn:
        imports = project.repo.item_imports(conn)
        by_pair = project.repo.item_language_sources(conn)
        records = project.repo.sources_by_key(conn)
    corpus_keys = sorted({f"corpus:{imports.get(item_id, 0)}" for item_id, _lang in pairs}, key=_natural)
    lexicon_keys = sorted({key for pair in pairs for key in by_pair.get(pair, ())})
    unrecorded_items = sorted(
        {item_id for item_id, _lang in pairs if f"corpus:{imports.get(item_id, 0)}" not in records}
    )
    found: list[SourceLicence] = [records[key].source_licence() for key in corpus_keys if key in records]
    if unrecorded_items:
        found.append(
            SourceLicence(
                f"the sentences of {len(unrecorded_items)} item(s) imported before their licence was recorded",
                "English sentences, their targets and senses",
                unknown_licence("not recorded (re-import the file with --corpus-license to record it)"),
                "not recorded",
            )
        )
    missing = [key for key in lexicon_keys if key not in records]
    found += [records[key].source_licence() for key in lexicon_keys if key in records]
    unrecorded_pairs = sum(1 for pair in pairs if pair not in by_pair)
    if unrecorded_pairs or missing:
        for source in current or []:
            if source.source not in {s.source for s in found}:
                note = f" ({unrecorded_pairs} item-language(s) pre-populated before their sources were recorded)"
                found.append(replace(source, provided=source.provided + note))
        if current is None:
            found.append(
                SourceLicence(
                    "the lexicon of item-languages pre-populated before their sources were recorded",
                    "candidates",
                    unknown_licence("not recorded"),
                    "not recorded",
                )
            )
    return found


def _natural(key: str) -> tuple[str, int]:
    head, _sep, number = key.rpartition(":")
    return (head, int(number)) if number.isdigit() else (key, 0)


def _fill(
    project: ProjectContext,
    tmp: Path,
    options: ExportOptions,
    card: _Card,
    requested: str | None,
    current: list[SourceLicence] | None,
    allowed: list[str],
    progress: ProgressCallback,
    chosen: list[str],
    sources: list[SourceLicence],
) -> tuple[dict[str, int], str, int]:
    """Write everything into the temporary folder ``tmp``: the export first, then (once the licence is checked
    against the sources the exported rows came from) what is made from it; ``chosen`` and ``sources`` receive the
    licence and the sources."""

    def export_progress(done: int, total: int, message: str) -> None:
        progress(done, 2 * total + 1, "export")

    result = export_dataset(
        project, tmp, options, progress=export_progress, allow_empty=False,
        empty_hint=" Add --include-incomplete to publish unfinished ones too (an empty dataset is never published).",
    )  # fmt: skip
    export = result.path.rename(tmp / EXPORT_FOLDER)
    if result.selection is not None:
        sources += published_sources(project, result.selection, current)
    licence = choose_licence(requested, sources)
    chosen.append(licence)
    manifest = result.manifest
    manifest_id = "sha256:" + _sha256(export / MANIFEST_FILE)
    languages = list(manifest["languages"])
    total = 2 * result.items + 1
    selection = result.selection
    failed = {
        exported.item.id: tuple(dict.fromkeys(rule_of(f) for f in exported.item.filter_failures))
        for exported in (selection.items if selection is not None else ())
        if exported.item.filter_failures
    }
    with project.db.read() as conn:
        changed = set(project.repo.item_languages_changed_by_people(conn))
        people = project.repo.changes_by_people(conn)
    facts: dict[str, RowFacts] = {}
    rows = write_parquet_files(
        tmp,
        export / DATASET_FILE,
        export / DISCARDED_FILE,
        languages,
        progress=lambda done: progress(result.items + done, total, "parquet"),
        filters_failed=failed,
        changed_by_people=changed,
        facts=facts,
    )
    del changed
    published = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    configs = [(lang, language_path(lang), LANGUAGE_SCHEMA, f"{lang} rows") for lang in languages]
    configs.append(("discarded", DISCARDED_PATH, DISCARDED_SCHEMA, "discarded item-languages"))
    files = []
    for config, path, arrow_schema, description in configs:
        if rows[config]:
            files.append(ConfigFile(config, path, _sha256(tmp / path), arrow_schema, rows[config], description))
        else:  # a file without rows cannot be loaded by ``datasets``: neither written nor declared
            (tmp / path).unlink()
            (tmp / path).parent.rmdir()
    target = licence_by_id(licence)
    stats = json.loads((export / STATS_FILE).read_text(encoding="utf-8"))
    data = _card_data(
        result,
        manifest,
        stats,
        card,
        licence,
        sources,
        allowed,
        manifest_id,
        published,
        rows,
        _filters_run(project),
        {lang: tally.to_json() for lang, tally in facts.items()},
        people,
    )
    url = hub_url(card.hub_id)
    document = croissant_document(
        name=slug(card.name),
        description=f"{card.name}: a DiBiMT-style benchmark of lexical ambiguity in machine translation "
        f"(English into {', '.join(lang for lang in languages if rows[lang])}). Export manifest {manifest_id}.",
        licence_url=target.url if target else "LICENSES/README.md",
        version="1.0.0",
        date_published=published[:10],
        cite_as=_cite_as(card, published, manifest_id),
        url=url,
        files=files,
        field_descriptions=FIELD_DESCRIPTIONS,
        creators=card.authors,
        publisher=card.hub_id.split("/")[0] if card.hub_id else None,
        rai=rai_fields(data),
    )
    write_bytes_synced(tmp / CROISSANT_FILE, (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode())
    text = dataset_card(data)
    write_bytes_synced(tmp / CARD_FILE, text.encode("utf-8"))
    _write_licences(tmp / LICENSES_FOLDER, sources, licence)
    progress(total, total, "done")
    return rows, manifest_id, placeholders(text)


def _cite_as(card: _Card, published: str, manifest_id: str) -> str:
    authors = ", ".join(card.authors) or "TO FILL: the authors"
    where = f" {hub_url(card.hub_id)}" if card.hub_id else ""
    return f"{authors}. {card.name} ({published[:4]}).{where} Export manifest {manifest_id}."


def _filters_run(project: ProjectContext) -> bool:
    """Whether the selection filters ever ran (their audit row), so the card does not read "0 flagged" as checked."""
    with project.db.read() as conn:
        return project.repo.has_audit_action(conn, "filters")


def _card_data(
    result: Any,
    manifest: dict[str, Any],
    stats: dict[str, Any],
    card: _Card,
    licence: str,
    sources: list[SourceLicence],
    allowed: list[str],
    manifest_id: str,
    published: str,
    rows: dict[str, int],
    filters_run: bool,
    facts: dict[str, dict[str, Any]],
    people: list[PersonChange],
) -> CardData:
    selection = result.selection
    discards: dict[str, Counter[str]] = {}
    item_sources: Counter[str] = Counter()
    double_curated = 0
    unusable: dict[str, dict[str, int]] = {}
    coverage: dict[str, dict[str, int]] = {}
    if selection is not None:
        for _item, state, _exported in selection.discarded:
            discards.setdefault(state.lang, Counter())[str(state.discard_reason or "other")] += 1
        item_sources = Counter(exported.item.source for exported in selection.items)
        double_curated = len(selection.copies)
        unusable = {lang: dict(sorted(reasons.items())) for lang, reasons in selection.unusable.items()}
        coverage = {lang: dict(counts) for lang, counts in selection.coverage.items()}
    annotators: dict[str, Counter[str]] = {}
    for change in people:
        annotators.setdefault(change.lang, Counter())[change.role] += 1
    target = licence_by_id(licence)
    project_items = result.project_items
    return CardData(
        filters_run=filters_run,
        name=card.name,
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
        facts=facts,
        unusable=unusable,
        coverage=coverage,
        annotators={lang: dict(roles) for lang, roles in annotators.items()},
        people=len({change.person for change in people}),
        hub_id=card.hub_id,
        authors=card.authors,
    )


__all__ = [
    "OTHER",
    "LicenceRefused",
    "PublishFolderTaken",
    "PublishResult",
    "choose_licence",
    "nothing_to_publish",
    "publish",
]
