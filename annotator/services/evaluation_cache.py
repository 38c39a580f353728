"""The persisted cache of the live evaluation set-up: the parsed specs of each stored candidate list, by its text.

Decoding, checking and parsing every stored candidate list (170,000 candidates at 10,000 items × 5 languages) was
most of the set-up of scoring the current curation, though few lists change between two runs. The key is the exact
stored text (and the side), so any change to a list (curation, undo, a forced import, a sheet import, an edit by
hand) is a miss; the code that checks and parses lists is in the ``fingerprint``, so an upgrade starts afresh.

The cache is files under the project's data folder (``cache/evaluation-lists``), in ``SHARDS`` shards by lemma:
a run rewrites only the shards whose lists changed, and each rewritten shard keeps only the lists that run used
(bounded by the current data). Nothing here is needed: an unreadable or foreign shard counts as empty.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
import sys
import zlib
from pathlib import Path

from annotator.atomic_files import atomic_file
from annotator.evaluation.inputs import CandidateSpec

#: Where the cache lives, under the project's data folder.
LIST_CACHE_FOLDER = "cache/evaluation-lists"
#: Shards by lemma: a change rewrites one sixteenth of the cache, not all of it.
SHARDS = 16
_FORMAT = 1

Specs = tuple[CandidateSpec, ...]
#: A shard: side (``good``/``bad``) → stored list text → its specs.
Shard = dict[str, dict[str, Specs]]


@functools.cache
def fingerprint() -> bytes:
    """What the cached specs depend on besides the stored text: the code that decodes, checks and parses a list,
    the dataset schema, and Python (its Unicode tables normalise the texts; pickle reads the specs)."""
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


def _empty() -> Shard:
    return {"good": {}, "bad": {}}


class ListCache:
    """The shards read at the start of a set-up (``loaded``) and what this run used or added (``kept``), which
    ``save`` writes back where the two differ. ``folder`` None: a cache that holds and keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.loaded: list[Shard] = [_empty() for _ in range(SHARDS)]
        self.kept: list[Shard] = [_empty() for _ in range(SHARDS)]
        self.added = [False] * SHARDS

    @classmethod
    def open(cls, folder: Path) -> ListCache:
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
            if stamp == expected and type(shard) is dict and shard.keys() == {"good", "bad"}:
                cache.loaded[number] = shard
        return cache

    @property
    def held(self) -> bool:
        return any(shard["good"] or shard["bad"] for shard in self.loaded)

    @staticmethod
    def shard(lemma: str) -> int:
        """The shard of an item's lists, by its lemma: the items of a lemma share candidates, and a shard pickles
        a spec shared by several lists once. Stable across processes (unlike ``hash``)."""
        return zlib.crc32(lemma.encode("utf-8", "surrogatepass")) % SHARDS

    def side(self, shard: int, side: str, use: bool = True) -> tuple[dict[str, Specs], dict[str, Specs]]:
        """(held, kept) of a shard's side for a caller that looks lists up itself: a list found in ``held`` must
        be put in ``kept`` (what ``get`` does). ``use`` False: nothing is held (every list is read again)."""
        return (self.loaded[shard][side] if use else {}), self.kept[shard][side]

    def get(self, shard: int, side: str, stored: str) -> Specs | None:
        """The specs of a stored list kept by an earlier run, or None; a hit is kept by this run too."""
        specs = self.loaded[shard][side].get(stored)
        if specs is not None:
            self.kept[shard][side][stored] = specs
        return specs

    def put(self, shard: int, side: str, stored: str, specs: Specs) -> None:
        """A clean list this run read (decoded, surely valid, parsed without a problem), for the next run."""
        kept = self.kept[shard][side]
        if stored not in kept:
            kept[stored] = specs
            self.added[shard] = True

    def save(self) -> None:
        """Write the shards that changed: a list added, or one kept before and not used now (so a shard holds only
        what the last run used). A cache that cannot be written is no error: the next run reads the lists again."""
        if self.folder is None:
            return
        for number in range(SHARDS):
            kept, loaded = self.kept[number], self.loaded[number]
            if not self.added[number] and all(len(kept[side]) == len(loaded[side]) for side in kept):
                continue
            path = self._path(number)
            with contextlib.suppress(OSError):
                if not (kept["good"] or kept["bad"]):
                    path.unlink(missing_ok=True)
                    continue
                data = pickle.dumps((fingerprint(), kept), protocol=pickle.HIGHEST_PROTOCOL)
                with atomic_file(path) as temporary:
                    temporary.write_bytes(data)

    def _path(self, number: int) -> Path:
        assert self.folder is not None
        return self.folder / f"lists-{number:02d}.pickle"
