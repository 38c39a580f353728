"""The Parquet files of a published dataset (issue 35): ``data/<LANG>/test.parquet``, ``data/discarded/test.parquet``.

One row per item-language, read from the export's ``dataset.jsonl`` line by line (in its order, sorted by id) and
written in batches, so memory stays bounded by a batch per language whatever the export's size. A row holds what the
JSONL line holds for that language: the candidate lists as lists of canonical strings (``good``, ``bad``), with
their origins and synsets in parallel lists (synset ids never hold spaces, so each candidate's synsets are one
space-separated string), and ``senses`` / ``sense_ranks`` as parallel lists; the JSONL line can be rebuilt from it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

#: A language's rows; ``status`` is ``done`` unless the export included unfinished items.
LANGUAGE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("lang", pa.string()),
        ("sentence", pa.string()),
        ("target", pa.string()),
        ("target_start", pa.int64()),
        ("target_end", pa.int64()),
        ("lemma", pa.string()),
        ("pos", pa.string()),
        ("synset", pa.string()),
        ("gloss", pa.string()),
        ("source", pa.string()),
        ("domain", pa.string()),
        ("polysemy_degree", pa.int64()),
        ("sense_rank", pa.int64()),
        ("senses", pa.list_(pa.string())),
        ("sense_ranks", pa.list_(pa.int64())),
        ("good", pa.list_(pa.string())),
        ("bad", pa.list_(pa.string())),
        ("good_origin", pa.list_(pa.string())),
        ("bad_origin", pa.list_(pa.string())),
        ("good_synsets", pa.list_(pa.string())),
        ("bad_synsets", pa.list_(pa.string())),
        ("status", pa.string()),
    ]
)

#: ``discarded.jsonl`` without ``by``: who discarded an item is the team's business, not the public's.
DISCARDED_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("lang", pa.string()),
        ("reason", pa.string()),
        ("note", pa.string()),
        ("at", pa.string()),
        ("item_exported", pa.bool_()),
        ("lemma", pa.string()),
        ("pos", pa.string()),
        ("synset", pa.string()),
        ("sentence", pa.string()),
    ]
)

#: Rows held per language before a batch is written (bounds memory; large enough for Parquet row groups).
BATCH_ROWS = 5_000


def language_row(line: dict[str, Any], lang: str) -> dict[str, Any]:
    """The row of ``lang`` in one ``dataset.jsonl`` line."""
    target = line["target"]
    entry = line["languages"][lang]
    good, bad = entry["good"], entry["bad"]
    return {
        "id": line["id"],
        "lang": lang,
        "sentence": line["sentence"],
        "target": target["text"],
        "target_start": target["start"],
        "target_end": target["end"],
        "lemma": target["lemma"],
        "pos": target["pos"],
        "synset": line["synset"],
        "gloss": line["gloss"],
        "source": line["source"],
        "domain": line.get("domain"),
        "polysemy_degree": line["polysemy_degree"],
        "sense_rank": line["sense_rank"],
        "senses": [sense["synset"] for sense in line["senses"]],
        "sense_ranks": [sense["rank"] for sense in line["senses"]],
        "good": [c["text"] for c in good],
        "bad": [c["text"] for c in bad],
        "good_origin": [c["origin"] for c in good],
        "bad_origin": [c["origin"] for c in bad],
        "good_synsets": [" ".join(c["synsets"]) for c in good],
        "bad_synsets": [" ".join(c["synsets"]) for c in bad],
        "status": entry.get("status", "done"),
    }


def discarded_row(line: dict[str, Any]) -> dict[str, Any]:
    return {name: line.get(name) for name in DISCARDED_SCHEMA.names}


class _BatchedWriter:
    """One Parquet file written a batch at a time; rows counted for the card and the Croissant metadata."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        self.rows: list[dict[str, Any]] = []
        self.count = 0
        self._writer = pq.ParquetWriter(path, schema)

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self._writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.count += len(self.rows)
            self.rows = []

    def close(self) -> None:
        self.flush()
        if self.count == 0:
            self._writer.write_table(self.schema.empty_table())
        self._writer.close()


def language_path(lang: str) -> str:
    return f"data/{lang}/test.parquet"


DISCARDED_PATH = "data/discarded/test.parquet"


def _lines(path: Path) -> Iterable[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def write_parquet_files(
    folder: Path,
    dataset_jsonl: Path,
    discarded_jsonl: Path,
    languages: Iterable[str],
    progress: Callable[[int], None] = lambda done: None,
) -> dict[str, int]:
    """Write every configuration's file under ``folder``; returns the rows per configuration (``discarded`` too).

    ``progress(n)`` is told the number of ``dataset.jsonl`` lines read so far."""
    writers = {lang: _BatchedWriter(folder / language_path(lang), LANGUAGE_SCHEMA) for lang in languages}
    discarded = _BatchedWriter(folder / DISCARDED_PATH, DISCARDED_SCHEMA)
    try:
        for done, line in enumerate(_lines(dataset_jsonl), start=1):
            for lang in line["languages"]:
                writers[lang].add(language_row(line, lang))
            if done % 500 == 0:
                progress(done)
        for line in _lines(discarded_jsonl):
            discarded.add(discarded_row(line))
    finally:
        for writer in [*writers.values(), discarded]:
            writer.close()
    return {**{lang: writer.count for lang, writer in writers.items()}, "discarded": discarded.count}
