"""The compiled reader of JSON snapshots (``snapshot_fast``) answers only what the checked reader would: on random
snapshots, well-formed or broken in any of the ways a file can be, it either gives the checked reader's exact
``ParsedSnapshot`` or steps aside, and ``read_snapshot_file`` then refuses with the checked reader's own message."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.data_import.limits import MAX_JSON_DEPTH, InputLimits
from annotator.lexicon.base import LexiconError
from annotator.lexicon.snapshot_fast import parse_json_snapshot, parse_jsonl_record
from annotator.lexicon.snapshot_format import lemma_lookup_key
from annotator.lexicon.snapshot_read import ParsedSnapshot, parse_snapshot_json, read_snapshot_file
from annotator.lexicon.wordnet_relations import RELATIONS
from annotator.project import builtin_path

LIMITS = InputLimits()
ORIGIN = "snapshot.json"
ABSENT = object()

#: Lemmas with the marks the form rules resolve (COW's ``+``, ``...``, brackets; ItalWordNet's apostrophe and
#: hyphens; Wiktionary's trailing hyphen), underscores and odd spaces, and letters of several scripts.
LEMMA_CHARS = [*"ab_ -.+()[]'é中Ж", "\t", "..."]
LANGS = ["EN", "en", " de ", "ZH", "it", "RU"]
SOURCES = ["WN", "omw-cmn", "OMWN_IT", "omw-iwn", "wikt-de", "WIKT", " cow "]
IDS = ["bn:1n", "bn:2n", " bn:3n ", "bn:4n"]


def _text(chars: list[str], max_size: int = 6) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(chars), max_size=max_size).map("".join)


def _record(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object of these fields, those drawn as ``ABSENT`` left out."""
    return st.fixed_dictionaries(fields).map(lambda record: {k: v for k, v in record.items() if v is not ABSENT})


def _well_formed() -> st.SearchStrategy[dict[str, Any]]:
    """A snapshot document the checked reader accepts."""
    written = _text(LEMMA_CHARS).filter(lambda text: text.replace("_", " ").strip())  # "_" alone: see the mutations
    sense = _record({
        "lemma": written,
        "lang": st.sampled_from(LANGS),
        "source": st.sampled_from(SOURCES),
        "wordnet_sense_number": st.one_of(st.none(), st.integers(1, 5), st.just(ABSENT)),
    })  # fmt: skip
    edge = st.tuples(st.sampled_from(sorted(RELATIONS)), st.sampled_from(IDS)).map(list)
    glosses = st.dictionaries(st.sampled_from(["EN", "en", "de", "DE", "Zh"]), _text(LEMMA_CHARS))
    synset = _record({
        "id": st.sampled_from(IDS),
        "pos": st.sampled_from(["NOUN", "noun", " VERB "]),
        "glosses": st.one_of(st.just(ABSENT), glosses),
        "senses": st.lists(sense, max_size=4),
        "edges": st.one_of(st.just(ABSENT), st.lists(edge, max_size=3)),
    })  # fmt: skip
    lemma = _record({
        "lemma": written,
        "lang": st.sampled_from(LANGS),
        "pos": st.sampled_from(["NOUN", "noun", " VERB "]),
        "synsets": st.lists(st.sampled_from(IDS), max_size=3),
    })  # fmt: skip
    licence = st.recursive(st.text(max_size=4) | st.integers() | st.none(), lambda inner: st.lists(inner, max_size=2))
    return _record({
        "format": st.just("annotator-lexicon-snapshot"),
        "format_version": st.sampled_from([1, 2]),
        "label": st.just("test"),
        "version": st.just("1"),
        "provider": st.sampled_from(["", "babelnet", ABSENT]),
        "licence": st.one_of(st.just(ABSENT), licence),
        "lemmas": st.one_of(st.just(ABSENT), st.lists(lemma, max_size=3)),
        "synsets": st.lists(synset, min_size=1, max_size=4),
    }).map(_consistent)  # fmt: skip


def _consistent(document: dict[str, Any]) -> dict[str, Any]:
    """Each synset once; each lemma entry once, naming only synsets in the file."""
    synsets = {record["id"].strip(): record for record in document["synsets"]}
    document["synsets"] = list(synsets.values())
    entries: dict[tuple[str, str, str], dict[str, Any]] = {}
    for entry in document.get("lemmas", []):
        entry["synsets"] = [synset_id for synset_id in entry["synsets"] if synset_id.strip() in synsets]
        key = (lemma_lookup_key(entry["lemma"]), entry["lang"].strip().upper(), entry["pos"].strip().upper())
        entries.setdefault(key, entry)
    if "lemmas" in document:
        document["lemmas"] = list(entries.values())
    return document


DROP, TWICE = object(), object()
#: (record kind, field, value): a field set to a value the checked reader refuses or reads its own way, dropped
#: (``DROP``), or the whole record written twice (``TWICE``).
MUTATIONS = [
    *(("header", "format", value) for value in ("other", DROP)),
    *(("header", "format_version", value) for value in (3, 0, True, "2", DROP)),
    *(("header", "label", value) for value in ("", " ", 4, DROP)),
    ("header", "version", ""), ("header", "provider", 3), ("header", "lemmas", None), ("header", "lemmas", {}),
    ("header", "synsets", None), ("header", "synsets", DROP), ("header", "note", float("nan")),
    ("header", "licence", [[[["deep"]]]]), ("header", "licence", 10**30), ("header", "licence", "é\ud800"),
    *(("synset", "id", value) for value in ("", " ", 7, DROP)),
    *(("synset", "pos", value) for value in ("", None, DROP)),
    *(("synset", "glosses", value) for value in (None, [], {"EN": 1})),
    *(("synset", "senses", value) for value in (None, {}, DROP, [[]], [None])),
    *(("synset", "edges", value) for value in (None, [["hypernym"]], [[1, 2]], [["bogus", "bn:1n"]],
                                                [[" hypernym", "bn:1n"]], [["hypernym", " "]], [])),
    ("synset", "note", "an unknown field"), ("synset", None, TWICE),
    *(("sense", "lemma", value) for value in (3, None, DROP, "_", "_ _", " ", "a\tb", "a  b")),
    *(("sense", "lang", value) for value in ("", " ", 1, DROP, "en ")),
    *(("sense", "source", value) for value in ("", None, " omw-cmn ")),
    *(("sense", "wordnet_sense_number", value) for value in (0, -1, True, 1.0, "2", 10**30)),
    ("sense", "note", 1),
    *(("lemma", "lemma", value) for value in (3, DROP, "_", " ")),
    ("lemma", "lang", ""), ("lemma", "pos", " "), ("lemma", None, TWICE),
    *(("lemma", "synsets", value) for value in ([""], "bn:1n", [1], ["bn:9n"], DROP, [" bn:1n", "bn:1n"])),
]  # fmt: skip


def _mutated(document: dict[str, Any], mutations: list[tuple[tuple[str, Any, Any], int]]) -> dict[str, Any]:
    document = copy.deepcopy(document)
    for (kind, field, value), index in mutations:
        synsets = [record for record in document.get("synsets") or [] if isinstance(record, dict)]
        records = {
            "header": [document],
            "synset": synsets,
            "sense": [sense for record in synsets for sense in record.get("senses") or [] if isinstance(sense, dict)],
            "lemma": [entry for entry in document.get("lemmas") or [] if isinstance(entry, dict)],
        }[kind]
        if not records:
            continue
        record = records[index % len(records)]
        if value is TWICE:
            (document["synsets"] if kind == "synset" else document["lemmas"]).append(copy.deepcopy(record))
        elif value is DROP:
            record.pop(field, None)
        else:
            record[field] = value
    return document


def _read(path: Path, *, compiled: bool = True) -> ParsedSnapshot | str:
    """What reading the file gives: the snapshot, or the message (``compiled`` False: the checked reader alone)."""
    try:
        return read_snapshot_file(path, LIMITS, compiled=compiled)._replace(origin=ORIGIN)
    except LexiconError as error:
        return str(error).replace(str(path), ORIGIN)


def _agrees(text: str, tmp_path: Path) -> ParsedSnapshot | None:
    """Both readers on ``text`` as a JSON file: the compiled one's answer is the checked one's or None, and reading
    the file gives the checked answer (message included). Returns the compiled answer."""
    data = text.encode("utf-8", "surrogatepass")  # a lone surrogate written as is: no UTF-8 a file can hold
    path = tmp_path / "snapshot.json"
    path.write_bytes(data)
    checked = _read(path, compiled=False)
    fast = parse_json_snapshot(data, ORIGIN, LIMITS)
    if fast is not None:
        assert fast == checked
    assert _read(path) == checked
    return fast


def _lines_agree(document: dict[str, Any], tmp_path: Path) -> int:
    """The document as a JSONL file: read alike with and without the compiled reader. Returns how many of its record
    lines the compiled reader answers."""
    lines: list[Any] = [{"type": "header", **{k: v for k, v in document.items() if k not in ("lemmas", "synsets")}}]
    for kind in ("lemma", "synset"):
        records = document.get(kind + "s")
        lines.extend({"type": kind, **record} if isinstance(record, dict) else record
                     for record in (records if isinstance(records, list) else []))  # fmt: skip
    path = tmp_path / "snapshot.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert _read(path) == _read(path, compiled=False)
    return sum(parse_jsonl_record(json.dumps(line), LIMITS, {}) is not None for line in lines[1:])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_well_formed())
def test_on_well_formed_snapshots_the_compiled_reader_answers_exactly_as_the_checked_one(
    document: dict[str, Any], tmp_path: Path
) -> None:
    text = json.dumps(document, ensure_ascii=False)
    fast = _agrees(text, tmp_path)
    assert fast is not None
    assert _lines_agree(document, tmp_path) == len(document["synsets"]) + len(document.get("lemmas", []))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    document=_well_formed(),
    mutations=st.lists(st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 20)), min_size=1, max_size=2),
    ascii_only=st.booleans(),
)
def test_on_hostile_snapshots_it_answers_as_the_checked_reader_or_steps_aside(
    document: dict[str, Any], mutations: list[tuple[tuple[str, Any, Any], int]], ascii_only: bool, tmp_path: Path
) -> None:
    mutated = _mutated(document, mutations)
    _agrees(json.dumps(mutated, ensure_ascii=ascii_only), tmp_path)
    _lines_agree(mutated, tmp_path)


def _document(**changes: Any) -> dict[str, Any]:
    sense = {"lemma": "shot", "lang": "EN", "source": "WN", "wordnet_sense_number": 1}
    synset = {"id": "bn:1n", "pos": "NOUN", "glosses": {"EN": "a gloss"}, "senses": [sense]}
    document = {"format": "annotator-lexicon-snapshot", "format_version": 2, "label": "t", "version": "1"}
    lemmas = [{"lemma": "shot", "lang": "EN", "pos": "NOUN", "synsets": ["bn:1n"]}]
    return {**document, "lemmas": lemmas, "synsets": [synset], **changes}


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


SENSE = '{"lemma": "shot", "lang": "EN", "source": "WN"'
NUMBER = '"wordnet_sense_number": 1'
HOSTILE_TEXTS = {
    "duplicate keys in a sense": json.dumps(_document()).replace(f"{SENSE}", f'{SENSE}, "lemma": "second"', 1),
    "duplicate top-level keys": json.dumps(_document())[:-1] + ', "label": "again", "lemmas": [], "synsets": []}',
    "a header nested to the limit": json.dumps(_document())[:-1] + f', "x": {_nested(MAX_JSON_DEPTH - 1)}}}',
    "a header nested one deeper": json.dumps(_document())[:-1] + f', "x": {_nested(MAX_JSON_DEPTH)}}}',
    "a header nested far deeper": json.dumps(_document())[:-1] + f', "x": {_nested(5000)}}}',
    "an escaped lone surrogate": json.dumps(_document(label="a\ud800b")),
    "an escaped surrogate pair": json.dumps(_document(label="a😀b")),
    "a header field over the cell limit": json.dumps(_document(licence="x" * (LIMITS.max_cell_chars + 1))),
    "a sense number of NaN": json.dumps(_document()).replace(NUMBER, NUMBER[:-1] + "NaN"),
    "a huge sense number": json.dumps(_document()).replace(NUMBER, NUMBER + "0" * 30),
    "a trailing comma": json.dumps(_document())[:-1] + ",}",
    "a raw control character": json.dumps(_document(label="a\tb")).replace("\\t", "\t"),
    "text after the document": json.dumps(_document()) + " x",
    "an array at the top": json.dumps([_document()]),
    "an empty file": "",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HOSTILE_TEXTS))
def test_hostile_texts_get_the_checked_readers_answer(name: str, tmp_path: Path) -> None:
    text = HOSTILE_TEXTS[name]
    fast = _agrees(text, tmp_path)
    if name in ("duplicate keys in a sense", "duplicate top-level keys", "a header nested to the limit"):
        assert fast is not None


@pytest.mark.parametrize(
    "encoded",
    [
        b"\xef\xbb\xbf" + json.dumps(_document()).encode(),  # a byte-order mark
        json.dumps(_document()).encode("utf-16"),
        json.dumps(_document(label="caf\u00e9"), ensure_ascii=False).encode().replace(b"\xc3\xa9", b"\xe9"),  # Latin-1
        json.dumps(_document(label="a\ud800b"), ensure_ascii=False).encode("utf-8", "surrogatepass"),
    ],
)
def test_a_file_of_another_encoding_or_broken_utf8_is_read_as_before(encoded: bytes, tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    path.write_bytes(encoded)
    assert parse_json_snapshot(encoded, ORIGIN, LIMITS) is None
    assert _read(path) == _read(path, compiled=False)


HEADER_LINE = json.dumps({"type": "header", **{k: v for k, v in _document().items() if k not in ("lemmas", "synsets")}})
SYNSET_LINE = '{"type": "synset", "id": "bn:1n", "pos": "NOUN", "senses": [' + SENSE + "}]}"
LEMMA_LINE = '{"type": "lemma", "lemma": "shot", "lang": "EN", "pos": "NOUN", "synsets": ["bn:1n"]}'
HOSTILE_LINES = {
    "a synset's kind given again, as lemma": [HEADER_LINE, SYNSET_LINE[:-1] + ', "type": "lemma"}', LEMMA_LINE],
    "a lemma's kind given again, as synset": [HEADER_LINE, SYNSET_LINE, LEMMA_LINE[:-1] + ', "type": "synset"}'],
    "a kind that is no string": [HEADER_LINE, SYNSET_LINE.replace('"synset"', "5")],
    "no kind": [HEADER_LINE, SYNSET_LINE.replace('"type": "synset", ', "")],
    "an unknown kind": [HEADER_LINE, SYNSET_LINE.replace('"synset"', '"sense"')],
    "a second header": [HEADER_LINE, SYNSET_LINE, HEADER_LINE],
    "a record before the header": [SYNSET_LINE, HEADER_LINE],
    "a line that is no object": [HEADER_LINE, "[1, 2]", SYNSET_LINE],
    "a synset twice": [HEADER_LINE, SYNSET_LINE, SYNSET_LINE],
    "a lemma of an unknown synset": [HEADER_LINE, LEMMA_LINE],
    "a lone surrogate": [HEADER_LINE, SYNSET_LINE.replace("shot", "sh\\ud800ot"), LEMMA_LINE],
    "a deep line": [HEADER_LINE, SYNSET_LINE[:-1] + f', "x": {_nested(5000)}}}', LEMMA_LINE],
    "well-formed, blank lines between": [HEADER_LINE, "", SYNSET_LINE, "  ", LEMMA_LINE],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HOSTILE_LINES))
def test_hostile_jsonl_lines_get_the_checked_readers_answer(name: str, tmp_path: Path) -> None:
    path = tmp_path / "snapshot.jsonl"
    path.write_text("\n".join(HOSTILE_LINES[name]) + "\n", encoding="utf-8")
    read = _read(path)
    assert read == _read(path, compiled=False)
    assert isinstance(read, str) == (name != "well-formed, blank lines between")


def test_the_demo_snapshot_is_read_by_the_compiled_reader_exactly_as_checked() -> None:
    path = builtin_path("demo/snapshot.json")
    text = path.read_text(encoding="utf-8")
    fast = parse_json_snapshot(path.read_bytes(), ORIGIN, LIMITS)
    assert fast is not None
    assert fast == parse_snapshot_json(text, ORIGIN, LIMITS)
    assert len(fast.synsets) > 10
