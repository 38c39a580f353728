"""The Parquet files of a published dataset: ``data/<LANG>/test.parquet``, ``data/discarded/test.parquet``.

One row per item-language, read from the export's ``dataset.jsonl`` line by line (in its order, sorted by id) and
written in batches, so memory stays bounded by a batch per language whatever the export's size. A row holds what the
JSONL line holds for that language: the candidate lists as lists of canonical strings (``good``, ``bad``), with
their origins and synsets in parallel lists (synset ids never hold spaces, so each candidate's synsets are one
space-separated string), and ``senses`` / ``sense_ranks`` as parallel lists; the JSONL line can be rebuilt from it.
Three columns say what the row is worth, the same facts the card counts (``RowFacts``, tallied from the rows as
written): ``status``, ``filters_failed`` (the selection rules the item broke, flagged but not excluded by a lead)
and ``usable`` (done with something in GOOD).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
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
        ("filters_failed", pa.list_(pa.string())),
        ("usable", pa.bool_()),
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


def language_row(line: dict[str, Any], lang: str, filters_failed: Iterable[str] = ()) -> dict[str, Any]:
    """The row of ``lang`` in one ``dataset.jsonl`` line; ``filters_failed`` the rules its item broke."""
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
        "filters_failed": list(filters_failed),
        "usable": entry.get("status", "done") == "done" and bool(good),
    }


@dataclass
class RowFacts:
    """What a configuration's rows are, tallied from the rows as written: rows by status, rows with an empty GOOD
    list, usable rows, rows failing each selection rule, rows a person changed (an edit or a status)."""

    rows: int = 0
    status: Counter[str] = field(default_factory=Counter)
    empty_good: int = 0
    usable: int = 0
    filters_failed: Counter[str] = field(default_factory=Counter)
    changed_by_people: int = 0

    def add(self, row: Mapping[str, Any], changed: bool) -> None:
        self.rows += 1
        self.status[row["status"]] += 1
        self.empty_good += not row["good"]
        self.usable += bool(row["usable"])
        self.filters_failed.update(row["filters_failed"])
        self.changed_by_people += changed

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "status": dict(sorted(self.status.items())),
            "empty_good": self.empty_good,
            "usable": self.usable,
            "filters_failed": dict(sorted(self.filters_failed.items())),
            "changed_by_people": self.changed_by_people,
        }


def discarded_row(line: dict[str, Any]) -> dict[str, Any]:
    return {name: line.get(name) for name in DISCARDED_SCHEMA.names}


class _BatchedWriter:
    """One Parquet file written a batch at a time; rows counted for the card and the Croissant metadata.

    A batch is held as columns (a list column as its values and offsets, as Arrow stores it), not as the rows
    given: a row's dict and lists die once added, so a batch is a few dozen lists of strings and numbers however
    many rows it holds, and Arrow builds each column from one list."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        self._lists = {field.name for field in schema if pa.types.is_list(field.type)}
        self._values: dict[str, list[Any]] = {}
        self._offsets: dict[str, list[int]] = {}
        self.pending = 0
        self.count = 0
        self._clear()
        self._writer = pq.ParquetWriter(path, schema)

    def _clear(self) -> None:
        self._values = {name: [] for name in self.schema.names}
        self._offsets = {name: [0] for name in self._lists}
        self.pending = 0

    def add(self, row: Mapping[str, Any]) -> None:
        for name, values in self._values.items():
            if name in self._lists:
                values.extend(row[name])
                self._offsets[name].append(len(values))
            else:
                values.append(row[name])
        self.pending += 1
        if self.pending >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            arrays = [self._column(field) for field in self.schema]
            self._writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
            self.count += self.pending
            self._clear()

    def _column(self, field: pa.Field) -> pa.Array:
        values = self._values[field.name]
        if field.name not in self._lists:
            return pa.array(values, type=field.type)
        offsets = pa.array(self._offsets[field.name], type=pa.int32())
        return pa.ListArray.from_arrays(offsets, pa.array(values, type=field.type.value_type), type=field.type)

    def close(self) -> None:
        self.flush()
        if self.count == 0:
            self._writer.write_table(self.schema.empty_table())
        self._writer.close()

    def abandon(self) -> None:
        """Close the file without the pending rows: the write stopped (a signal may have cut a row in half), and
        the caller removes what was written, so nothing may raise over the reason it stopped."""
        with contextlib.suppress(OSError, pa.ArrowException):
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
    *,
    filters_failed: Mapping[str, Iterable[str]] | None = None,
    changed_by_people: Container[tuple[str, str]] = (),
    facts: dict[str, RowFacts] | None = None,
) -> dict[str, int]:
    """Write every configuration's file under ``folder``; returns the rows per configuration (``discarded`` too).

    ``progress(n)`` is told the number of ``dataset.jsonl`` lines read so far; ``filters_failed`` maps an item id
    to the selection rules it broke; ``facts``, when given, receives each language's ``RowFacts`` (a person changed
    the item-languages in ``changed_by_people``)."""
    filters_failed = filters_failed or {}
    writers = {lang: _BatchedWriter(folder / language_path(lang), LANGUAGE_SCHEMA) for lang in languages}
    tallies = {lang: RowFacts() for lang in writers}
    discarded = _BatchedWriter(folder / DISCARDED_PATH, DISCARDED_SCHEMA)
    try:
        for done, line in enumerate(_lines(dataset_jsonl), start=1):
            failed = filters_failed.get(line["id"], ())
            for lang in line["languages"]:
                row = language_row(line, lang, failed)
                tallies[lang].add(row, (line["id"], lang) in changed_by_people)
                writers[lang].add(row)
            if done % 500 == 0:
                progress(done)
        for line in _lines(discarded_jsonl):
            discarded.add(discarded_row(line))
    except BaseException:
        for writer in [*writers.values(), discarded]:
            writer.abandon()
        raise
    for writer in [*writers.values(), discarded]:
        writer.close()
    if facts is not None:
        facts.update(tallies)
    return {**{lang: writer.count for lang, writer in writers.items()}, "discarded": discarded.count}
