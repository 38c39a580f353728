"""``annotator import --format mucow``: start a project from a published MuCoW suite (items with GOOD/BAD sets).

MuCoW has no synsets: items get the placeholder synset ``mucow:no-synset`` and ``source = "mucow:<corpus>:<id>"``,
and their candidates are translator additions without provenance, so nobody mistakes them for lexicon output.
Already imported items are left as they are (a re-import is a no-op); the whole import is one transaction.

Item ids carry the pair (``mucow-ende-00001-accelerator``), so suites of several pairs live in one project. Earlier
versions left the pair out, so a second pair's line with the same number and word was taken for the first pair's
item and skipped: a line whose old id is in the project counts as imported only when that item has this language's
GOOD set, and is imported under its new id otherwise (a re-import repairs such a project).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.data_import.items import content_hash
from annotator.data_import.mucow import MUCOW_SOURCE_PREFIX, MUCOW_SYNSET, MucowLine, read_mucow, suite_prefix
from annotator.domain.model import CandidateEntry, Item, Origin, Target, User
from annotator.errors import UserError
from annotator.services import administration

SYSTEM_USER = "system:import-mucow"


@dataclass
class MucowImportReport:
    lang: str
    added: int = 0
    unchanged: int = 0
    #: lines whose English word is not in the sentence as a word (the span then covers the first word that starts
    #: with it, e.g. ``accelerators`` for ``accelerator``)
    approximate_spans: int = 0


def _language(path: Path, lang: str | None) -> str:
    if lang:
        return lang.strip().upper()
    match = re.fullmatch(r"[a-z]{2,3}-([a-z]{2,3})", suite_prefix(path).name)
    if not match:
        raise UserError(f"{path}: cannot tell the target language from the file name; pass --lang (rule: mucow_lang)")
    return match.group(1).upper()


def _span(line: MucowLine) -> tuple[int, int, bool]:
    exact = re.search(rf"\b{re.escape(line.word)}\b", line.sentence, flags=re.IGNORECASE)
    if exact:
        return exact.start(), exact.end(), False
    loose = re.search(rf"\b{re.escape(line.word)}\w*", line.sentence, flags=re.IGNORECASE)
    if loose:
        return loose.start(), loose.end(), True
    return -1, -1, True


def _item(line: MucowLine) -> tuple[Item, bool]:
    start, end, approximate = _span(line)
    sentence = line.sentence
    if start < 0:  # the word does not occur: keep it visible after the sentence rather than invent a span
        sentence = f"{line.sentence} [{line.word}]"
        start = len(sentence) - len(line.word) - 1
        end = start + len(line.word)
    target = Target(sentence[start:end], start, end, line.word, "NOUN")
    source = f"{MUCOW_SOURCE_PREFIX}{line.corpus}:{line.corpus_id}"
    return Item(line.item_id, sentence, target, MUCOW_SYNSET, source=source), approximate


def _entries(words: tuple[str, ...], skip: frozenset[str] = frozenset()) -> tuple[CandidateEntry, ...]:
    seen: set[str] = set()
    out = []
    for word in words:
        key = word.casefold()
        if key in seen or key in skip:
            continue
        seen.add(key)
        out.append(CandidateEntry(word, None, Origin.TRANSLATOR, ()))
    return tuple(out)


def _imported_before(
    project: ProjectContext, conn: Connection, line: MucowLine, code: str, hashes: dict[str, str]
) -> bool:
    """Whether an earlier version imported this line under its pair-less id (that item has this language's set)."""
    legacy = line.legacy_item_id
    if legacy not in hashes:
        return False
    state = project.repo.item_languages_of(conn, legacy).get(code)
    return state is not None and bool(state.good)


def import_mucow(
    project: ProjectContext, path: Path | str, lang: str | None = None, user: User | None = None
) -> MucowImportReport:
    """Import ``<pair>.key.txt`` + ``.text.txt`` as items with GOOD (positive) and BAD (negative) candidates."""
    administration.check_admin(user, "import items")
    path = Path(path)
    code = _language(path, lang)
    languages = project.settings().languages
    if code not in languages:
        raise UserError(
            f"{path}: language {code} is not a project language ({', '.join(languages)}) (rule: mucow_lang)"
        )
    lines = read_mucow(path, with_reference=False)
    report = MucowImportReport(code)
    with project.db.write() as conn:
        repo = project.repo
        hashes = repo.item_hashes(conn)
        position = repo.next_position(conn)
        rows = []
        for line in lines:
            item, approximate = _item(line)
            if item.id in hashes or _imported_before(project, conn, line, code, hashes):
                report.unchanged += 1
                continue
            report.approximate_spans += approximate
            rows.append((item, content_hash(item), position, line))
            position += 1
        if not rows:
            return report
        repo.insert_items(conn, [(item, digest, pos) for item, digest, pos, _ in rows])
        repo.ensure_item_languages(conn, [item.id for item, *_ in rows], languages)
        for item, _digest, _pos, line in rows:
            state = repo.item_languages_of(conn, item.id)[code]
            good = _entries(line.positive)
            new = replace(state, good=good, bad=_entries(line.negative, frozenset(e.text.casefold() for e in good)))
            repo.save_item_language(conn, new, state.version, SYSTEM_USER, "import_mucow", {"file": path.name})
        report.added = len(rows)
        detail = {"file": path.name, "format": "mucow", "lang": code, "added": report.added}
        administration.record(project, conn, user, "import", detail)
    return report
