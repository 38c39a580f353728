"""The persisted cache of the live evaluation set-up: each item as evaluation reads it, by its exact stored rows.

Decoding, checking and parsing every item's record (170,000 distinct candidates at 10,000 items × 5 languages) was
most of the set-up of scoring the current curation, though few items change between two runs. An entry is kept
with its key: every stored value its record is built from (the item's columns, the languages, and each language's
status and stored candidate lists, as text). A different value (curation, undo, a forced import, a sheet import,
an edit by hand) is a miss, and the item is read and checked again; the code that builds, checks and parses a
record is in the ``fingerprint``, so an upgrade starts afresh.

The cache is files under the project's data folder (``cache/evaluation-items``), in ``SHARDS`` shards by lemma (a
lemma's items share candidates, which a shard pickles once): a run rewrites only the shards that changed, and each
rewritten shard keeps only the items that run used (bounded by the current data). Nothing here is needed: an
unreadable or foreign shard counts as empty.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
import sys
import zlib
from pathlib import Path
from typing import Any

from annotator.atomic_files import atomic_file
from annotator.evaluation.inputs import DatasetItem

#: Where the cache lives, under the project's data folder.
ITEM_CACHE_FOLDER = "cache/evaluation-items"
#: Shards by lemma: a change rewrites one sixteenth of the cache, not all of it.
SHARDS = 16
_FORMAT = 1

#: An item's key (every stored value its record is built from) and what evaluation read from that record.
Entry = tuple[tuple[Any, ...], DatasetItem]
Shard = dict[str, Entry]


@functools.cache
def fingerprint() -> bytes:
    """What a cached item depends on besides its stored values: the code that builds, checks and parses a record,
    the dataset schema, and Python (its Unicode tables normalise the texts; pickle reads the items)."""
    import annotator.data_export.dataset as export
    import annotator.domain.candidates as candidates
    import annotator.domain.unicode_rules as unicode_rules
    import annotator.evaluation.inputs as inputs
    import annotator.services.evaluate_project as evaluate_project

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{_FORMAT}\n{sys.version}\n".encode())
    for module in (candidates, unicode_rules, inputs, export, evaluate_project, sys.modules[__name__]):
        digest.update(Path(str(module.__file__)).read_bytes())
    digest.update(export.schema_path().read_bytes())
    return digest.digest()


class ItemCache:
    """The shards read at the start of a set-up (``loaded``) and what this run used or added (``kept``), which
    ``save`` writes back where the two differ. ``folder`` None: a cache that holds and keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.loaded: list[Shard] = [{} for _ in range(SHARDS)]
        self.kept: list[Shard] = [{} for _ in range(SHARDS)]
        self.added = [False] * SHARDS

    @classmethod
    def open(cls, folder: Path) -> ItemCache:
        """Read every shard; one that is missing, unreadable or written by other code is empty. The folder is the
        project's data folder, as trusted as its database (like an evaluation's ``result.pickle``)."""
        cache = cls(folder)
        expected = fingerprint()
        for number in range(SHARDS):
            try:
                data = cache._path(number).read_bytes()
            except OSError:
                continue
            try:
                stamp, shard = pickle.loads(data)
            except Exception:  # a torn or foreign file: rewritten by the next save that has something to keep
                continue
            if stamp == expected and type(shard) is dict:
                cache.loaded[number] = shard
        return cache

    @staticmethod
    def shard(lemma: str) -> int:
        """The shard of an item, by its lemma. Stable across processes (unlike ``hash``)."""
        return zlib.crc32(lemma.encode("utf-8", "surrogatepass")) % SHARDS

    def get(self, shard: int, item_id: str, key: tuple[Any, ...]) -> DatasetItem | None:
        """The item an earlier run read from exactly these stored values, or None; a hit is kept by this run."""
        entry = self.loaded[shard].get(item_id)
        if entry is None or entry[0] != key:
            return None
        self.kept[shard][item_id] = entry
        return entry[1]

    def put(self, shard: int, item_id: str, key: tuple[Any, ...], item: DatasetItem) -> None:
        """An item this run read from a record without a problem, for the next run."""
        self.kept[shard][item_id] = (key, item)
        self.added[shard] = True

    def save(self) -> None:
        """Write the shards that changed: an item added, or one kept before and not used now (so a shard holds only
        what the last run used). A cache that cannot be written is no error: the next run reads the items again."""
        if self.folder is None:
            return
        for number in range(SHARDS):
            kept = self.kept[number]
            if not self.added[number] and len(kept) == len(self.loaded[number]):
                continue
            path = self._path(number)
            with contextlib.suppress(OSError):
                if not kept:
                    path.unlink(missing_ok=True)
                    continue
                data = pickle.dumps((fingerprint(), kept), protocol=pickle.HIGHEST_PROTOCOL)
                with atomic_file(path) as temporary:
                    temporary.write_bytes(data)

    def _path(self, number: int) -> Path:
        assert self.folder is not None
        return self.folder / f"items-{number:02d}.pickle"
