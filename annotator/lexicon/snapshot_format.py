"""The lexicon snapshot file format (docs/ARCHITECTURE.md): its records in memory and how they are written.

A snapshot freezes a lexicon in one file so pre-population can run without a key, and so a finished benchmark can
say exactly which lexicon data it was built from. Reading it: ``snapshot_read``; answering from it: ``snapshot``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from annotator.atomic_files import write_text_atomic
from annotator.lexicon.base import LexSense, SynsetRecord

FORMAT = "annotator-lexicon-snapshot"
#: 2: a synset may hold ``edges`` (its relations, ``[[relation, synset id], …]``: what related-sense suggestions
#: follow); a version 1 file (no edges) is still read.
FORMAT_VERSION = 2
#: A synset's relations as kept: (relation, related synset id) pairs, in ``SnapshotLexicon.related``'s order.
Edges = tuple[tuple[str, str], ...]

SnapshotFormat = Literal["json", "jsonl"]


def lemma_lookup_key(lemma: str) -> str:
    """How lemmas are compared: case-insensitive, underscores as spaces, whitespace collapsed."""
    return " ".join(lemma.replace("_", " ").split()).casefold()


@dataclass(frozen=True)
class LemmaEntry:
    """An answer to "which synsets hold (lemma, POS) in lang", in the provider's order."""

    lemma: str
    lang: str
    pos: str
    synsets: tuple[str, ...]

    @property
    def key(self) -> tuple[str, str, str]:
        return (lemma_lookup_key(self.lemma), self.lang, self.pos)


#: A synset as the snapshot keeps it in memory: (id, POS, (language, gloss) pairs, senses as (lemma, language,
#: source, WordNet sense number)). Exact tuples of strings (not even a dict inside: a tuple holding one stays
#: tracked), which Python's cyclic collector does not track, so a large snapshot costs its passes nothing;
#: ``SnapshotLexicon.synset`` builds the records it answers with.
StoredSense = tuple[str, str, str, int | None]
StoredSynset = tuple[str, str, tuple[tuple[str, str], ...], tuple[StoredSense, ...]]


def stored_synset(record: SynsetRecord) -> StoredSynset:
    senses = tuple((s.lemma, s.lang, s.source, s.wordnet_sense_number) for s in record.senses)
    return (record.id, record.pos, tuple(record.glosses.items()), senses)


# --- writing ----------------------------------------------------------------------------------------


def _lemma_record(entry: LemmaEntry) -> dict[str, Any]:
    return {"lemma": entry.lemma, "lang": entry.lang, "pos": entry.pos, "synsets": list(entry.synsets)}


def _sense_record(sense: LexSense) -> dict[str, Any]:
    record: dict[str, Any] = {"lemma": sense.lemma, "lang": sense.lang, "source": sense.source}
    if sense.wordnet_sense_number is not None:
        record["wordnet_sense_number"] = sense.wordnet_sense_number
    return record


def _synset_record(record: SynsetRecord, edges: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    written: dict[str, Any] = {
        "id": record.id,
        "pos": record.pos,
        "glosses": dict(record.glosses),
        "senses": [_sense_record(sense) for sense in record.senses],
    }
    if edges:
        written["edges"] = [[relation, target] for relation, target in edges]
    return written


def _header(label: str, version: str, provider: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "label": label,
        "provider": provider,
        "version": version,
    }


def snapshot_data(
    *,
    label: str,
    version: str,
    provider: str,
    lemmas: Iterable[LemmaEntry],
    synsets: Iterable[SynsetRecord],
    edges: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> dict[str, Any]:
    """The JSON form of a snapshot (also what the fake BabelNet server is fed with in tests); ``edges``: each
    synset's relations, written inside its record."""
    edges = edges or {}
    return {
        **_header(label, version, provider),
        "lemmas": [_lemma_record(entry) for entry in lemmas],
        "synsets": [_synset_record(record, edges.get(record.id, ())) for record in synsets],
    }


def _jsonl_lines(data: Mapping[str, Any]) -> Iterator[str]:
    header = {"type": "header", **{key: value for key, value in data.items() if key not in ("lemmas", "synsets")}}
    yield json.dumps(header, ensure_ascii=False)
    for record in data["lemmas"]:
        yield json.dumps({"type": "lemma", **record}, ensure_ascii=False)
    for record in data["synsets"]:
        yield json.dumps({"type": "synset", **record}, ensure_ascii=False)


def write_snapshot(
    path: str | Path,
    *,
    label: str,
    version: str,
    provider: str = "",
    lemmas: Iterable[LemmaEntry],
    synsets: Iterable[SynsetRecord],
    fmt: SnapshotFormat | None = None,
    edges: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> Path:
    """Write a snapshot atomically (temporary file, then rename); JSONL when ``fmt`` or the extension says so."""
    path = Path(path)
    chosen = fmt or ("jsonl" if path.suffix.lower() == ".jsonl" else "json")
    data = snapshot_data(label=label, version=version, provider=provider, lemmas=lemmas, synsets=synsets, edges=edges)
    if chosen == "jsonl":
        text = "\n".join(_jsonl_lines(data)) + "\n"
    else:
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    write_text_atomic(path, text)
    return path


def header_fields(header: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot header's fields as written, without the lemmas and synsets a JSON document holds beside them."""
    return {key: value for key, value in header.items() if key not in ("lemmas", "synsets")}
