"""Machine-translation words: the words of translations an evaluation scored MISS, offered as suggestions.

``refresh_mt`` computes them for every item-language with a MISS once an evaluation finishes (the Evaluate job
calls it) and keeps them with the evaluation's stamp; a card reads them (``mt_part``) and the MISS lines themselves
(``miss_lines``), read once per evaluation and process."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from annotator.analysis.function_words import is_function_word
from annotator.context import ProjectContext
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.model import Item
from annotator.domain.suggestions import MissTranslation, encode_suggestions, mt_suggestions
from annotator.progress import ProgressCallback, no_progress
from annotator.services import job_files
from annotator.services.suggestions.finder import Finder, project_finder
from annotator.store.repository import Repository
from annotator.store.suggestions import CachedSuggestions
from annotator.versioned_cache import VersionedCache

#: Item-languages per batch when computing in bulk.
BATCH_SIZE = 200
#: A word used in more than this share of a language's MISS translations is taken for a function word (when the
#: analyser gives no parts of speech), once the language has at least ``COMMON_MIN`` of them.
COMMON_SHARE, COMMON_MIN = 0.08, 30


def newest_evaluation(project: ProjectContext) -> int | None:
    """The newest finished evaluation (its job id): a new one means the MISS words are read again."""
    with project.db.read() as conn:
        return newest_evaluation_in(project.repo, conn)


#: Evaluations whose MISS translations feed suggestions at most (the newest).
EVALUATIONS_READ = 50


def newest_evaluation_in(repo: Repository, conn: Any) -> int | None:
    """``newest_evaluation`` inside a caller's read."""
    for job in repo.list_jobs(conn, limit=EVALUATIONS_READ, kinds=[JobKind.EVALUATE]):
        if job.state is JobState.DONE:
            return job.id
    return None


def mt_stamp(job_id: int | None) -> str:
    return f"evaluation:{job_id}" if job_id is not None else "none"


def _sentence_lemmas(item: Item) -> list[str]:
    """The English lemmas of the sentence's other words (the target's span left out)."""
    sentence = item.sentence[: item.target.start] + " " + item.sentence[item.target.end :]
    analysis = _english_analyser().analyse([sentence], "EN")[0]
    lemmas = [lemma for lemma in analysis.lemmas if len(lemma) > 2 and any(ch.isalpha() for ch in lemma)]
    return list(dict.fromkeys(lemma for lemma in lemmas if lemma.casefold() != item.target.lemma.casefold()))


@functools.cache
def _english_analyser() -> Any:
    """The English analyser, made once per process (it loads its models)."""
    from annotator.analysis.default import DefaultAnalyser

    return DefaultAnalyser()


def _explained(finder: Finder, item: Item, lang: str) -> Callable[[str], bool]:
    """Whether a translation word translates another content word of the sentence rather than the target: a lemma of
    another word's frequent senses that no sense of λ has (only told apart with a local lexicon)."""
    if not finder.local:
        return lambda _lemma: False
    others: set[str] = set()
    for lemma in _sentence_lemmas(item):
        others |= finder.translations_of(lemma, lang)
    own: set[str] = set()
    for synset in {item.synset, *(s.synset for s in item.senses)}:
        record = finder.record(synset, lang)
        if record is not None:
            own.update(s.lemma.casefold() for s in record.senses if s.lang == lang)
    told_apart = others - own
    return told_apart.__contains__


def _miss_rows(project: ProjectContext, job_id: int, folder: Path | None = None) -> Iterator[dict[str, Any]]:
    """The MISS lines of evaluation ``job_id`` (``folder``: its results folder while it is still running) and of every
    finished evaluation before it whose analysis can still be read: the Evaluate page's, kept in the database; a
    command line job's, in its results folder. A translation scored by several evaluations counts once."""
    from annotator.evaluation.run import ANALYSED_FILE

    with project.db.read() as conn:
        jobs = [
            job
            for job in project.repo.list_jobs(conn, limit=EVALUATIONS_READ, kinds=[JobKind.EVALUATE])
            if job.id < job_id and job.state is JobState.DONE
        ]
        own = project.repo.get_job(conn, job_id)
    if own is not None:
        if folder is not None:
            own = dataclasses.replace(own, result={**(own.result or {}), "path": str(folder)})
        jobs.insert(0, own)
    seen: set[tuple[str, str, str, str]] = set()
    for job in jobs:
        for row in _analysed_rows(project, job, ANALYSED_FILE):
            if row.get("result") != "MISS":
                continue
            key = (str(row.get("id")), str(row.get("lang")), str(row.get("system")), str(row.get("translation")))
            if key not in seen:
                seen.add(key)
                yield row


def _analysed_rows(project: ProjectContext, job: Job, name: str) -> Iterator[dict[str, Any]]:
    if job.params.get("page") and not job.params.get("out"):
        yield from _json_rows(job_files.lines(project, job.id, name))
        return
    folder = (job.result or {}).get("path")
    path = Path(folder) / name if folder else None
    if path is not None and path.is_file():
        with path.open("rb") as handle:
            yield from _json_rows(handle)


def _json_rows(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row


def _words(row: dict[str, Any]) -> tuple[tuple[str, str, str | None], ...]:
    analysis = row.get("analysis") or {}
    words, lemmas, upos = analysis.get("words") or [], analysis.get("lemmas") or [], analysis.get("upos") or []
    return tuple(
        (str(w), str(lemma or w), tag if isinstance(tag, str) else None)
        for w, lemma, tag in zip(words, lemmas, upos, strict=False)
    )


#: ``meta`` key: the evaluation whose MISS translations every kept MT part comes from (all refreshed at once).
MT_MARKER = "suggestions_mt_evaluation"


def refresh_mt(
    project: ProjectContext,
    job_id: int | None = None,
    progress: ProgressCallback = no_progress,
    folder: Path | None = None,
) -> int:
    """Compute the MT suggestions of every item-language with a MISS in the newest evaluation (or ``job_id``) and keep
    them, then mark the evaluation as read: run once after an evaluation (the Evaluate job calls it), so no card
    waits. An item-language without a kept part of this evaluation has no MT suggestion. Returns how many have."""
    job_id = newest_evaluation(project) if job_id is None else job_id
    stamp = mt_stamp(job_id)
    missed: dict[tuple[str, str], list[MissTranslation]] = {}
    per_lang: dict[str, int] = Counter()
    common: dict[str, Counter[str]] = {}
    if job_id is not None:
        for row in _miss_rows(project, job_id, folder):
            words = _words(row)
            key = (str(row["id"]), str(row["lang"]))
            missed.setdefault(key, []).append(MissTranslation(str(row["system"]), str(row["translation"]), words))
            per_lang[key[1]] += 1
            common.setdefault(key[1], Counter()).update({lemma.casefold() for _w, lemma, _u in words})
    too_common = {
        lang: frozenset(w for w, n in counts.items() if n > COMMON_SHARE * per_lang[lang])
        if per_lang[lang] >= COMMON_MIN
        else frozenset()
        for lang, counts in common.items()
    }
    finder = project_finder(project) if missed else None
    keys = sorted(missed)
    total = len(keys)
    for start in range(0, total, BATCH_SIZE):
        chunk = keys[start : start + BATCH_SIZE]
        with project.db.read() as conn:
            items = project.repo.items_by_id(conn, list(dict.fromkeys(i for i, _l in chunk)))
            cached = project.repo.cached_suggestions_of(conn, chunk)
        updates = []
        for item_id, lang in chunk:
            item = items.get(item_id)
            if item is None or finder is None:
                continue
            explained = _explained(finder, item, lang)
            mt = mt_suggestions(
                missed[(item_id, lang)],
                item.target.pos,
                explained,
                too_common[lang].__contains__,
                functools.partial(is_function_word, lang),
            )
            base = cached.get((item_id, lang)) or CachedSuggestions("", "[]", "", "[]")
            updates.append((item_id, lang, base._replace(mt_stamp=stamp, mt=encode_suggestions(mt))))
        with project.db.write() as conn:
            project.repo.put_cached_suggestions(conn, updates)
        progress(min(start + BATCH_SIZE, total), total, "machine translations")
    with project.db.write() as conn:
        project.repo.set_meta(conn, MT_MARKER, job_id)
    return total


#: Per project folder and evaluation: its MISS translations, (item, language) -> [(system, translation)].
_miss_texts: VersionedCache[dict[tuple[str, str], list[tuple[str, str]]]] = VersionedCache(keep=1)
#: MISS translations shown on a card at most (the systems' lines; their words are the MT suggestions).
MISS_SHOWN = 3


def miss_translations(project: ProjectContext, item_id: str, lang: str) -> list[tuple[str, str]]:
    """The newest evaluation's translations of the item-language scored MISS, as (system, text), for the card's MT
    line. The evaluation's file is read once per evaluation and process (only its MISS lines' system and text are
    kept), so a card costs a dictionary look-up."""
    with project.db.read() as conn:
        job_id = newest_evaluation_in(project.repo, conn)
    return miss_lines(project, job_id, item_id, lang)


def miss_lines(project: ProjectContext, job_id: int | None, item_id: str, lang: str) -> list[tuple[str, str]]:
    """``miss_translations`` of evaluation ``job_id`` (the one a card was read with: ``CardSuggestions.evaluation``)."""
    if job_id is None:
        return []

    def read() -> dict[tuple[str, str], list[tuple[str, str]]]:
        texts: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for row in _miss_rows(project, job_id):
            texts.setdefault((str(row["id"]), str(row["lang"]).upper()), []).append(
                (str(row["system"]), str(row["translation"]))
            )
        return texts

    texts = _miss_texts.get(str(project.data_dir), job_id, read)
    return texts.get((item_id, lang.upper()), [])[:MISS_SHOWN]


def mt_part(cached: CachedSuggestions | None, job_id: int | None) -> str:
    """The kept MT suggestions when they come from the newest evaluation; none otherwise."""
    return cached.mt if cached is not None and cached.mt_stamp == mt_stamp(job_id) else "[]"


def mt_ready(project: ProjectContext, job_id: int | None) -> None:
    """Read the newest evaluation's MISS translations once, if nothing did since it finished."""
    if job_id is None:
        return
    with project.db.read() as conn:
        done = project.repo.get_meta(conn, MT_MARKER)
    if done != job_id:
        refresh_mt(project, job_id)
