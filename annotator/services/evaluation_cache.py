"""The persisted cache of the live evaluation set-up: each item as evaluation reads it, by its exact stored rows.

Decoding, checking and parsing every item's record (170,000 distinct candidates at 10,000 items × 5 languages) was
most of the set-up of scoring the current curation, though few items change between two runs. An entry is kept
with its key: the SHA-256 of every stored value its record is built from (``key_of``: the item's columns, the
languages, and each language's status and stored candidate lists, as text, pickled — which writes each value whole,
with its type and length, so different values never give the same bytes). A different value (curation, undo, a
forced import, a sheet import, an edit by hand) is a miss, and the item is read and checked again; the code that
builds, checks and parses a record is in the ``fingerprint``, so an upgrade starts afresh. (Keeping the values
themselves, 60 MB of text at 10,000 items, made reading the cache cost more than hashing them.)

The cache is two files under the project's data folder (``cache/evaluation-items``): the items of the last
compaction and the items read since, so a run after a few changes writes a few items, not the whole cache; both
hold only items of recent runs (bounded by the current data). Nothing here is needed: an unreadable or foreign
file counts as empty.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
import sys
from pathlib import Path
from typing import Any

from annotator.atomic_files import atomic_file
from annotator.evaluation.inputs import DatasetItem

#: Where the cache lives, under the project's data folder.
ITEM_CACHE_FOLDER = "cache/evaluation-items"
#: The items of the last compaction, and the items read since (see ``ItemCache.save``).
BASE_FILE = "items.pickle"
OVERLAY_FILE = "items-since.pickle"
_FORMAT = 3

#: An item's key (``key_of`` every stored value its record is built from) and what evaluation read from that record.
Entry = tuple[bytes, DatasetItem]

_PICKLE_PROTOCOL = 5


def key_of(values: tuple[Any, ...]) -> bytes:
    """An item's key: the SHA-256 of its stored values (texts, numbers, None, in nested tuples) as pickled — bytes
    from which the values can be read back, so different values always give different bytes. Equal values pickled
    differently (an object repeated by identity is written once) only cost a miss."""
    return hashlib.sha256(pickle.dumps(values, _PICKLE_PROTOCOL)).digest()


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
    """The items kept by earlier runs (``base``: the last compaction; ``overlay``: items read since, a small file
    rewritten instead of the large one) and what this run used or read (``used``, ``read``), which ``save`` writes
    back. ``folder`` None: a cache that holds and keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.base: dict[str, Entry] = {}
        self.overlay: dict[str, Entry] = {}
        self.used_base: dict[str, Entry] = {}
        self.used_overlay: dict[str, Entry] = {}
        self.read: dict[str, Entry] = {}

    @classmethod
    def open(cls, folder: Path) -> ItemCache:
        """Read both files; one that is missing, unreadable or written by other code is empty. The folder is the
        project's data folder, as trusted as its database (like an evaluation's ``result.pickle``)."""
        cache = cls(folder)
        cache.base, cache.overlay = cache._load(BASE_FILE), cache._load(OVERLAY_FILE)
        return cache

    @property
    def held(self) -> int:
        return len(self.base) + len(self.overlay)

    def get(self, item_id: str, key: bytes) -> DatasetItem | None:
        """The item an earlier run read from exactly these stored values (``key_of`` them), or None; a hit is kept
        by this run."""
        entry = self.overlay.get(item_id)
        if entry is not None and entry[0] == key:
            self.used_overlay[item_id] = entry
            return entry[1]
        entry = self.base.get(item_id)  # an undo may bring back the values the base was read from
        if entry is not None and entry[0] == key:
            self.used_base[item_id] = entry
            return entry[1]
        return None

    def put(self, item_id: str, key: bytes, item: DatasetItem) -> None:
        """An item this run read from a record without a problem, for the next run."""
        self.read[item_id] = (key, item)

    def save(self) -> None:
        """Keep what this run used or read. Items read since the last compaction go to the overlay, so a run after a
        few changes writes a few items; when the overlay and the base's unused items outgrow a quarter of the
        items, everything used is written as the new base (so the files hold at most 1.5 times the items: bounded
        by the current data). A cache that cannot be written is no error: the next run reads the items again."""
        if self.folder is None:
            return
        overlay = {**self.used_overlay, **self.read}
        stale = len(self.base) - len(self.used_base)
        live = len(self.used_base) + len(overlay)
        with contextlib.suppress(OSError):
            if stale + len(overlay) > live // 4:
                self._write(BASE_FILE, {**self.used_base, **overlay})
                (self.folder / OVERLAY_FILE).unlink(missing_ok=True)
            elif self.read or len(self.used_overlay) != len(self.overlay):
                self._write(OVERLAY_FILE, overlay)

    def _load(self, name: str) -> dict[str, Entry]:
        assert self.folder is not None
        try:
            data = (self.folder / name).read_bytes()
        except OSError:
            return {}
        try:
            stamp, entries = pickle.loads(data)
        except Exception:  # a torn or foreign file: replaced by the next save that has something to keep
            return {}
        return entries if stamp == fingerprint() and type(entries) is dict else {}

    def _write(self, name: str, entries: dict[str, Entry]) -> None:
        assert self.folder is not None
        data = pickle.dumps((fingerprint(), entries), protocol=pickle.HIGHEST_PROTOCOL)
        with atomic_file(self.folder / name) as temporary:
            temporary.write_bytes(data)
