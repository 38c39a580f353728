"""The lines of an export: ``dataset.jsonl`` (SPEC §7, compact JSON in a fixed field order) and ``discarded.jsonl``.

Candidate lists are spliced in as the stored JSON text when they are already in exported form (most are), so a
large export does not decode and re-encode every list.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

from annotator.domain.model import Status
from annotator.store.double_curation import CopySetsRow
from annotator.store.items import ItemRow
from annotator.store.repository import CandidateSetsRow

#: A ``"pos"`` key with a string value: only such candidates (cross-PoS) are written differently from how they
#: are stored. A ``"`` inside a JSON string is always escaped, so this cannot match inside a candidate's text.
_STRING_POS = re.compile(r'"pos"\s*:\s*"')
DONE = Status.DONE.value


def candidates_json(stored: str) -> str:
    """A stored candidate list as it is exported, as JSON text: objects with ``origin``, ``pos``, ``synsets`` and
    ``text`` in canonical §3 form (``[text]_UPOS`` for cross-PoS).

    A list without cross-PoS candidates is already in that form and is passed through as stored: decoding and
    re-encoding every BAD candidate was most of the time of a large export.
    """
    if not _STRING_POS.search(stored):
        return stored
    candidates = json.loads(stored)
    for candidate in candidates:
        if candidate["pos"]:
            candidate["text"] = f"[{candidate['text']}]_{candidate['pos']}"
    return json.dumps(candidates, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@functools.cache
def _language_key(lang: str) -> str:
    """A language code as a JSON key: the same few codes on every line, so encoded once each."""
    return _compact(lang)


def annotators_json(copies: Sequence[CopySetsRow], ids: dict[str, str]) -> str:
    """The ``annotators`` list of a language (double curation): each translator's sets and decision, by exported id."""
    entries = []
    for copy in sorted(copies, key=lambda c: ids[c.annotator]):
        head = _compact({"id": ids[copy.annotator], "status": copy.status})
        good, bad = candidates_json(copy.good), candidates_json(copy.bad)
        entries.append(head[:-1] + ',"good":' + good + ',"bad":' + bad + "}")
    return "[" + ",".join(entries) + "]"


def dataset_line(item: ItemRow, states: Sequence[CandidateSetsRow], annotators: dict[str, str] | None = None) -> str:
    """One ``dataset.jsonl`` line (without the newline): compact JSON, fields in the order of SPEC §7, languages in
    code order; the candidate lists are spliced in as JSON text (see ``candidates_json``). ``annotators`` maps a
    language to its ``annotators`` JSON text (``--with-annotators``).

    Ω(λ) is read from the row's stored JSON without building an ``Item`` (ten dataclasses a line); δ(λ) and μ(σ)
    are worked out as ``Item.polysemy_degree`` and ``Item.sense_rank`` do."""
    senses = json.loads(item.senses) if item.senses != "[]" else []
    sense_rank = next((sense["rank"] for sense in senses if sense["synset"] == item.synset), None)
    head = _compact(
        {
            "id": item.id,
            "sentence": item.sentence,
            "target": {
                "text": item.target_text,
                "start": item.target_start,
                "end": item.target_end,
                "lemma": item.lemma,
                "pos": item.pos,
            },
            "synset": item.synset,
            "gloss": item.gloss,
            "source": item.source,
            **({"domain": item.domain} if item.domain else {}),
            "polysemy_degree": len(senses) or None,
            "sense_rank": sense_rank,
            "senses": [{"synset": s["synset"], "rank": s["rank"]} for s in sorted(senses, key=lambda s: s["rank"])],
        }
    )
    entries = []
    for state in sorted(states, key=lambda s: s.lang):
        lang = state.lang
        status = "" if state.status == DONE else ',"status":' + _compact(state.status)
        good, bad = candidates_json(state.good), candidates_json(state.bad)
        extra = ',"annotators":' + annotators[lang] if annotators and lang in annotators else ""
        entries.append(_language_key(lang) + ':{"good":' + good + ',"bad":' + bad + status + extra + "}")
    return head[:-1] + ',"languages":{' + ",".join(entries) + "}}"


def discarded_line(item: ItemRow, state: CandidateSetsRow, exported: bool) -> dict[str, Any]:
    return {
        "id": item.id,
        "lang": state.lang,
        "reason": state.discard_reason,
        "note": state.discard_note,
        "by": state.status_by,
        "at": state.updated_at,
        "item_exported": exported,
        "lemma": item.lemma,
        "pos": item.pos,
        "synset": item.synset,
        "sentence": item.sentence,
    }


def json_line(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8")


def json_document(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
