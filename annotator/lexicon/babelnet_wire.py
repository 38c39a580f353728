"""BabelNet's wire format: the requests' parameters, the answers read
as synset ids and ``SynsetRecord``s (shared with the snapshot export), the key blanked out of any answer, and what
makes a getSynset answer unusable.

Wire shapes (checked against BabelNet's published API description and its official Python client):

* ``getSynsetIds?lemma=…&searchLang=EN&pos=NOUN&key=…`` answers ``[{"id": "bn:…n", "pos": "NOUN",
  "source": "BABELNET"}, …]``.
* ``getSynset?id=…&targetLang=EN&targetLang=IT…&key=…`` answers ``{"senses": [{"type": "WordNetSense" |
  "BabelSense", "properties": {"fullLemma", "simpleLemma", "source", "language", "pos", "synsetID": {…},
  "wordNetSenseNumber" (WordNetSense only), …}}, …], "glosses": [{"source", "sourceSense", "language",
  "gloss", "tokens"}, …], …}``. The WordNet sense number sits inside ``properties``.
* A refused key or a spent daily allowance answers ``{"message": "Your key is not valid or the daily
  requests limit has been reached. …"}`` — the same message for both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

from annotator.lexicon.base import ENGLISH, LexiconError, LexSense, SynsetRecord
from annotator.lexicon.http_cache import API_KEY_PARAM
from annotator.lexicon.wordnet_relations import RELATIONS

SYNSET_IDS_ENDPOINT = "getSynsetIds"
SYNSET_ENDPOINT = "getSynset"
EDGES_ENDPOINT = "getOutgoingEdges"
ENDPOINTS = (SYNSET_IDS_ENDPOINT, SYNSET_ENDPOINT, EDGES_ENDPOINT)

#: BabelNet's pointers (by WordNet symbol, then by name) as the relation kinds related-sense suggestions follow
#: (the wordnet path's names: ``wordnet_relations.RELATIONS``); any other edge (meronyms, Wikipedia's
#: "semantically related", gloss relations…) is not one a translator finds a missing word through.
POINTER_RELATIONS = {
    "@": "hypernym", "@i": "instance_hypernym", "~": "hyponym", "&": "similar", "^": "also", "$": "verb_group",
    "*": "entails", "+": "derivation",
}  # fmt: skip
POINTER_NAMES = {
    "hypernym": "hypernym", "instance hypernym": "instance_hypernym", "hyponym": "hyponym", "similar to": "similar",
    "also see": "also", "verb group": "verb_group", "entailment": "entails",
    "derivationally related form": "derivation",
}  # fmt: skip
#: Related synsets kept per synset at most (each costs getSynset requests of the daily allowance when first asked
#: for): the first in the relations' order, so hyponyms (the longest lists, the least often right) are left out.
MAX_RELATED = 10

#: getSynset accepts at most this many targetLang values besides English.
MAX_EXTRA_TARGET_LANGS = 3

#: BabelNet's answers are a handful of levels deep; deeper is refused (it could not be stored back either).
MAX_ANSWER_DEPTH = 64
REDACTED = "<redacted>"

_UPOS_BY_ID_SUFFIX = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}
_TRAILING_QUALIFIER = re.compile(r"^(?P<lemma>.*?\S)\s*\([^()]*\)$")


def clean_lemma(text: str) -> str:
    """BabelNet lemma → our lemma: underscores become spaces, whitespace collapses, and a trailing
    disambiguation qualifier (Wikipedia's ``Shot_(drink)``) is dropped because it is not a translation.
    """
    cleaned = " ".join(text.replace("_", " ").split())
    match = _TRAILING_QUALIFIER.match(cleaned)
    return match.group("lemma") if match else cleaned


def language_chunks(langs: Iterable[str]) -> list[tuple[str, ...]]:
    """Sorted non-English languages in groups of three: one getSynset call each (at least one call).

    Sorting makes the grouping — and so the cache keys — the same whatever order the caller used.
    """
    extra = sorted({lang.strip().upper() for lang in langs} - {ENGLISH, ""})
    if not extra:
        return [()]
    return [
        tuple(extra[start : start + MAX_EXTRA_TARGET_LANGS]) for start in range(0, len(extra), MAX_EXTRA_TARGET_LANGS)
    ]


def synset_request_params(synset_id: str, chunk: Sequence[str]) -> list[tuple[str, str]]:
    """getSynset parameters for one chunk: English always, then the chunk's languages."""
    return [("id", synset_id), ("targetLang", ENGLISH), *(("targetLang", lang) for lang in chunk)]


def synset_ids_request_params(lemma: str, lang: str, pos: str) -> list[tuple[str, str]]:
    return [("lemma", lemma.strip()), ("searchLang", lang.strip().upper()), ("pos", pos.strip().upper())]


def edges_request_params(synset_id: str) -> list[tuple[str, str]]:
    return [("id", synset_id)]


def _edge_relation(pointer: Any) -> str | None:
    if not isinstance(pointer, dict):
        return None
    symbol, name = pointer.get("fSymbol"), pointer.get("name")
    found = POINTER_RELATIONS.get(symbol) if isinstance(symbol, str) else None
    if found is None and isinstance(name, str):
        found = POINTER_NAMES.get(" ".join(name.replace("_", " ").split()).casefold())
    return found


def parse_edges(body: Any, synset_id: str = "") -> list[tuple[str, str]]:
    """(relation, target synset id) of a getOutgoingEdges answer (``[{"pointer": {"fSymbol", "name", …},
    "target": "bn:…", …}, …]``): only the kinds suggestions follow, in their order (``RELATIONS``), each target
    once, never ``synset_id`` itself, at most ``MAX_RELATED``."""
    if not isinstance(body, list):
        raise LexiconError(f"BabelNet getOutgoingEdges answered {type(body).__name__}, expected a list of edges.")
    order = {relation: number for number, relation in enumerate(RELATIONS)}
    links = []
    for position, edge in enumerate(body):
        if not isinstance(edge, dict) or not isinstance(edge.get("target"), str) or not edge["target"].strip():
            continue
        relation = _edge_relation(edge.get("pointer"))
        if relation is not None:
            links.append((order[relation], position, relation, edge["target"].strip()))
    seen: set[str] = {synset_id}
    kept: list[tuple[str, str]] = []
    for _order, _position, relation, target in sorted(links):
        if target not in seen and len(kept) < MAX_RELATED:
            seen.add(target)
            kept.append((relation, target))
    return kept


def parse_synset_ids(body: Any, pos: str | None = None) -> list[str]:
    """Synset ids of a getSynsetIds answer, in BabelNet's order, restricted to ``pos``, without repeats."""
    if not isinstance(body, list):
        raise LexiconError(f"BabelNet getSynsetIds answered {type(body).__name__}, expected a list of synset ids.")
    wanted = pos.upper() if pos else None
    ids: dict[str, None] = {}
    for entry in body:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        entry_pos = entry.get("pos")
        if wanted is not None and isinstance(entry_pos, str) and entry_pos.upper() != wanted:
            continue
        ids.setdefault(entry["id"], None)
    return list(ids)


def _sense_number(raw: Mapping[str, Any], props: Mapping[str, Any]) -> int | None:
    # Real answers carry it in properties; accept a top-level copy too rather than lose the rank.
    value = props.get("wordNetSenseNumber", raw.get("wordNetSenseNumber"))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = int(value)
    return number if number > 0 else None


def parse_sense(raw: Any) -> LexSense | None:
    """One sense of a getSynset answer, or None if it lacks a lemma, language or source."""
    if not isinstance(raw, dict):
        return None
    props = raw.get("properties")
    if not isinstance(props, dict):
        props = raw
    lemma = props.get("fullLemma") or props.get("simpleLemma") or props.get("lemma")
    if isinstance(lemma, dict):
        lemma = lemma.get("lemma")
    lang, source = props.get("language"), props.get("source")
    if not (isinstance(lemma, str) and isinstance(lang, str) and isinstance(source, str)):
        return None
    lemma = clean_lemma(lemma)
    if not lemma:
        return None
    lang, source = lang.upper(), source.upper()
    number = None
    if raw.get("type") == "WordNetSense" and source == "WN" and lang == ENGLISH:
        number = _sense_number(raw, props)
    return LexSense(lemma=lemma, lang=lang, source=source, wordnet_sense_number=number)


def _synset_pos(synset_id: str, bodies: Sequence[Mapping[str, Any]]) -> str:
    for body in bodies:
        for raw in body.get("senses") or ():
            props = raw.get("properties") if isinstance(raw, dict) else None
            synset_ref = props.get("synsetID") if isinstance(props, dict) else None
            if isinstance(synset_ref, dict) and isinstance(synset_ref.get("pos"), str):
                return synset_ref["pos"].upper()
    return _UPOS_BY_ID_SUFFIX.get(synset_id[-1:].lower(), "") if synset_id else ""


def pick_glosses(raw_glosses: Iterable[Any], langs: Iterable[str] | None = None) -> dict[str, str]:
    """lang → the first gloss in that language; for English the first WordNet gloss is preferred."""
    wanted = None if langs is None else {lang.upper() for lang in langs}
    first: dict[str, str] = {}
    english_wordnet: str | None = None
    for raw in raw_glosses:
        if not isinstance(raw, dict):
            continue
        lang, text = raw.get("language"), raw.get("gloss")
        if not (isinstance(lang, str) and isinstance(text, str) and text.strip()):
            continue
        lang = lang.upper()
        if wanted is not None and lang not in wanted:
            continue
        first.setdefault(lang, text.strip())
        source = raw.get("source")
        if lang == ENGLISH and english_wordnet is None and isinstance(source, str) and source.upper() == "WN":
            english_wordnet = text.strip()
    if english_wordnet is not None:
        first[ENGLISH] = english_wordnet
    return first


def order_senses(senses: Iterable[LexSense]) -> tuple[LexSense, ...]:
    """Distinct senses, English first, then by language code, keeping BabelNet's order within a language.

    A fixed order makes the merged answer independent of how the languages were chunked.
    """
    distinct = list(dict.fromkeys(senses))
    return tuple(sorted(distinct, key=lambda sense: (sense.lang != ENGLISH, sense.lang)))


def build_synset_record(synset_id: str, bodies: Sequence[Any], langs: Iterable[str] | None = None) -> SynsetRecord:
    """Merge the getSynset answers of one synset (one per language chunk) into a ``SynsetRecord``.

    ``langs`` limits senses and glosses to English plus those languages (None keeps everything).
    """
    checked: list[Mapping[str, Any]] = []
    for body in bodies:
        if not isinstance(body, dict) or not isinstance(body.get("senses", []), list):
            raise LexiconError(f"BabelNet getSynset for {synset_id} answered an unexpected shape (no 'senses' list).")
        checked.append(body)
    wanted = None if langs is None else {ENGLISH, *(lang.upper() for lang in langs)}
    senses = (parse_sense(raw) for body in checked for raw in body.get("senses") or ())
    kept = [sense for sense in senses if sense is not None and (wanted is None or sense.lang in wanted)]
    glosses = pick_glosses((raw for body in checked for raw in body.get("glosses") or ()), wanted)
    return SynsetRecord(id=synset_id, pos=_synset_pos(synset_id, checked), glosses=glosses, senses=order_senses(kept))


def describe_request(endpoint: str, params: Iterable[tuple[str, str]]) -> str:
    """A readable request description for messages: ``getSynset id=bn:… targetLang=EN`` (never the key)."""
    shown = " ".join(f"{name}={value}" for name, value in params if name != API_KEY_PARAM)
    return f"{endpoint} {shown}".strip()


def api_version(base_url: str) -> str:
    """``v9`` from ``https://babelnet.io/v9/``; ``unknown`` when the URL has no version segment."""
    segments = [segment for segment in urlparse(base_url).path.split("/") if segment]
    for segment in reversed(segments):
        if re.fullmatch(r"v\d+", segment, flags=re.IGNORECASE):
            return segment.lower()
    return "unknown"


def redact_key(body: Any, secret: str) -> tuple[Any, bool]:
    """``body`` (parsed JSON) with every occurrence of ``secret`` (any case) in strings and object keys blanked
    out, and whether there was one. Iterative; a body nested deeper than ``MAX_ANSWER_DEPTH`` is refused.
    """
    pattern = re.compile(re.escape(secret), re.IGNORECASE)
    found = False

    def clean(text: str) -> str:
        nonlocal found
        cleaned = pattern.sub(REDACTED, text)
        found = found or cleaned != text
        return cleaned

    if isinstance(body, str):
        return clean(body), found
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_ANSWER_DEPTH:
            raise LexiconError(f"BabelNet answered JSON nested more than {MAX_ANSWER_DEPTH} levels deep; refused.")
        if isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, str):
                    node[index] = clean(value)
                elif isinstance(value, list | dict):
                    stack.append((value, depth + 1))
        elif isinstance(node, dict):
            for name in list(node):
                value = node[name]
                if isinstance(value, str):
                    value = clean(value)
                elif isinstance(value, list | dict):
                    stack.append((value, depth + 1))
                new_name = clean(name)
                if new_name != name:
                    del node[name]
                node[new_name] = value
    return body, found


def synset_answer_problem(body: Any) -> str | None:
    """Why a getSynset answer cannot be used (None when it can): not an object, no senses, no English sense.

    Every getSynset request asks for English, and every synset pre-population asks about has an English
    lemma, so an answer without one is a broken or hostile server, never a fact to record.
    """
    if not isinstance(body, dict):
        return f"{type(body).__name__}, expected an object"
    senses = body.get("senses")
    if not senses:
        return "no senses"
    if not isinstance(senses, list):
        return "'senses' that is not a list"
    if not any(sense is not None and sense.lang == ENGLISH for sense in map(parse_sense, senses)):
        return "no English sense"
    return None


def is_refusal(status: int, message: str) -> bool:
    """Is a ``{"message": ...}`` answer the key/daily-limit refusal (stop the run) rather than a bad request?

    BabelNet uses one message for an invalid key and a spent allowance; it names the key and the limit.
    Other messages ("Wrong parameters.") on a 400/404 are plain errors in this request.
    """
    lowered = message.lower()
    return status in (401, 403) or "key" in lowered or "limit" in lowered
