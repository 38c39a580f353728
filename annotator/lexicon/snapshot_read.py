"""Reading a lexicon snapshot file (JSON or JSONL), validating everything.

Loading names the file and record of the first problem. What is read is a ``ParsedSnapshot``, which
``SnapshotLexicon`` answers from. A UTF-8 JSON file, and each record line of a JSONL one, is first given to the
compiled reader (``snapshot_fast``), which answers only when this reader would answer the same; otherwise, and for
every refusal, this reader reads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from annotator.data_import.limits import (
    InputLimits,
    JsonTooDeepError,
    check_file_size,
    parse_json,
)
from annotator.gc_pause import gc_paused
from annotator.lexicon.base import ENGLISH, LexiconError
from annotator.lexicon.snapshot_bytes import check_string_runs, encoding_of, starts_with_header
from annotator.lexicon.snapshot_fast import parse_json_snapshot, parse_jsonl_record
from annotator.lexicon.snapshot_format import Edges, LemmaEntry, StoredSense, StoredSynset, header_fields
from annotator.lexicon.snapshot_records import ParsedSnapshot
from annotator.lexicon.snapshot_records import as_meant as _as_meant
from annotator.lexicon.snapshot_records import check_header as _check_header
from annotator.lexicon.snapshot_records import forms as _forms
from annotator.lexicon.snapshot_records import problem as _problem
from annotator.lexicon.snapshot_records import required_str as _required_str
from annotator.lexicon.wordnet_relations import RELATIONS


def read_snapshot_file(path: Path, limits: InputLimits | None = None, *, compiled: bool = True) -> ParsedSnapshot:
    """Read a JSON or JSONL snapshot (JSONL when the extension says so or the first line is a header).

    Within ``limits``: the file size first; a JSONL snapshot streams line by line (each line capped, each
    string within the cell limit, no lone surrogates); a JSON one is parsed whole, so it gets the smaller
    file limit. ``compiled`` False: the checked reader alone, without the compiled one (the tests compare them).
    """
    from annotator.data_import.table_rows import FileFormatError
    from annotator.data_import.tables import TextLines
    from annotator.errors import UserError

    if not path.is_file():
        raise LexiconError(f"Lexicon snapshot {path} does not exist.")
    limits = limits or InputLimits()
    origin = str(path)
    try:
        size = path.stat().st_size
        check_file_size(origin, size, limits.max_snapshot_bytes, "max_snapshot_mb")
        if path.suffix.lower() == ".jsonl" or starts_with_header(path):
            with TextLines(path, limits) as lines, gc_paused(age_survivors=True):  # as for a JSON file, below
                return parse_snapshot_lines(((lines.line, text) for text in lines), origin, limits, compiled=compiled)
        if size > limits.max_file_bytes:
            raise LexiconError(
                f"{origin}: a JSON snapshot of {size / 1024 / 1024:,.1f} MB is read whole, more than the input "
                f"limit max_file_mb ({limits.max_file_mb} MB); write it as .jsonl, which is read line by line."
            )
        check_string_runs(path, limits)
        encoding = encoding_of(path)
        if compiled and encoding == "utf-8":  # the compiled reader first; it answers only what the checks below would
            with gc_paused(age_survivors=True):
                fast = parse_json_snapshot(path.read_bytes(), origin, limits)
            if fast is not None:
                return fast
        text = path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise LexiconError(f"{path}: not UTF-8 text (byte {exc.start}).") from None
    except FileFormatError as exc:
        raise LexiconError(str(exc)) from None
    except UserError as exc:
        if isinstance(exc, LexiconError):
            raise
        raise LexiconError(str(exc)) from None
    # Parsing makes an object per record and frees nothing cyclic: the collector's passes over them would be waste.
    with gc_paused(age_survivors=True):
        return parse_snapshot_json(text, origin, limits)


def parse_snapshot_data(data: Any, origin: str = "<data>") -> ParsedSnapshot:
    """The JSON form already parsed (a dict), with the same validation as ``read_snapshot_file``."""
    return _from_json_document(data, origin)


def _check_limits(value: Any, origin: str, where: str, limits: InputLimits | None, raw: str | None = None) -> None:
    """Lone surrogates and over-long strings, named by record and field (no gloss is that long)."""
    from annotator.data_import.tables import json_value_problem

    problem = json_value_problem(value, limits or InputLimits(), raw)
    if problem is not None:
        rule, field_path, message = problem
        raise _problem(origin, f"{where}, field '{field_path}'", f"{message} [{rule}]")


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


#: A sense's (language, source) as written → as kept (upper case, trimmed): a file repeats a few of them on every sense.
_NAMES: dict[tuple[str, str], tuple[str, str]] = {}


def _parse_senses(senses: list[Any], origin: str, where: str) -> tuple[StoredSense, ...]:
    """A synset's senses, each with its lemma as its lexicon means it. A well-formed sense takes the direct path;
    any other goes through ``_parse_sense``, which names its record and rule."""
    parsed: list[StoredSense] = []
    for index, record in enumerate(senses):
        sense: StoredSense | None = None
        if type(record) is dict:
            lemma, lang, source = record.get("lemma"), record.get("lang"), record.get("source")
            number = record.get("wordnet_sense_number")
            if (
                type(lemma) is str and type(lang) is str and type(source) is str
                and (number is None or (type(number) is int and number >= 1))
            ):  # fmt: skip
                names = _NAMES.get((lang, source))
                if names is None:
                    if len(_NAMES) >= 1_000:
                        _NAMES.clear()  # bounded: a file may name any number of them
                    names = _NAMES[(lang, source)] = (lang.strip().upper(), source.strip().upper())
                lang, source = names
                if lemma.isalnum() and lang and source:  # one plain word: nothing to tidy, no form rule concerns it
                    parsed.append((lemma, lang, source, number))
                    continue
                lemma = " ".join(lemma.replace("_", " ").split())
                if lemma and lang and source:
                    if lang == ENGLISH or lemma.replace(" ", "").isalnum():  # as ``_forms`` decides, without a call
                        parsed.append((lemma, lang, source, number))
                        continue
                    sense = (lemma, lang, source, number)
        if sense is None:
            sense = _parse_sense(record, origin, f"{where}, senses[{index}]")
        if sense[1] == ENGLISH or _forms(sense[2], sense[0]) == (sense[0],):
            parsed.append(sense)
        else:
            parsed.extend(_as_meant(sense))
    return tuple(parsed)


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
    parsed = _parse_senses(senses, origin, where)
    return (synset_id, pos, tuple({lang.upper(): text for lang, text in glosses.items()}.items()), parsed)


def _build(
    origin: str,
    header: tuple[str, str, str],
    fields: dict[str, Any],
    lemmas: list[tuple[str, LemmaEntry]],
    synsets: list[tuple[str, StoredSynset]],
    edges: Mapping[str, Edges] | None = None,
) -> ParsedSnapshot:
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
    return ParsedSnapshot(
        origin, label, version, provider, [entry for _, entry in lemmas], [record for _, record in synsets],
        dict(edges or {}), fields,
    )  # fmt: skip


def parse_snapshot_json(text: str, origin: str, limits: InputLimits | None = None) -> ParsedSnapshot:
    """A JSON snapshot's text read by the checked reader: every problem named by record and rule."""
    try:
        data = parse_json(text)
    except JsonTooDeepError as exc:
        raise _problem(origin, "top level", f"the JSON is {exc.reason} [{exc.rule}]") from None
    except json.JSONDecodeError as exc:
        raise _problem(origin, f"line {exc.lineno}, column {exc.colno}", f"not valid JSON ({exc.msg})") from None
    _check_limits(data, origin, "top level", limits, text)
    del text
    return _from_json_document(data, origin)


def _from_json_document(data: Any, origin: str) -> ParsedSnapshot:
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
    return _build(origin, header, header_fields(data), lemmas, synsets, edges)


def parse_snapshot_lines(
    numbered: Iterable[tuple[int, str]], origin: str, limits: InputLimits | None, *, compiled: bool = True
) -> ParsedSnapshot:
    """A JSONL snapshot's (line number, line) pairs; each record line after the header is first given to the
    compiled reader (unless ``compiled`` is False), which answers only what this reader would."""
    header: tuple[str, str, str] | None = None
    fields: dict[str, Any] = {}
    lemmas: list[tuple[str, LemmaEntry]] = []
    synsets: list[tuple[str, StoredSynset]] = []
    edges: dict[str, Edges] = {}
    kept: dict[str, str] = {}
    for number, line in numbered:
        if not line.strip():
            continue
        where = f"line {number}"
        fast = parse_jsonl_record(line, limits or InputLimits(), kept) if compiled and header is not None else None
        if isinstance(fast, LemmaEntry):
            lemmas.append((where, fast))
            continue
        if fast is not None:
            synsets.append((where, fast[0]))
            if fast[1] is not None:
                edges[fast[0][0]] = fast[1]
            continue
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
            header, fields = _check_header(record, origin, where), header_fields(record)
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
    return _build(origin, header, fields, lemmas, synsets, edges)
