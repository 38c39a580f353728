"""Freezing the BabelNet cache as a lexicon snapshot: what the cache holds, written as a snapshot file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from annotator.lexicon.babelnet import CACHE_VERSION_META
from annotator.lexicon.babelnet_wire import (
    EDGES_ENDPOINT,
    SYNSET_ENDPOINT,
    SYNSET_IDS_ENDPOINT,
    build_synset_record,
    parse_edges,
    parse_synset_ids,
)
from annotator.lexicon.base import LexiconError, SynsetRecord
from annotator.lexicon.http_cache import HttpCache
from annotator.lexicon.snapshot_format import Edges, LemmaEntry, SnapshotFormat, write_snapshot


@dataclass(frozen=True)
class CacheExport:
    """What an export wrote, and which lemma answers it had to leave out (synsets never fetched)."""

    path: Path
    lemma_count: int
    synset_count: int
    skipped_lemmas: tuple[str, ...] = field(default=())


def _cached_lemma_entries(cache: HttpCache) -> list[LemmaEntry]:
    entries: dict[tuple[str, str, str], LemmaEntry] = {}
    for cached in cache.entries(SYNSET_IDS_ENDPOINT):
        lemma, lang, pos = cached.param("lemma"), cached.param("searchLang"), cached.param("pos")
        if not (lemma and lang and pos) or len(cached.param_values("searchLang")) != 1:
            continue  # not a request this client makes; nothing to freeze it as
        ids = tuple(parse_synset_ids(json.loads(cached.body), pos))
        entry = LemmaEntry(" ".join(lemma.replace("_", " ").split()), lang.upper(), pos.upper(), ids)
        entries.setdefault(entry.key, entry)
    return list(entries.values())


def _cached_synsets(cache: HttpCache) -> list[SynsetRecord]:
    bodies: dict[str, list[Any]] = {}
    for cached in cache.entries(SYNSET_ENDPOINT):
        synset_id = cached.param("id")
        if synset_id:
            bodies.setdefault(synset_id, []).append(json.loads(cached.body))
    return [build_synset_record(synset_id, found) for synset_id, found in sorted(bodies.items())]


def _cached_edges(cache: HttpCache) -> dict[str, Edges]:
    """The relations the cache holds (getOutgoingEdges answers), per synset."""
    found: dict[str, Edges] = {}
    for cached in cache.entries(EDGES_ENDPOINT):
        synset_id = cached.param("id")
        if synset_id:
            found[synset_id] = tuple(parse_edges(json.loads(cached.body), synset_id))
    return found


def export_cache_as_snapshot(
    cache: HttpCache,
    path: str | Path,
    label: str,
    *,
    version: str | None = None,
    provider: str = "BabelNet HTTP API (cache export)",
    allow_incomplete: bool = False,
    fmt: SnapshotFormat | None = None,
) -> CacheExport:
    """Freeze everything the BabelNet cache holds into a snapshot file that ``SnapshotLexicon`` loads.

    getSynsetIds answers become lemma entries; the per-language-chunk getSynset answers of a synset are
    merged into one synset; a synset's getOutgoingEdges answer becomes its ``edges``. A lemma whose synsets were
    not all fetched (a stopped run) would give an incomplete Ω(λ), so the export refuses unless
    ``allow_incomplete``, which leaves such lemmas out.
    """
    synsets = _cached_synsets(cache)
    known = {record.id for record in synsets}
    lemmas: list[LemmaEntry] = []
    skipped: list[str] = []
    for entry in sorted(_cached_lemma_entries(cache), key=lambda item: (item.lang, item.key, item.pos)):
        if all(synset_id in known for synset_id in entry.synsets):
            lemmas.append(entry)
        else:
            skipped.append(f"{entry.lemma} ({entry.lang}, {entry.pos})")
    if skipped and not allow_incomplete:
        shown = ", ".join(skipped[:10]) + (f" and {len(skipped) - 10} more" if len(skipped) > 10 else "")
        raise LexiconError(
            f"The BabelNet cache {cache.path} lacks synsets for {len(skipped)} lemma(s): {shown}. Finish the "
            "pre-population run first, or export with allow_incomplete to leave those lemmas out."
        )
    if version is None:
        api = cache.get_meta(CACHE_VERSION_META) or "unknown"
        version = f"babelnet-{api}-cache-{datetime.now(UTC):%Y%m%d}"
    edges = {synset_id: links for synset_id, links in _cached_edges(cache).items() if synset_id in known}
    written = write_snapshot(
        path, label=label, version=version, provider=provider, lemmas=lemmas, synsets=synsets, fmt=fmt, edges=edges
    )
    return CacheExport(path=written, lemma_count=len(lemmas), synset_count=len(synsets), skipped_lemmas=tuple(skipped))
