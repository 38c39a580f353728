"""Offline snapshot provider and the BabelNet-cache → snapshot export (SPEC §4.2).

A snapshot freezes a lexicon in one file (format in docs/ARCHITECTURE.md) so pre-population can run
without a key, and so a finished benchmark can say exactly which lexicon data it was built from.
Loading validates everything and names the file and record of the first problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, Literal

from annotator.atomic_files import write_text_atomic
from annotator.data_import.limits import (
    InputLimits,
    JsonTooDeepError,
    check_file_size,
    json_too_deep,
    parse_json,
)
from annotator.domain.lexicon_forms import resolve, rules_for
from annotator.lexicon.babelnet import CACHE_VERSION_META
from annotator.lexicon.babelnet_wire import (
    EDGES_ENDPOINT,
    SYNSET_ENDPOINT,
    SYNSET_IDS_ENDPOINT,
    build_synset_record,
    parse_edges,
    parse_synset_ids,
)
from annotator.lexicon.base import ENGLISH, LexiconError, LexSense, SynsetRecord
from annotator.lexicon.http_cache import HttpCache
from annotator.lexicon.wordnet_relations import RELATIONS

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
#: tracked), which Python's cyclic collector does not track: a 12,000-synset snapshot's 192,000 senses as
#: ``LexSense`` objects made every full pass of a pre-population walk them, and its load alone ran six. ``synset``
#: builds the records it answers with. Issue 32, one core, CPU, the 10,000-item benchmark snapshot (12,000
#: synsets): load 2.05–2.10 → 1.23–1.25 s; pre-population opening it, 46285f4 (collector paused) 6.75 / 7.36 /
#: 7.82 s against 7.23 / 7.46 / 7.93 s (before: +8 to +14 %).
StoredSense = tuple[str, str, str, int | None]
StoredSynset = tuple[str, str, tuple[tuple[str, str], ...], tuple[StoredSense, ...]]


def stored_synset(record: SynsetRecord) -> StoredSynset:
    senses = tuple((s.lemma, s.lang, s.source, s.wordnet_sense_number) for s in record.senses)
    return (record.id, record.pos, tuple(record.glosses.items()), senses)


def _answer_record(stored: StoredSynset, wanted: set[str] | None = None) -> SynsetRecord:
    synset_id, pos, glosses, senses = stored
    if wanted is None:
        return SynsetRecord(id=synset_id, pos=pos, glosses=dict(glosses), senses=tuple(LexSense(*s) for s in senses))
    return SynsetRecord(
        id=synset_id,
        pos=pos,
        glosses={lang: text for lang, text in glosses if lang in wanted},
        senses=tuple(LexSense(*sense) for sense in senses if sense[1] in wanted),
    )


class SnapshotLexicon:
    """``Lexicon`` answered from a snapshot held in memory (its synsets as ``StoredSynset`` tuples).

    English ``synset_ids`` come from the snapshot's English lemma entries (the provider's own answer).
    ``synset_ids_in`` for other languages uses a lemma entry when there is one, else a reverse index
    over the synsets' senses (case-insensitive lemma, language, synset POS).
    """

    name = "snapshot"

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
    ) -> None:
        self.label = label
        self.version = version
        self.provider = provider
        self.origin = origin
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
        #: Built and kept as tuples of strings, which Python's cyclic collector never walks: one list per (lemma,
        #: language, POS), 150,000 for a 10,000-synset snapshot, made each of its full passes longer.
        self._reverse: dict[tuple[str, str, str], tuple[str, ...]] = {}
        for synset_id, pos, _, senses in self._synsets.values():
            for lemma, lang, _, _ in senses:
                key = (lemma_lookup_key(lemma), lang, pos)
                ids = self._reverse.get(key, ())
                if synset_id not in ids:
                    self._reverse[key] = (*ids, synset_id)

    def __repr__(self) -> str:
        return f"SnapshotLexicon(origin={self.origin!r}, version={self.version!r}, synsets={len(self._synsets)})"

    # --- construction -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, limits: InputLimits | None = None) -> SnapshotLexicon:
        """Read a JSON or JSONL snapshot (JSONL when the extension says so or the first line is a header).

        Within ``limits``: the file size first; a JSONL snapshot streams line by line (each line capped, each
        string within the cell limit, no lone surrogates); a JSON one is parsed whole, so it gets the smaller
        file limit.
        """
        from annotator.data_import.table_rows import FileFormatError
        from annotator.data_import.tables import TextLines
        from annotator.errors import UserError

        path = Path(path)
        if not path.is_file():
            raise LexiconError(f"Lexicon snapshot {path} does not exist.")
        limits = limits or InputLimits()
        origin = str(path)
        try:
            size = path.stat().st_size
            check_file_size(origin, size, limits.max_snapshot_bytes, "max_snapshot_mb")
            if path.suffix.lower() == ".jsonl" or _starts_with_header(path):
                with TextLines(path, limits) as lines:
                    return _parse_jsonl_lines(((lines.line, text) for text in lines), origin, limits)
            if size > limits.max_file_bytes:
                raise LexiconError(
                    f"{origin}: a JSON snapshot of {size / 1024 / 1024:,.1f} MB is read whole, more than the input "
                    f"limit max_file_mb ({limits.max_file_mb} MB); write it as .jsonl, which is read line by line."
                )
            _check_string_runs(path, limits)
            text = path.read_text(encoding=_encoding_of(path))
        except UnicodeDecodeError as exc:
            raise LexiconError(f"{path}: not UTF-8 text (byte {exc.start}).") from None
        except FileFormatError as exc:
            raise LexiconError(str(exc)) from None
        except UserError as exc:
            if isinstance(exc, LexiconError):
                raise
            raise LexiconError(str(exc)) from None
        return _parse_json(text, origin, limits)

    @classmethod
    def from_data(cls, data: Any, origin: str = "<data>") -> SnapshotLexicon:
        """Build from the JSON form already parsed (a dict), with the same validation as ``load``."""
        return _from_json_document(data, origin)

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
        return list(self._reverse.get((lemma_lookup_key(lemma), lang, pos), ()))

    def synset(self, synset_id: str, langs: Sequence[str]) -> SynsetRecord:
        record = self._synsets.get(synset_id)
        if record is None:
            raise LexiconError(f"Synset {synset_id} is not in the lexicon snapshot {self.origin}.")
        return _answer_record(record, {ENGLISH, *(lang.upper() for lang in langs)})

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


# --- reading ----------------------------------------------------------------------------------------


def _is_header_line(line: str) -> bool:
    try:
        first = parse_json(line)
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("type") == "header"


def _starts_with_header(path: Path) -> bool:
    """Whether the first non-empty line is a JSONL header (looking at the first 64 KB only)."""
    from annotator.data_import.tables import sniff_encoding

    with path.open("rb") as handle:
        head = handle.read(65536)
    text = head.decode(sniff_encoding(path.name, head).codec, errors="ignore")
    first = next((line for line in text.splitlines() if line.strip()), "")
    return _is_header_line(first)


def _check_string_runs(path: Path, limits: InputLimits) -> None:
    """Refuse a JSON snapshot holding an over-long string before parsing it: a run of bytes with no quote longer
    than the longest string allowed can only be such a string (a byte scan, so a 90 MB gloss costs no memory)."""
    from annotator.data_import.limits import InputLimitError

    most = 4 * limits.max_cell_chars + 1_024
    run = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            last = chunk.rfind(b'"')
            if last < 0:
                run += len(chunk)
            else:
                first = chunk.find(b'"')
                longest = max((len(part) for part in chunk[first + 1 : last].split(b'"')), default=0)
                run = most + 1 if max(run + first, longest) > most else len(chunk) - last - 1
            if run > most:
                if json_too_deep(chunk.decode("utf-8", "ignore")):  # brackets, not a string, ran that long
                    raise _problem(str(path), "top level", f"the JSON is {JsonTooDeepError().reason} [too_deep]")
                raise InputLimitError(
                    f"{path}: a string of more than {limits.max_cell_chars:,} characters (input limit "
                    "max_cell_chars); nothing was read.",
                    "cell_too_long",
                )


def _encoding_of(path: Path) -> str:
    from annotator.data_import.tables import sniff_encoding

    with path.open("rb") as handle:
        return sniff_encoding(path.name, handle.read(4096)).codec


def _check_limits(value: Any, origin: str, where: str, limits: InputLimits | None, raw: str | None = None) -> None:
    """Lone surrogates and over-long strings, named by record and field (a gloss of 300 MB is not a gloss)."""
    from annotator.data_import.tables import json_value_problem

    problem = json_value_problem(value, limits or InputLimits(), raw)
    if problem is not None:
        rule, field_path, message = problem
        raise _problem(origin, f"{where}, field '{field_path}'", f"{message} [{rule}]")


def _problem(origin: str, where: str, what: str) -> LexiconError:
    return LexiconError(f"{origin}: {where}: {what}")


def _check_header(header: Any, origin: str, where: str) -> tuple[str, str, str]:
    if not isinstance(header, dict):
        raise _problem(origin, where, "expected a JSON object with the snapshot header")
    marker = header.get("format")
    if marker != FORMAT:
        raise _problem(origin, where, f"format is {marker!r}, expected {FORMAT!r} (is this a lexicon snapshot?)")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _problem(origin, where, "missing or non-integer field 'format_version'")
    if version > FORMAT_VERSION:
        raise _problem(origin, where, f"format_version {version} is newer than this annotator reads ({FORMAT_VERSION})")
    if version < 1:
        raise _problem(origin, where, f"format_version {version} is not a valid version")
    label = _required_str(header, "label", origin, where)
    snapshot_version = _required_str(header, "version", origin, where)
    provider = header.get("provider", "")
    if not isinstance(provider, str):
        raise _problem(origin, where, "field 'provider' must be a string")
    return label, snapshot_version, provider


def _required_str(record: Mapping[str, Any], name: str, origin: str, where: str) -> str:
    if name not in record:
        raise _problem(origin, where, f"missing field '{name}'")
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise _problem(origin, where, f"field '{name}' must be a non-empty string, got {value!r}")
    return value.strip()


def _parse_lemma(record: Any, origin: str, where: str) -> LemmaEntry:
    if not isinstance(record, dict):
        raise _problem(origin, where, "a lemma entry must be a JSON object")
    lemma = " ".join(_required_str(record, "lemma", origin, where).replace("_", " ").split())
    lang = _required_str(record, "lang", origin, where).upper()
    pos = _required_str(record, "pos", origin, where).upper()
    if "synsets" not in record:
        raise _problem(origin, where, "missing field 'synsets'")
    synsets = record["synsets"]
    if not isinstance(synsets, list) or not all(isinstance(item, str) and item.strip() for item in synsets):
        raise _problem(origin, where, "field 'synsets' must be a list of synset ids")
    return LemmaEntry(lemma, lang, pos, tuple(dict.fromkeys(item.strip() for item in synsets)))


def _parse_sense(record: Any, origin: str, where: str) -> StoredSense:
    if not isinstance(record, dict):
        raise _problem(origin, where, "a sense must be a JSON object")
    lemma = " ".join(_required_str(record, "lemma", origin, where).replace("_", " ").split())
    lang = _required_str(record, "lang", origin, where).upper()
    source = _required_str(record, "source", origin, where).upper()
    number = record.get("wordnet_sense_number")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool) or number < 1):
        raise _problem(origin, where, f"'wordnet_sense_number' must be a positive integer or null, got {number!r}")
    return (lemma, lang, source, number)


def _parse_edges(record: Mapping[str, Any], origin: str, where: str) -> Edges:
    """A synset's ``edges`` (format version 2): ``[[relation, synset id], …]``, relations among ``RELATIONS``."""
    raw = record.get("edges", [])
    if not isinstance(raw, list):
        raise _problem(origin, where, "field 'edges' must be a list of [relation, synset id] pairs")
    edges = []
    for index, edge in enumerate(raw):
        if not (isinstance(edge, list) and len(edge) == 2 and all(isinstance(part, str) and part.strip()
                                                                   for part in edge)):  # fmt: skip
            raise _problem(origin, where, f"edges[{index}] must be a [relation, synset id] pair of strings")
        if edge[0] not in RELATIONS:
            raise _problem(
                origin, where, f"edges[{index}]: unknown relation {edge[0]!r} (one of: {', '.join(RELATIONS)})"
            )
        edges.append((edge[0], edge[1].strip()))
    return tuple(edges)


@lru_cache(maxsize=100_000)
def _forms(source: str, lemma: str) -> tuple[str, ...]:
    return resolve(lemma, rules_for(source))


def _as_meant(sense: StoredSense) -> tuple[StoredSense, ...]:
    """A non-English sense with its lemma as its lexicon means it (``domain.lexicon_forms``, by the sense's
    source): one sense per form; English lemmas and lemmas no rule concerns are kept as written."""
    lemma, lang, source, number = sense
    if lang == ENGLISH:
        return (sense,)
    forms = _forms(source, lemma)
    if forms == (lemma,):
        return (sense,)
    return tuple((form, lang, source, number) for form in forms)


def _parse_synset(record: Any, origin: str, where: str) -> StoredSynset:
    if not isinstance(record, dict):
        raise _problem(origin, where, "a synset must be a JSON object")
    synset_id = _required_str(record, "id", origin, where)
    where = f"{where} (synset {synset_id})"
    pos = _required_str(record, "pos", origin, where).upper()
    glosses = record.get("glosses", {})
    if not isinstance(glosses, dict) or not all(
        isinstance(lang, str) and isinstance(text, str) for lang, text in glosses.items()
    ):
        raise _problem(origin, where, "field 'glosses' must map language codes to gloss texts")
    if "senses" not in record:
        raise _problem(origin, where, "missing field 'senses'")
    senses = record["senses"]
    if not isinstance(senses, list):
        raise _problem(origin, where, "field 'senses' must be a list")
    parsed = tuple(
        resolved
        for index, sense in enumerate(senses)
        for resolved in _as_meant(_parse_sense(sense, origin, f"{where}, senses[{index}]"))
    )
    return (synset_id, pos, tuple({lang.upper(): text for lang, text in glosses.items()}.items()), parsed)


def _build(
    origin: str,
    header: tuple[str, str, str],
    lemmas: list[tuple[str, LemmaEntry]],
    synsets: list[tuple[str, StoredSynset]],
    edges: Mapping[str, Edges] | None = None,
) -> SnapshotLexicon:
    """Cross-record checks (duplicates, dangling references) with the offending record's location."""
    seen_synsets: dict[str, str] = {}
    for where, (synset_id, *_) in synsets:
        if synset_id in seen_synsets:
            raise _problem(origin, where, f"synset {synset_id} already defined at {seen_synsets[synset_id]}")
        seen_synsets[synset_id] = where
    seen_lemmas: dict[tuple[str, str, str], str] = {}
    for where, entry in lemmas:
        if entry.key in seen_lemmas:
            raise _problem(
                origin,
                where,
                f"lemma entry {entry.lemma!r} ({entry.lang}, {entry.pos}) already defined at {seen_lemmas[entry.key]}",
            )
        seen_lemmas[entry.key] = where
        for synset_id in entry.synsets:
            if synset_id not in seen_synsets:
                raise _problem(
                    origin, where, f"lemma entry {entry.lemma!r} refers to unknown synset {synset_id} (not in the file)"
                )
    label, version, provider = header
    return SnapshotLexicon(
        label=label,
        version=version,
        provider=provider,
        lemmas=[entry for _, entry in lemmas],
        stored=[record for _, record in synsets],
        origin=origin,
        edges=edges,
    )


def _parse_json(text: str, origin: str, limits: InputLimits | None = None) -> SnapshotLexicon:
    try:
        data = parse_json(text)
    except JsonTooDeepError as exc:
        raise _problem(origin, "top level", f"the JSON is {exc.reason} [{exc.rule}]") from None
    except json.JSONDecodeError as exc:
        raise _problem(origin, f"line {exc.lineno}, column {exc.colno}", f"not valid JSON ({exc.msg})") from None
    _check_limits(data, origin, "top level", limits, text)
    del text
    return _from_json_document(data, origin)


def _from_json_document(data: Any, origin: str) -> SnapshotLexicon:
    header = _check_header(data, origin, "top level")
    lemmas_raw = data.get("lemmas", [])
    synsets_raw = data.get("synsets")
    if synsets_raw is None:
        raise _problem(origin, "top level", "missing field 'synsets'")
    if not isinstance(lemmas_raw, list):
        raise _problem(origin, "top level", "field 'lemmas' must be a list")
    if not isinstance(synsets_raw, list):
        raise _problem(origin, "top level", "field 'synsets' must be a list")
    lemmas = [(f"lemmas[{i}]", _parse_lemma(record, origin, f"lemmas[{i}]")) for i, record in enumerate(lemmas_raw)]
    synsets = [
        (f"synsets[{i}]", _parse_synset(record, origin, f"synsets[{i}]")) for i, record in enumerate(synsets_raw)
    ]
    edges = {
        synsets[i][1][0]: _parse_edges(record, origin, f"synsets[{i}]")
        for i, record in enumerate(synsets_raw)
        if "edges" in record
    }
    return _build(origin, header, lemmas, synsets, edges)


def _parse_jsonl(text: str, origin: str) -> SnapshotLexicon:
    return _parse_jsonl_lines(enumerate(text.splitlines(), start=1), origin, None)


def _parse_jsonl_lines(numbered: Iterable[tuple[int, str]], origin: str, limits: InputLimits | None) -> SnapshotLexicon:
    header: tuple[str, str, str] | None = None
    lemmas: list[tuple[str, LemmaEntry]] = []
    synsets: list[tuple[str, StoredSynset]] = []
    edges: dict[str, Edges] = {}
    for number, line in numbered:
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = parse_json(line)
        except JsonTooDeepError as exc:
            raise _problem(origin, where, f"the JSON is {exc.reason} [{exc.rule}]") from None
        except json.JSONDecodeError as exc:
            raise _problem(origin, where, f"not valid JSON ({exc.msg}, column {exc.colno})") from None
        if not isinstance(record, dict):
            raise _problem(origin, where, "each line must be a JSON object")
        _check_limits(record, origin, where, limits, line)
        kind = record.get("type")
        if header is None:
            if kind != "header":
                raise _problem(origin, where, 'the first line must be the header {"type": "header", "format": ...}')
            header = _check_header(record, origin, where)
        elif kind == "lemma":
            lemmas.append((where, _parse_lemma(record, origin, where)))
        elif kind == "synset":
            synsets.append((where, _parse_synset(record, origin, where)))
            if "edges" in record:
                edges[synsets[-1][1][0]] = _parse_edges(record, origin, where)
        elif kind == "header":
            raise _problem(origin, where, "a second header line")
        else:
            raise _problem(origin, where, f"unknown record type {kind!r} (expected 'lemma' or 'synset')")
    if header is None:
        raise _problem(origin, "line 1", "empty file: no snapshot header")
    return _build(origin, header, lemmas, synsets, edges)


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
    data = snapshot_data(
        label=label, version=version, provider=provider, lemmas=lemmas, synsets=synsets, edges=edges
    )
    if chosen == "jsonl":
        text = "\n".join(_jsonl_lines(data)) + "\n"
    else:
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    write_text_atomic(path, text)
    return path


# --- BabelNet cache → snapshot ------------------------------------------------------------------------


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
