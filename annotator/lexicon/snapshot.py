"""Offline snapshot provider (SPEC §4.2): a ``Lexicon`` answered from a snapshot file held in memory.

The file's format and its writing: ``snapshot_format``; reading and validating it: ``snapshot_read``; the
BabelNet cache frozen as a snapshot: ``snapshot_export``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from annotator.data_import.limits import InputLimits
from annotator.lexicon.base import ENGLISH, LexiconError, LexSense, SynsetRecord
from annotator.lexicon.snapshot_format import (
    Edges,
    LemmaEntry,
    StoredSynset,
    lemma_lookup_key,
    snapshot_data,
    stored_synset,
)
from annotator.lexicon.snapshot_read import ParsedSnapshot, parse_snapshot_data, read_snapshot_file


def _answer_record(stored: StoredSynset, wanted: frozenset[str] | None = None) -> SynsetRecord:
    synset_id, pos, glosses, senses = stored
    if wanted is not None:
        glosses = tuple((lang, text) for lang, text in glosses if lang in wanted)
        senses = tuple([sense for sense in senses if sense[1] in wanted])
    return SynsetRecord(id=synset_id, pos=pos, glosses=dict(glosses), senses=tuple(map(LexSense._make, senses)))


class SnapshotLexicon:
    """``Lexicon`` answered from a snapshot held in memory (its synsets as ``StoredSynset`` tuples).

    English ``synset_ids`` come from the snapshot's English lemma entries (the provider's own answer).
    ``synset_ids_in`` for other languages uses a lemma entry when there is one, else a reverse index
    over the synsets' senses (case-insensitive lemma, language, synset POS).
    """

    name = "snapshot"
    #: Its answers are computed from memory alone: a forked process may use it (see ``services.prepopulate_staged``).
    held_in_memory = True

    def __init__(
        self,
        *,
        label: str,
        version: str,
        lemmas: Iterable[LemmaEntry],
        synsets: Iterable[SynsetRecord] = (),
        provider: str = "",
        origin: str = "<memory>",
        stored: Iterable[StoredSynset] = (),
        edges: Mapping[str, Sequence[tuple[str, str]]] | None = None,
        header: Mapping[str, Any] | None = None,
    ) -> None:
        self.label = label
        self.version = version
        self.provider = provider
        self.origin = origin
        #: The header's fields as the file wrote them (its licence among them): empty when not read from a file.
        self.header: dict[str, Any] = dict(header or {})
        self._synsets: dict[str, StoredSynset] = {}
        for record in chain(map(stored_synset, synsets), stored):
            if record[0] in self._synsets:
                raise LexiconError(f"{origin}: synset {record[0]} appears twice.")
            self._synsets[record[0]] = record
        #: Each synset's relations (only synsets that have some), as exact tuples of strings (untracked).
        self._edges: dict[str, Edges] = {
            synset_id: tuple((str(relation), str(target)) for relation, target in links)
            for synset_id, links in (edges or {}).items()
            if links
        }
        self._lemmas: dict[tuple[str, str, str], LemmaEntry] = {}
        for entry in lemmas:
            if entry.key in self._lemmas:
                raise LexiconError(f"{origin}: lemma entry {entry.lemma!r} ({entry.lang}, {entry.pos}) appears twice.")
            missing = [synset_id for synset_id in entry.synsets if synset_id not in self._synsets]
            if missing:
                raise LexiconError(
                    f"{origin}: lemma entry {entry.lemma!r} ({entry.lang}, {entry.pos}) refers to unknown synset "
                    f"{missing[0]}."
                )
            self._lemmas[entry.key] = entry
        #: The languages kept in an answer, per language list asked with (a run asks with one or a few).
        self._wanted: dict[tuple[str, ...], frozenset[str]] = {}
        #: The reverse index of ``synset_ids_in``, built at its first use (pre-population never asks it).
        self._reverse: dict[tuple[str, str, str], tuple[str, ...]] | None = None

    def _reverse_index(self) -> dict[tuple[str, str, str], tuple[str, ...]]:
        """(lemma key, language, POS) -> synset ids, over every sense. Kept as tuples of strings, which Python's
        cyclic collector never walks: one list per (lemma, language, POS) made each of its full passes longer."""
        if self._reverse is None:
            reverse: dict[tuple[str, str, str], tuple[str, ...]] = {}
            for synset_id, pos, _, senses in self._synsets.values():
                for lemma, lang, _, _ in senses:
                    key = (lemma_lookup_key(lemma), lang, pos)
                    ids = reverse.get(key, ())
                    if synset_id not in ids:
                        reverse[key] = (*ids, synset_id)
            self._reverse = reverse
        return self._reverse

    def __repr__(self) -> str:
        return f"SnapshotLexicon(origin={self.origin!r}, version={self.version!r}, synsets={len(self._synsets)})"

    # --- construction -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, limits: InputLimits | None = None, keep_in: Path | None = None) -> SnapshotLexicon:
        """Read a JSON or JSONL snapshot file within ``limits`` (``snapshot_read.read_snapshot_file``); with
        ``keep_in`` (a project's data folder), from the checked copy kept there (``snapshot_cache``)."""
        if keep_in is None:
            return cls.from_parsed(read_snapshot_file(Path(path), limits))
        from annotator.lexicon.snapshot_cache import read_checked_snapshot

        return cls.from_parsed(read_checked_snapshot(Path(path), limits, keep_in))

    @classmethod
    def from_data(cls, data: Any, origin: str = "<data>") -> SnapshotLexicon:
        """Build from the JSON form already parsed (a dict), with the same validation as ``load``."""
        return cls.from_parsed(parse_snapshot_data(data, origin))

    @classmethod
    def from_parsed(cls, parsed: ParsedSnapshot) -> SnapshotLexicon:
        return cls(
            label=parsed.label,
            version=parsed.version,
            provider=parsed.provider,
            lemmas=parsed.lemmas,
            stored=parsed.synsets,
            origin=parsed.origin,
            edges=parsed.edges,
            header=parsed.header,
        )

    # --- Lexicon protocol ---------------------------------------------------------------------------

    def synset_ids(self, lemma: str, pos: str) -> list[str]:
        entry = self._lemmas.get((lemma_lookup_key(lemma), ENGLISH, pos.upper()))
        return list(entry.synsets) if entry else []

    def synset_ids_in(self, lemma: str, lang: str, pos: str) -> list[str]:
        lang, pos = lang.upper(), pos.upper()
        if lang == ENGLISH:
            return self.synset_ids(lemma, pos)
        entry = self._lemmas.get((lemma_lookup_key(lemma), lang, pos))
        if entry is not None:
            return list(entry.synsets)
        return list(self._reverse_index().get((lemma_lookup_key(lemma), lang, pos), ()))

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        record = self._synsets.get(synset_id)
        if record is None:
            raise LexiconError(f"Synset {synset_id} is not in the lexicon snapshot {self.origin}.")
        key = tuple(langs)
        wanted = self._wanted.get(key)
        if wanted is None:
            if len(self._wanted) >= 100:
                self._wanted.clear()  # bounded whatever the callers ask with
            wanted = self._wanted[key] = frozenset((ENGLISH, *(lang.upper() for lang in langs)))
        return _answer_record(record, wanted)

    def related(self, synset_id: str) -> list[tuple[str, str]]:
        """The synset's relations the snapshot holds (format version 2; none in a version 1 file)."""
        return list(self._edges.get(synset_id, ()))

    # --- contents -----------------------------------------------------------------------------------

    def lemma_entries(self) -> list[LemmaEntry]:
        return list(self._lemmas.values())

    def synset_records(self) -> list[SynsetRecord]:
        return [_answer_record(record) for record in self._synsets.values()]

    def to_data(self) -> dict[str, Any]:
        """The JSON form of this snapshot (what ``from_data`` reads back)."""
        return snapshot_data(
            label=self.label,
            version=self.version,
            provider=self.provider,
            lemmas=self.lemma_entries(),
            synsets=self.synset_records(),
            edges=self._edges,
        )
