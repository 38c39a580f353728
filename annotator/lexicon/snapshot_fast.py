"""A snapshot read by a compiled decoder: the fast path of ``snapshot_read`` (a JSON file whole, a JSONL file line
by line).

``msgspec`` decodes the file's lemmas and synsets straight into typed records (no dict per sense) and refuses
anything off their shape: an unknown field, a value of another type, invalid JSON. The records are then tidied by
the rules the checked reader applies (``snapshot_records``). Any doubt — a refusal, a record breaking a rule, a
duplicate or a dangling reference, a string that may be over-long or a lone surrogate, a header nested too deep —
gives None, and the checked reader reads the file to name the problem: this path only ever answers what the checked
one would, and never words a refusal itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Annotated, Any

import msgspec

from annotator.data_import.limits import (
    MAX_JSON_DEPTH,
    InputLimits,
    json_too_deep,
    may_hold_long_bytes,
    may_hold_long_string,
    may_hold_surrogate,
    may_hold_surrogate_bytes,
)
from annotator.lexicon.base import ENGLISH, LexiconError
from annotator.lexicon.snapshot_format import Edges, LemmaEntry, StoredSense, StoredSynset
from annotator.lexicon.snapshot_records import ParsedSnapshot, as_meant, check_header
from annotator.lexicon.wordnet_relations import RELATIONS


class _Sense(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    lemma: str
    lang: str
    source: str
    wordnet_sense_number: Annotated[int, msgspec.Meta(ge=1)] | None = None


class _Synset(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    pos: str
    senses: list[_Sense]
    glosses: dict[str, str] = {}
    edges: list[tuple[str, str]] | msgspec.UnsetType = msgspec.UNSET


class _Lemma(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    lemma: str
    lang: str
    pos: str
    synsets: list[str]


#: The document's top level, each value kept as its JSON text: the header's fields are parsed as the checked reader
#: parses them (any value), the lemmas and synsets by the typed decoders.
_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])
_LEMMAS = msgspec.json.Decoder(list[_Lemma])
#: The synsets one at a time (each record's text, then the record): a record is dropped once tidied, so the typed
#: records of the whole file never fill memory beside the tidied ones.
_TEXTS = msgspec.json.Decoder(list[msgspec.Raw])
_SYNSET = msgspec.json.Decoder(_Synset)


class _SynsetLine(_Synset, forbid_unknown_fields=True, gc=False):
    type: str = ""  # a JSONL record's kind: checked after decoding


class _LemmaLine(_Lemma, forbid_unknown_fields=True, gc=False):
    type: str = ""


_SYNSET_LINE = msgspec.json.Decoder(_SynsetLine)
_LEMMA_LINE = msgspec.json.Decoder(_LemmaLine)


class _Doubt(Exception):
    """A record the checked reader may answer otherwise (refuse, or tidy in its own way)."""


def parse_json_snapshot(data: bytes, origin: str, limits: InputLimits) -> ParsedSnapshot | None:
    """What the checked reader makes of the UTF-8 JSON text ``data``, or None when that is not certain."""
    if may_hold_surrogate_bytes(data) or may_hold_long_bytes(data, limits.max_cell_chars):
        return None  # the checked reader walks such a file's values to name the field
    try:
        top = _TOP.decode(data)
        if "synsets" not in top:
            return None
        fields = {key: _header_value(raw) for key, raw in top.items() if key not in ("lemmas", "synsets")}
        label, version, provider = check_header(fields, origin, "top level")
        lemmas = [_lemma(entry) for entry in _LEMMAS.decode(top["lemmas"])] if "lemmas" in top else []
        synsets, edges = _synsets(map(_SYNSET.decode, _TEXTS.decode(top["synsets"])), {})
    except (msgspec.MsgspecError, RecursionError, ValueError, LexiconError, _Doubt):
        return None
    known = {record[0] for record in synsets}
    if len(known) != len(synsets) or len({entry.key for entry in lemmas}) != len(lemmas):
        return None
    if any(synset_id not in known for entry in lemmas for synset_id in entry.synsets):
        return None
    return ParsedSnapshot(origin, label, version, provider, lemmas, synsets, edges, fields)


def parse_jsonl_record(
    line: str, limits: InputLimits, kept: dict[str, str]
) -> LemmaEntry | tuple[StoredSynset, Edges | None] | None:
    """A lemma or synset line of a JSONL snapshot, after its header, as the checked reader reads it: the lemma entry,
    or the synset and its relations (None when it lists none); None when that is not certain. ``kept``: as
    ``_synsets`` takes it, one for the whole file."""
    if may_hold_surrogate(line) or may_hold_long_string(line, limits.max_cell_chars):
        return None
    try:
        try:
            record = _SYNSET_LINE.decode(line)
        except msgspec.ValidationError:  # not a synset's fields (malformed JSON is a DecodeError: no second try)
            entry = _LEMMA_LINE.decode(line)
            return _lemma(entry) if entry.type == "lemma" else None
        if record.type != "synset":
            return None
        (stored,), edges = _synsets((record,), kept)
    except (msgspec.MsgspecError, RecursionError, ValueError, _Doubt):
        return None
    return stored, edges.get(stored[0])


def _header_value(raw: msgspec.Raw) -> Any:
    """A header field as the standard library parses it; nested as deep as the whole document may be, less one."""
    text = bytes(raw).decode("utf-8")
    if json_too_deep(text, MAX_JSON_DEPTH - 1):
        raise _Doubt
    return json.loads(text)


def _lemma(entry: _Lemma) -> LemmaEntry:
    lang, pos = entry.lang.strip(), entry.pos.strip()
    if not (entry.lemma.strip() and lang and pos and all(item.strip() for item in entry.synsets)):
        raise _Doubt
    lemma = " ".join(entry.lemma.replace("_", " ").split())
    return LemmaEntry(lemma, lang.upper(), pos.upper(), tuple(dict.fromkeys(item.strip() for item in entry.synsets)))


def _synsets(records: Iterable[_Synset], kept: dict[str, str]) -> tuple[list[StoredSynset], dict[str, Edges]]:
    """The synsets as the checked reader keeps them, and the relations of those that list theirs. ``kept``: each
    language or source as written → as kept, filled as they come (a file repeats a few on every sense)."""
    synsets: list[StoredSynset] = []
    edges: dict[str, Edges] = {}
    for record in records:
        synset_id, pos = record.id.strip(), record.pos.strip()
        if not synset_id or not pos:
            raise _Doubt
        senses: list[StoredSense] = []
        for sense in record.senses:
            number = sense.wordnet_sense_number
            lang = kept.get(sense.lang) or _kept(kept, sense.lang)
            source = kept.get(sense.source) or _kept(kept, sense.source)
            lemma = sense.lemma
            if not lemma.isalnum():
                lemma = " ".join(lemma.replace("_", " ").split())
                if not lemma:
                    raise _Doubt
                if lang != ENGLISH and not lemma.replace(" ", "").isalnum():
                    senses.extend(as_meant((lemma, lang, source, number)))
                    continue
            senses.append((lemma, lang, source, number))
        glosses = tuple({code.upper(): text for code, text in record.glosses.items()}.items())
        synsets.append((synset_id, pos.upper(), glosses, tuple(senses)))
        if record.edges is not msgspec.UNSET:
            edges[synset_id] = _edges(record.edges)
    return synsets, edges


def _kept(kept: dict[str, str], written: str) -> str:
    """A sense's language or source as the checked reader keeps it (trimmed, upper case), remembered."""
    value = kept[written] = written.strip().upper()
    if not value:
        raise _Doubt
    return value


def _edges(pairs: list[tuple[str, str]]) -> Edges:
    if not all(relation.strip() and target.strip() and relation in RELATIONS for relation, target in pairs):
        raise _Doubt
    return tuple((relation, target.strip()) for relation, target in pairs)
