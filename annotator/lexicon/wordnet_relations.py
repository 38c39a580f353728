"""The relations between synsets of a project's wordnet, for suggestions from related senses.

Only the relations a translator can use to find a missing word are kept: hypernym, instance hypernym, hyponym,
similar, also, verb group, entails (synset relations) and derivation (a sense relation, kept as the synsets of
its two senses). They are read once from the WN-LMF file, streamed, into a small gzipped JSON file per lexicon
next to the look-up index (``wordnet_index``); a lexicon added before this file existed gets it from ``wn``'s
own export of the lexicon (``wn.export``), once, the first time its relations are asked for.
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from annotator.atomic_files import atomic_file

RELATIONS_FORMAT = "annotator-wordnet-relations"
RELATIONS_VERSION = 1
#: The synset relations suggestions follow, in the order a translator would try them.
SYNSET_RELATIONS = ("similar", "also", "verb_group", "entails", "hypernym", "instance_hypernym", "hyponym")
#: The sense relation followed (its senses' synsets are what is kept).
SENSE_RELATIONS = ("derivation",)
RELATIONS = (*SYNSET_RELATIONS, *SENSE_RELATIONS)
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")
_OFFSET_ID = re.compile(r"-(\d{8})-([nvasr])$")


def relations_path(folder: Path, lexicon_id: str, version: str) -> Path:
    safe_id, safe_version = _SAFE.sub("_", lexicon_id), _SAFE.sub("_", version)
    return folder / f"relations-v{RELATIONS_VERSION}-{safe_id}-{safe_version}.json.gz"


def _wn_id(own: str) -> str | None:
    match = _OFFSET_ID.search(own)
    if not match:
        return None
    offset, ss_type = match.groups()
    return f"wn:{offset}{'a' if ss_type == 's' else ss_type}"


@dataclass
class RelationIndex:
    """One lexicon's kept relations: ``wn:`` id → [[relation, ``wn:`` id of the related synset], …]."""

    id: str
    version: str
    relations: dict[str, list[list[str]]] = field(default_factory=dict)

    def write(self, folder: Path) -> Path:
        path = relations_path(folder, self.id, self.version)
        document = {
            "format": RELATIONS_FORMAT,
            "format_version": RELATIONS_VERSION,
            "id": self.id,
            "version": self.version,
            "relations": self.relations,
        }
        with atomic_file(path) as scratch, gzip.open(scratch, "wt", encoding="utf-8", compresslevel=3) as out:
            json.dump(document, out, ensure_ascii=False, separators=(",", ":"))
        return path

    @classmethod
    def read(cls, path: Path) -> RelationIndex:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("format") != RELATIONS_FORMAT or data.get("format_version") != RELATIONS_VERSION:
            raise ValueError(f"{path.name} is not a wordnet relations file of version {RELATIONS_VERSION}")
        return cls(data["id"], data["version"], data["relations"])


def read_relations(path: Path) -> Iterator[RelationIndex]:
    """Stream a (decompressed) WN-LMF file into one ``RelationIndex`` per ``<Lexicon>``."""
    from defusedxml.ElementTree import iterparse

    current: RelationIndex | None = None
    sense_synset: dict[str, str] = {}
    sense_links: list[tuple[str, str, str]] = []  # (relation, own synset of the source sense, target sense id)
    for event, element in iterparse(str(path), events=("start", "end")):
        tag = element.tag
        if event == "start":
            if tag == "Lexicon":
                current = RelationIndex(element.get("id", ""), element.get("version", ""))
                sense_synset, sense_links = {}, []
            continue
        if current is None:
            continue
        if tag == "LexicalEntry":
            for sense in element.findall("Sense"):
                synset = sense.get("synset", "")
                sense_synset[sense.get("id", "")] = synset
                for link in sense.findall("SenseRelation"):
                    if link.get("relType") in SENSE_RELATIONS:
                        sense_links.append((link.get("relType", ""), synset, link.get("target", "")))
            element.clear()
        elif tag == "Synset":
            source = _wn_id(element.get("id", ""))
            if source:
                for link in element.findall("SynsetRelation"):
                    target = _wn_id(link.get("target", ""))
                    if link.get("relType") in SYNSET_RELATIONS and target:
                        current.relations.setdefault(source, []).append([link.get("relType", ""), target])
            element.clear()
        elif tag == "Lexicon":
            for relation, own, target_sense in sense_links:
                source, target = _wn_id(own), _wn_id(sense_synset.get(target_sense, ""))
                if source and target and source != target:
                    found = current.relations.setdefault(source, [])
                    if [relation, target] not in found:
                        found.append([relation, target])
            yield current
            current = None
            element.clear()


def write_relations(lmf: Path, folder: Path) -> list[Path]:
    """Write the relations file of every lexicon in a (decompressed) WN-LMF file into the wordnet ``folder``."""
    return [index.write(folder) for index in read_relations(lmf)]


def load_relations(
    folder: Path, lexicon_id: str, version: str, export: Callable[[str, Path], None] | None = None
) -> RelationIndex:
    """The lexicon's relations file; when it has none yet (added before these files existed), ``export`` writes the
    lexicon (``id:version``) as WN-LMF to a path (``wn.export``), which is read as at add time, once."""
    path = relations_path(folder, lexicon_id, version)
    try:
        return RelationIndex.read(path)
    except (OSError, ValueError, KeyError, EOFError):
        if export is None:
            return RelationIndex(lexicon_id, version)
    with tempfile.TemporaryDirectory(dir=folder, prefix="relations-") as scratch:
        target = Path(scratch) / "export.xml"
        export(f"{lexicon_id}:{version}", target)
        for index in read_relations(target):
            index.write(folder)
    return RelationIndex.read(path)


class WordnetRelations:
    """The relations of a project's wordnet lexicons (the English one holds them; others may add their own)."""

    def __init__(
        self, folder: Path, lexicons: list[tuple[str, str]], export: Callable[[str, Path], None] | None = None
    ) -> None:
        self._relations: dict[str, list[tuple[str, str]]] = {}
        for lexicon_id, version in lexicons:
            for source, links in load_relations(folder, lexicon_id, version, export).relations.items():
                kept = self._relations.setdefault(source, [])
                for relation, target in links:
                    if (relation, target) not in kept:
                        kept.append((relation, target))

    def related(self, synset_id: str) -> list[tuple[str, str]]:
        """(relation, related ``wn:`` id) of ``synset_id``, in ``RELATIONS`` order, each related synset once."""
        order = {relation: number for number, relation in enumerate(RELATIONS)}
        links = sorted(self._relations.get(synset_id, ()), key=lambda link: order.get(link[0], len(order)))
        seen: set[str] = set()
        result = []
        for relation, target in links:
            if target not in seen and target != synset_id:
                seen.add(target)
                result.append((relation, target))
        return result
