"""Evaluation against the live project rather than an export file: what the Evaluate page runs.

Scoring the current curation means a candidate a translator adds for a MISS counts on the very next run. A run the page
started is kept in the database by ``evaluation_results``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from annotator.context import ProjectContext
from annotator.data_export.dataset import candidates_json
from annotator.domain.candidates import CORE_TAGS, WARNED_TAGS, CandidateError, parse_candidate
from annotator.domain.matching import BAD, GOOD
from annotator.domain.model import Origin, Status
from annotator.domain.settings import ProjectSettings
from annotator.evaluation.inputs import (
    Dataset,
    DatasetItem,
    DatasetReader,
    Problem,
    StoredSpec,
    Translations,
    load_translations,
)
from annotator.services.evaluation_results import load_result as load_result  # the Evaluate page's import
from annotator.services.evaluation_results import split_at_span as split_at_span
from annotator.store.repository import EvaluationRow

#: An ``EvaluationRow``'s item columns (an item's row) and item-language columns (an item-language's row).
_ITEM_FIELDS = EvaluationRow._fields.index("lang")
_LANG, _STATE = _ITEM_FIELDS, slice(_ITEM_FIELDS + 1, len(EvaluationRow._fields))

#: What an item-language's part of a record is built from: its stored status, good and bad lists (as text).
State = tuple[str, str, str]

#: What the app stores, as ``dataset.schema.json`` words it for the exported line (a row outside it is doubted).
_TARGET_POS = frozenset(("NOUN", "VERB", "ADJ", "ADV"))
_CROSS_POS = frozenset((*CORE_TAGS, *WARNED_TAGS))
_ORIGINS = frozenset(origin.value for origin in Origin)
_CANDIDATE_KEYS = frozenset(("origin", "pos", "synsets", "text"))  # and "suggestion" on an accepted suggestion
_SYNSET_ID = re.compile(r"\S+")
_LANG_CODE = re.compile(r"[A-Z]{2,3}")
#: A stored candidate list that is doubted (see ``_specs``).
_DOUBT = None


def dataset_from_project(project: ProjectContext) -> Dataset:
    """Every non-excluded item, done or not; an item-language discarded in a language is left out for it.

    The same dataset as exporting with ``--include-incomplete --keep-partially-discarded`` and evaluating that
    ``dataset.jsonl`` (``tests/services/test_evaluate_live.py`` checks it), built from one query without writing
    JSON lines.
    """
    with project.db.read() as conn:
        raw = project.repo.get_meta(conn, "settings")
        languages = tuple(sorted((ProjectSettings.from_json(raw) if raw else ProjectSettings()).languages))
        rows = project.repo.evaluation_rows(conn, languages)  # exact tuples: the collector stops tracking them
    return build_dataset(rows, languages, "current curation")  # never a path: every server shows this name


def build_dataset(rows: Sequence[Sequence[Any]], languages: tuple[str, ...], source: str) -> Dataset:
    """The items in the export's order (by id; record n is line n of the exported file), each built straight from
    its stored values: every distinct stored candidate list decoded and parsed once. A row whose values are not
    what the app stores (an edit by hand: a wrong type, a candidate not in its canonical form, an escape that may
    hide a surrogate) is doubted and goes, as the exported line would hold it, through the file reader's checks
    (``DatasetReader.check``), which accept it or refuse it with the file's words. ``rows``: as
    ``Repository.evaluation_rows`` gives them, in any order."""
    # What lives through the build is kept as few long-lived objects as it can be (the rows themselves, dicts keyed
    # by text, exact tuples): each one the collector tracks, even for a while, adds to its passes (see
    # ``prepare_current``).
    columns: dict[str, Sequence[Any]] = {}  # an item's own columns, by its id
    states: dict[str, dict[str, Sequence[Any]]] = {lang: {} for lang in languages}  # its item-languages' rows
    for row in rows:
        lang = row[_LANG]
        if lang is None:
            columns[row[0]] = row[:_ITEM_FIELDS]
        elif lang in states:
            states[lang][row[0]] = row
    reader = DatasetReader(source)
    lists: Lists = {GOOD: {}, BAD: {}}
    seen: Seen = {}
    canonical: Canonical = {}
    codes_ok = all(_LANG_CODE.fullmatch(lang) for lang in languages)
    number = 0
    for item_id in sorted(columns):  # the export's order: Python's, not the database collation's
        item = columns[item_id]
        kept: dict[str, State | None] = {}
        for lang in languages:
            found = states[lang].get(item_id)
            state = None if found is None else tuple(found[_STATE])
            status = state[0] if state is not None else Status.PENDING.value
            if status not in _STATUSES:
                reader.problems.append(
                    Problem(source, number + 1, "bad_value", f"item '{item_id}' {lang}: unknown status {status!r}")
                )
            elif status != Status.DISCARDED.value:
                kept[lang] = state
        if not kept:  # discarded in every language: not in the dataset
            continue
        number += 1
        built = _trusted(item, kept, lists, canonical, seen, number) if codes_ok else None
        if built is None:
            record = _record(item, kept, reader.problems, source, number)
            built = reader.check(record, number) if record is not None else None
        if built is not None:
            reader.keep(built)
    return reader.dataset()


_STATUSES = frozenset(status.value for status in Status)
#: Each side's stored candidate lists parsed in one build, by their stored text (``None``: doubted).
Lists = dict[str, dict[str, "tuple[StoredSpec, ...] | None"]]


def _trusted(
    item: Sequence[Any],
    kept: dict[str, State | None],
    lists: Lists,
    canonical: Canonical,
    seen: Seen,
    number: int,
) -> DatasetItem | None:
    """The item as the file reader reads its exported line, when every stored value is as the app stores it;
    None (doubted) otherwise. Everything the item keeps is strings, numbers and plain tuples and dicts of them
    (``StoredSpec``), which the collector does not walk."""
    item_id, sentence, target_text, start, end, lemma, pos, synset, _gloss, _source, senses, domain = item
    texts = [value for value in item if type(value) is str]
    if not (
        len(texts) == 10  # every column but the two offsets is text
        and item_id
        and sentence
        and target_text
        and lemma
        and type(start) is int
        and start >= 0
        and type(end) is int
        and end >= 1
        and pos in _TARGET_POS
        and _SYNSET_ID.fullmatch(synset)
        and _encodable(texts)
    ):
        return None
    ranked = _senses(senses)
    if ranked is None:
        return None
    languages: dict[str, tuple[StoredSpec, ...]] = {}
    for lang, state in kept.items():
        specs: list[StoredSpec] = []
        for side, stored in ((GOOD, state[1] if state else None), (BAD, state[2] if state else None)):
            parsed = lists[side]
            key = stored or ""
            if key not in parsed:
                parsed[key] = _specs(key, side, canonical, seen)
            found = parsed[key]
            if found is _DOUBT:
                return None
            specs.extend(found)
        languages[lang] = tuple(specs)
    return DatasetItem(
        id=item_id,
        sentence=sentence,
        lemma=lemma,
        pos=pos,
        synset=synset,
        sense_rank=next((rank for stored, rank in ranked[1] if stored == synset), None),
        polysemy_degree=len(ranked[0]) or None,
        sense_ranks=dict(ranked[0]),
        candidates=languages,
        line=number,
        domain=domain or None,  # the export writes no empty domain, so the file reader gives None
    )


def _encodable(texts: list[str]) -> bool:
    """No lone surrogate (only SQLite can hold one): the file reader refuses it, so the row is doubted."""
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _senses(stored: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]] | None:
    """Ω(λ) as (synset, rank) pairs in rank order and in stored order (μ(σ) is looked up in stored order, as the
    export does); None when a sense is not what the app stores."""
    try:  # orjson as in ``_specs``: a rank past 64 bits, read as a float, is doubted
        senses = orjson.loads(stored)
    except (TypeError, ValueError):  # not text, or not JSON
        return None
    pairs = []
    for sense in senses if type(senses) is list else ():
        if type(sense) is not dict:
            return None
        synset, rank = sense.get("synset"), sense.get("rank")
        if not (type(synset) is str and _SYNSET_ID.fullmatch(synset) and type(rank) is int and rank >= 1):
            return None
        pairs.append((synset, rank))
    if type(senses) is not list:
        return None
    return sorted(pairs, key=lambda pair: pair[1]), pairs


#: The synset ids found right in one build (``_stored_candidate``), by themselves.
Seen = dict[Any, bool]


def _specs(stored: str, side: str, canonical: Canonical, seen: Seen) -> tuple[StoredSpec, ...] | None:
    """A stored candidate list parsed as the file reader parses it once exported (a cross-PoS candidate's text in
    its ``[text]_UPOS`` form), or None (doubted) when any candidate is not stored as the app stores it: in its
    canonical form, with a known origin and tag and distinct synset ids. A JSON escape is doubted too (it may hide
    a surrogate or a control character). Each distinct text and tag is parsed once per build, each synset id
    checked once; nothing else is kept per candidate but its ``StoredSpec``."""
    if not stored:
        return ()
    if "\\u" in stored or not _encodable([stored]):
        return _DOUBT
    try:  # orjson: a third of the standard library's time on these lists (benchmarks/bench_pages.py, the set-up);
        # where it reads differently (NaN refused, an integer past 64 bits read as a float) the list holds a number,
        # which no stored list does, so it is doubted either way
        entries = orjson.loads(stored)
    except orjson.JSONDecodeError:
        return _DOUBT
    if type(entries) is not list:
        return _DOUBT
    specs = []
    try:
        for index, entry in enumerate(entries):
            text, pos, synsets = entry["text"], entry["pos"], entry["synsets"]
            if (
                len(entry) != (4 if "suggestion" not in entry else 5)  # _CANDIDATE_KEYS, and an accepted one's
                or type(synsets) is not list
                or not _stored_candidate(text, pos, entry["origin"], synsets, canonical, seen)
            ):
                return _DOUBT
            specs.append((text, pos, side, index, *synsets))  # flat: see ``StoredSpec``
    except (TypeError, KeyError):  # not an object with those keys, or an unhashable value: not as the app stores
        return _DOUBT
    return tuple(specs)


#: Whether a stored text is in its canonical form with its tag: it parses back to itself (``_stored_candidate``);
#: by tag (None for none), then text — dicts keyed by text, no tuple kept per candidate.
Canonical = dict["str | None", dict[str, bool]]


def _stored_candidate(text: Any, pos: Any, origin: Any, synsets: list[Any], canonical: Canonical, seen: Seen) -> bool:
    """Whether the candidate is stored as the app stores it. A synset id found right is remembered in ``seen``;
    whether a candidate's canonical form parses back to itself, in ``canonical`` (no ``Candidate`` is kept: see
    ``StoredSpec``)."""
    if type(text) is not str or not (pos is None or pos in _CROSS_POS) or origin not in _ORIGINS:
        return False
    for synset in synsets:
        if synset not in seen:
            if not (type(synset) is str and _SYNSET_ID.fullmatch(synset)):
                return False
            seen[synset] = True
    if len(set(synsets)) != len(synsets):
        return False
    texts = canonical.get(pos)
    if texts is None:
        texts = canonical[pos] = {}
    found = texts.get(text)
    if found is None:
        try:
            candidate = parse_candidate(f"[{text}]_{pos}" if pos else text)
            found = candidate.text == text and candidate.pos == pos
        except CandidateError:
            found = False
        texts[text] = found
    return found


def prepare_current(
    project: ProjectContext, translations: str | Path, translations_name: str | None = None
) -> tuple[Dataset, Translations]:
    """Scoring the current curation up to the first analysis: the dataset from the rows and the translations read
    and checked against it (what ``benchmarks/bench_pages.py --only set-up`` times).

    What lives long is laid out so the collector does not track it — the rows and the translations as exact tuples
    (``Translations``), the candidates as flat ones (``inputs.StoredSpec``), the build's memos as dicts keyed by text
    — so its full passes, set off by tracked objects reaching its oldest generation, almost never run.
    """
    dataset = dataset_from_project(project)
    return dataset, load_translations(translations, dataset, name=translations_name)


def _record(
    item: Sequence[Any], kept: dict[str, State | None], problems: list[Problem], source: str, number: int
) -> dict[str, Any] | None:
    """The exported line of a doubted item, decoded (what ``data_export.dataset.dataset_line`` writes), for the
    file reader's checks; None, with a problem naming the line, when a stored value cannot be exported at all."""
    sets: dict[str, dict[str, Any]] = {}
    try:
        for lang, state in kept.items():
            good, bad, status = (state[1], state[2], state[0]) if state else (None, None, Status.PENDING.value)
            sets[lang] = {"good": _candidates(good), "bad": _candidates(bad)}
            if status != Status.DONE.value:
                sets[lang]["status"] = status
        return _item_record(item, sets)
    except json.JSONDecodeError as error:
        problems.append(Problem(source, number, "invalid_json", f"not valid JSON ({error.msg})"))
    except (TypeError, KeyError, AttributeError, ValueError, RecursionError):
        problems.append(Problem(source, number, "bad_value", f"item '{item[0]}': a stored value cannot be exported"))
    return None


def _candidates(stored: str | None) -> list[dict[str, Any]]:
    """A stored candidate list as exported (``candidates_json``: a cross-PoS candidate's text in its canonical
    ``[text]_UPOS`` form), decoded."""
    return json.loads(candidates_json(stored)) if stored else []


def _item_record(item: Sequence[Any], languages: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What ``data_export.dataset.dataset_line`` writes for the item (δ(λ), μ(σ) and Ω(λ) from its senses).
    ``item``: its own columns, as ``EvaluationRow`` lays them out."""
    item_id, sentence, target_text, target_start, target_end, lemma, pos, synset, gloss, source, senses, domain = item
    stored = json.loads(senses)  # decoded once: the rank is looked up in stored order, as the export does
    ordered = sorted(stored, key=lambda sense: sense["rank"])
    rank = next((sense["rank"] for sense in stored if sense["synset"] == synset), None)
    return {
        "id": item_id,
        "sentence": sentence,
        "target": {"text": target_text, "start": target_start, "end": target_end, "lemma": lemma, "pos": pos},
        "synset": synset,
        "gloss": gloss,
        "source": source,
        **({"domain": domain} if domain else {}),
        "polysemy_degree": len(ordered) if ordered else None,
        "sense_rank": rank,
        "senses": [{"synset": sense["synset"], "rank": sense["rank"]} for sense in ordered],
        "languages": languages,
    }
