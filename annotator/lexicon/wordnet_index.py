"""A per-lexicon look-up index, written from the WN-LMF file when ``use-wordnet`` adds it to ``wn``.

``wn`` answers one object at a time, each through several SQL queries, far too slow for pre-populating a large
project (figures in benchmarks/RESULTS.md). Pre-population needs only
lemma → synsets, synset → gloss, ILI and lemmas, and sense key → synset: gathered while the file is checked
(``wordnet_lmf``), into a small gzipped JSON file per lexicon in the project's ``wordnet`` folder (owner-only),
loaded in a second.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.private_files import open_private

INDEX_FORMAT = "annotator-wordnet-index"
INDEX_VERSION = 2
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")
#: A synset id ending in a WordNet 3.0 offset and synset type (``wn30en-13773250-n``, ``omw-it-00005839-s``).
_OFFSET_ID = re.compile(r"-(\d{8})-([nvasr])$")


def index_path(folder: Path, lexicon_id: str, version: str) -> Path:
    return folder / f"index-v{INDEX_VERSION}-{_SAFE.sub('_', lexicon_id)}-{_SAFE.sub('_', version)}.json.gz"


@dataclass
class LexiconIndex:
    """One lexicon's look-ups, by ``wn:`` id (the WordNet 3.0 offset its synset id carries) or ILI.

    ``synsets`` holds the synsets whose ids carry an offset; a sense's ``ref`` is its synset's ILI when it has
    one, else that ``wn:`` id (senses of synsets with neither are left out: they cannot meet English).
    """

    id: str
    version: str
    language: str
    #: ``wn:`` id → [ILI or "", synset POS (n v a s r), first definition or "", the lexicon's own synset id]
    synsets: dict[str, list[str]] = field(default_factory=dict)
    #: [lemma, entry POS, [[ref, sense number], …]] — lexicalized senses only; ref = ILI, else ``wn:`` id
    entries: list[list[Any]] = field(default_factory=list)
    #: sense key (``dc:identifier`` or the id's escaped key) → ``wn:`` id (English lexicons)
    keys: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "format_version": INDEX_VERSION,
            "id": self.id,
            "version": self.version,
            "language": self.language,
            "synsets": self.synsets,
            "entries": self.entries,
            "keys": self.keys,
        }

    def write(self, folder: Path) -> Path:
        """Written (0600, flushed to disk) under its final name in ``folder``: a build folder, renamed in later."""
        path = index_path(folder, self.id, self.version)
        with open_private(path, "wb") as raw:
            with (
                gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=3) as zipped,
                io.TextIOWrapper(zipped, "utf-8") as out,
            ):
                json.dump(self.to_json(), out, ensure_ascii=False, separators=(",", ":"))
            raw.flush()
            os.fsync(raw.fileno())
        return path

    @classmethod
    def read(cls, path: Path) -> LexiconIndex:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("format") != INDEX_FORMAT or data.get("format_version") != INDEX_VERSION:
            raise ValueError(f"{path.name} is not a wordnet index of version {INDEX_VERSION}")
        return cls(data["id"], data["version"], data["language"], data["synsets"], data["entries"], data["keys"])


def sense_key_from_id(sense_id: str, lexicon_id: str) -> str | None:
    """OEWN-style ids carry the escaped key (``wn30en-living__5.00.00.extant.00``); others have none here."""
    rest = sense_id[len(lexicon_id) + 1 :] if sense_id.startswith(lexicon_id + "-") else ""
    if "__" not in rest:
        return None
    from wn.compat import sensekey

    try:
        return sensekey.unescape(rest)
    except ValueError:
        return None


def wn_id_of(own: str) -> str | None:
    match = _OFFSET_ID.search(own)
    if not match:
        return None
    offset, ss_type = match.groups()
    return f"wn:{offset}{'a' if ss_type == 's' else ss_type}"


def finish_index(lexicon: LexiconIndex, raw_entries: list[list[Any]], raw_keys: dict[str, str]) -> LexiconIndex:
    """Own synset ids → ``wn:`` ids (keys, synsets) and ILI-or-``wn:`` refs (senses), once, at add time."""
    own_info = lexicon.synsets
    wn_ids = {own: wn_id_of(own) for own in own_info}
    lexicon.synsets = {wn_ids[own]: [*info, own] for own, info in own_info.items() if wn_ids[own]}  # type: ignore[misc]
    for lemma, pos, senses in raw_entries:
        refs = []
        for own, number in senses:
            ili = own_info.get(own, ["", "", ""])[0]
            ref = ili or wn_ids.get(own) or wn_id_of(own)
            if ref:
                refs.append([ref, number])
        if refs:
            lexicon.entries.append([lemma, pos, refs])
    lexicon.keys = {key: wn_id for key, own in raw_keys.items() if (wn_id := wn_ids.get(own))}
    return lexicon
