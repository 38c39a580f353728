"""Evaluation against the live project rather than an export file: what the Evaluate page runs.

Scoring the current curation means a candidate a translator adds for a MISS counts on the very next run.
"""

from __future__ import annotations

import gc
import json
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from annotator.atomic_files import atomic_file, write_bytes_synced
from annotator.data_export.dataset import candidates_json
from annotator.data_import.limits import may_hold_surrogate
from annotator.domain.model import Status
from annotator.errors import UserError
from annotator.evaluation.inputs import Dataset, DatasetItem, Translations, dataset_from_records, load_translations
from annotator.evaluation.run import EvaluationResult
from annotator.gc_pause import gc_paused
from annotator.private_files import make_private_folder
from annotator.project import Project, ProjectSettings
from annotator.services.evaluation_cache import ITEM_CACHE_FOLDER, ItemCache, key_of
from annotator.store.repository import EvaluationRow

#: An ``EvaluationRow``'s item columns (an item's row) and item-language columns (an item-language's row).
_ITEM_FIELDS = EvaluationRow._fields.index("lang")
_LANG, _STATE = _ITEM_FIELDS, slice(_ITEM_FIELDS + 1, len(EvaluationRow._fields))
#: A stored status by its value, without an ``Enum`` call per row (an unknown one still raises through ``Status``).
_STATUSES = {status.value: status for status in Status}

#: What an item-language's part of a record is built from: its stored status, good and bad lists (as text).
State = tuple[str, str, str]


def dataset_from_project(project: Project, cache: bool = True) -> Dataset:
    """Every non-excluded item, done or not; an item-language discarded in a language is left out for it.

    The same dataset as exporting with ``--include-incomplete --keep-partially-discarded`` and evaluating that
    ``dataset.jsonl`` (``tests/test_evaluate_live.py`` checks it), built from one query: each stored candidate
    list is decoded once into the record a ``dataset.jsonl`` line would hold, and the records get the file's checks
    (``dataset_from_records``). Writing the lines as JSON text and parsing them back took most of the 17 s this used
    to take at 10,000 items × 5 languages. ``cache``: an item whose stored values are exactly those an earlier
    set-up read is taken as it read it (``ItemCache``); reading every item again was most of the rest.

    On PostgreSQL the cache's files are read in a second thread while this one waits for the server's answer
    (unpickling them never lets go of the interpreter, but the server works meanwhile); SQLite answers in this
    process, so there they are read first.
    """
    folder = project.data_dir / ITEM_CACHE_FOLDER
    with gc_paused():  # hundreds of thousands of small objects, no cycles: the collector's passes only cost
        with ThreadPoolExecutor(1, thread_name_prefix="evaluation-cache") as pool:
            if not cache:
                opened: Future[ItemCache] | ItemCache = ItemCache(None)
            elif project.db.is_sqlite:
                opened = ItemCache.open(folder)
            else:
                opened = pool.submit(ItemCache.open, folder)
            with project.db.read() as conn:
                raw = project.repo.get_meta(conn, "settings")
                languages = tuple(sorted((ProjectSettings.from_json(raw) if raw else ProjectSettings()).languages))
                rows = project.repo.evaluation_rows(conn, languages)
            items = opened.result() if isinstance(opened, Future) else opened
        return _build(rows, languages, f"{project.data_dir} (current curation)", items)


def _build(rows: Sequence[Sequence[Any]], languages: tuple[str, ...], source: str, cache: ItemCache) -> Dataset:
    """The records in the export's order, an item found in ``cache`` in place of its record; the items read from
    records go into the cache when the dataset has no problem (then none of them had one). ``rows``: as
    ``Repository.evaluation_rows`` gives them, in any order."""
    decoded: dict[str, list[dict[str, Any]]] = {}

    def candidates(stored: str | None) -> list[dict[str, Any]]:
        found = decoded.get(stored)  # equal stored lists are decoded once and shared as one list object
        if found is None:
            found = decoded[stored] = _candidates(stored)
        return found

    columns: dict[str, tuple[Any, ...]] = {}  # an item's own columns, by its id
    states: dict[str, dict[str, State]] = {}  # its item-languages' states, by its id and language
    for row in rows:
        lang = row[_LANG]
        if lang is None:
            columns[row[0]] = tuple(row[:_ITEM_FIELDS])
        else:
            held = states.get(row[0])
            if held is None:
                held = states[row[0]] = {}
            held[lang] = tuple(row[_STATE])
    parts: list[dict[str, Any] | DatasetItem] = []
    read: list[tuple[str, bytes]] = []  # (item id, key) of the items read from records
    unread: list[str] = []  # the stored texts of those records, searched for surrogates at once
    nothing: dict[str, State] = {}
    for item_id in sorted(columns):  # the export's order: Python's, not the database collation's
        item = columns[item_id]
        held = states.get(item_id, nothing)
        key = key_of((languages, item, tuple(held.get(lang) for lang in languages)))
        cached = cache.get(item_id, key)
        if cached is not None:
            parts.append(cached)
            continue
        record = _record(item, languages, held, candidates)
        if record is not None:  # discarded in every language: not in the dataset
            parts.append(record)
            read.append((item_id, key))
            unread.extend(value for value in item if type(value) is str)
            unread.extend(value for state in held.values() for value in state if type(value) is str)
    dataset = dataset_from_records(parts, source, surrogate_free=not _may_hold_surrogate(unread), shared_lists=True)
    for item_id, key in read:
        cache.put(item_id, key, dataset.items[item_id])
    cache.save()
    return dataset


def prepare_current(
    project: Project, translations: str | Path, translations_name: str | None = None, freeze: bool = False
) -> tuple[Dataset, Translations]:
    """Scoring the current curation up to the first analysis: the dataset from the rows and the translations read
    and checked against it (what ``benchmarks/bench_pages.py`` times as the set-up, issue 10 target ≤ 2 s).

    ``freeze``: the caller keeps the inputs to its end (the evaluation job's worker), so they are moved out of the
    collector's reach (``gc.freeze``) before it resumes: resuming it made it walk them all at once (~0.5 s).
    """
    with gc_paused():
        dataset = dataset_from_project(project)
        loaded = load_translations(translations, dataset, name=translations_name)
        if freeze:
            gc.freeze()
        return dataset, loaded


#: The whole result of an evaluation job started from the Evaluate page, beside its ``analysed.jsonl``.
RESULT_FILE = "result.pickle"


def save_result(result: EvaluationResult, folder: Path) -> Path:
    """Keep the run as the page needs it (matches, analyses and the items' candidates, for the browser, the report
    and the inspection queue's verdict hashes), which ``analysed.jsonl`` alone does not hold."""
    make_private_folder(folder)
    path = folder / RESULT_FILE
    with atomic_file(path) as temporary:
        write_bytes_synced(temporary, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def load_result(folder: Path) -> EvaluationResult:
    """The run ``save_result`` kept. Only ever called on a job's own folder under the project's data folder
    (``services.jobs.result_folder``), which is as trusted as the project's database: never on an uploaded file."""
    path = folder / RESULT_FILE
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserError(f"The results of this evaluation are gone ({path}: {error.strerror}); run it again.") from error
    result = pickle.loads(data)  # our own worker wrote it into the project's data folder (see the docstring)
    if not isinstance(result, EvaluationResult):
        raise UserError(f"{path} does not hold an evaluation result; run the evaluation again.")
    return result


def _may_hold_surrogate(texts: Sequence[str]) -> bool:
    """Could a record hold a lone surrogate? One search over the stored texts (a raw one, or a JSON ``\\u``
    escape of one in the candidate lists), instead of walking each decoded record's strings."""
    text = "\n".join(texts)
    try:
        text.encode("utf-8")  # fails on a raw lone surrogate; a C loop, unlike a regular expression
    except UnicodeEncodeError:
        return True
    return "\\u" in text and may_hold_surrogate(text)  # only JSON escapes of control characters are common


def _record(
    item: Sequence[Any],
    languages: Sequence[str],
    held: dict[str, State],
    candidates: Callable[[str | None], list[dict[str, Any]]],
) -> dict[str, Any] | None:
    """The record of the export's rules (see ``data_export.dataset.select``) with both options on; None when the
    item is discarded in every language (it is not in the dataset). ``item``: its own columns (``EvaluationRow``'s
    first ones); ``held``: the states of its item-languages by language."""
    sets: dict[str, dict[str, Any]] = {}
    for lang in languages:
        state = held.get(lang)
        stored = state[0] if state is not None else None
        status = (_STATUSES.get(stored) or Status(stored)) if stored else Status.PENDING
        if status is Status.DISCARDED:
            continue
        entry: dict[str, Any] = {
            "good": candidates(state[1] if state is not None else None),
            "bad": candidates(state[2] if state is not None else None),
        }
        if status is not Status.DONE:
            entry["status"] = status.value
        sets[lang] = entry
    return _item_record(item, sets) if sets else None


def _candidates(stored: str | None) -> list[dict[str, Any]]:
    """A stored candidate list as exported (``candidates_json``: a cross-PoS candidate's text in its canonical
    ``[text]_UPOS`` form), decoded; a list without cross-PoS candidates is decoded once, as stored."""
    return json.loads(candidates_json(stored)) if stored else []


def _item_record(item: Sequence[Any], languages: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What ``data_export.dataset.dataset_line`` writes for the item (δ(λ), μ(σ) and Ω(λ) from its senses).
    ``item``: its own columns, as ``EvaluationRow`` lays them out."""
    item_id, sentence, target_text, target_start, target_end, lemma, pos, synset, gloss, source, senses = item
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
        "polysemy_degree": len(ordered) if ordered else None,
        "sense_rank": rank,
        "senses": [{"synset": sense["synset"], "rank": sense["rank"]} for sense in ordered],
        "languages": languages,
    }


def split_at_span(text: str, span: Sequence[int] | None) -> tuple[str, str, str]:
    """(before, match, after) of a translation around ω's character span, for highlighting."""
    if not span or len(span) != 2 or not 0 <= span[0] <= span[1] <= len(text):
        return text, "", ""
    start, end = span
    return text[:start], text[start:end], text[end:]
