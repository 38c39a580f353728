"""Import items into a project: validate the whole file, stage it in short transactions, commit it at once.

Re-importing the same file is a no-op; a changed item that already has curated work is refused unless
forced, because silently replacing a sentence under a translator's candidates would corrupt the dataset.
A forced change of an item's sense (σ, lemma or POS) reopens its curated item-languages, saying why.

All or nothing without a long lock: new rows are written in short batches tagged with an ``imports`` row
that hides them from every reader, and one short final transaction applies the replacements and deletes
that row, making everything visible at once. A killed import leaves only hidden rows, which the next
import deletes (see docs/ARCHITECTURE.md, Transactions).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.data_import.items import (
    ItemColumns,
    ParsedItems,
    RowProblem,
    content_hash,
    item_from_columns,
    parse_item_file,
)
from annotator.domain.licences import LICENCES, UNKNOWN, SourceRecord, licence_by_id, unknown_licence
from annotator.domain.model import Item, ItemLanguage, Status, User
from annotator.domain.settings import ProjectSettings
from annotator.errors import UserError
from annotator.lexicon.licences import licence_beside
from annotator.progress import ProgressCallback, no_progress
from annotator.services import administration
from annotator.store.repository import Repository, StagingImport

#: Who the history names for changes the import makes by itself.
SYSTEM_USER = "system:import"

#: New items staged per transaction (× the project's languages item-language rows); progress after each.
INSERT_CHUNK = 500
#: Hidden rows of an interrupted import deleted per transaction.
CLEAN_CHUNK = 2000
#: An import whose heartbeat is older than this is dead even if its process id is alive (reused, other host).
STALE_AFTER_S = 120.0


@dataclass(frozen=True)
class Reopened:
    """A curated item-language sent back to pending because its item's sense changed."""

    item_id: str
    lang: str
    was: str


@dataclass
class ImportReport:
    added: int = 0
    unchanged: int = 0
    replaced: int = 0
    #: Items whose only change is their gloss (not part of what an item *is*): the new gloss is applied.
    glosses: int = 0
    warnings: list[RowProblem] = field(default_factory=list)
    reopened: list[Reopened] = field(default_factory=list)
    #: Hidden rows left by an interrupted earlier import and deleted before this one.
    cleaned: int = 0
    #: The sentences' licence as recorded with the import (id or ``unknown``), and where it was read.
    corpus_licence: str = ""
    corpus_stated: str = ""

    def summary(self) -> str:
        text = (
            f"{self.added} added, {self.replaced} replaced, {self.unchanged} unchanged"
            + (f", {self.glosses} gloss(es) updated" if self.glosses else "")
            + (f", {len(self.warnings)} warning(s)" if self.warnings else "")
        )
        if self.reopened:
            shown = ", ".join(f"{r.item_id} [{r.lang}] ({r.was})" for r in self.reopened[:20])
            more = " ..." if len(self.reopened) > 20 else ""
            text += (
                f"; {len(self.reopened)} curated item-language(s) reopened as pending because their item's sense "
                f"(synset, lemma or POS) changed: {shown}{more}"
            )
        if self.cleaned:
            text += f"; removed {self.cleaned} hidden row(s) of an interrupted earlier import"
        return text

    def licence_line(self) -> str:
        """The sentences' licence as the import recorded it ("" when it recorded none: nothing changed)."""
        if not self.corpus_licence:
            return ""
        text = f"Sentences' licence recorded: {self.corpus_licence} ({self.corpus_stated})"
        if self.corpus_licence == UNKNOWN:
            text += "; publish will allow only 'other' (give it with --corpus-license)"
        return text


#: A chunk of new items: each one's columns' values, as ``stage_new_values`` takes them.
Chunk = Sequence[Mapping[str, Any]]
#: What stages one chunk, given the connection.
ChunkWrite = Callable[[Connection], None]


class NewItemChunks:
    """The plan's new items in chunks of ``INSERT_CHUNK``: each chunk's values are made when it is read (so only the
    chunk at hand is held), the same values every time; iterating again starts again."""

    def __init__(self, rows: Sequence[ItemColumns], hashes: Sequence[str], first_position: int) -> None:
        self.rows, self.hashes, self.first_position = rows, hashes, first_position

    def __len__(self) -> int:
        return -(-len(self.rows) // INSERT_CHUNK)

    def __iter__(self) -> Iterator[Chunk]:
        return map(self.chunk, range(len(self)))

    def chunk(self, number: int) -> Chunk:
        rows, hashes, first = self.rows, self.hashes, self.first_position
        start = number * INSERT_CHUNK
        return [
            {**rows[at]._asdict(), "content_hash": hashes[at], "position": first + at}
            for at in range(start, min(start + INSERT_CHUNK, len(rows)))
        ]

    def end(self, number: int) -> int:
        """How many new items the chunks up to ``number`` hold."""
        return min((number + 1) * INSERT_CHUNK, len(self.rows))


class StagingWork(Protocol):
    """Work an import may do on its new items while it stages them (``import --prepopulate``: pre-population),
    so each of their rows is written once, hidden like the rest until the import commits."""

    def begin(self, replacements: int) -> bool:
        """Whether to do it for this import (``replacements``: changed items it replaces); False: plain staging."""

    def writes(self, chunks: NewItemChunks, import_id: int) -> Generator[ChunkWrite, None, None]:
        """Work on the chunks of new items outside any transaction; yields, for each chunk in order, what stages
        it behind ``import_id`` (given the connection) in place of ``stage_new_values``. Closed early when the
        import stops."""

    def commit(self, conn: Connection) -> None:
        """Write what goes with the import's commit, in its transaction."""


class CuratedWorkError(UserError):
    """Changed items already have curated work; re-run with force to replace them."""


class ImportInProgressError(UserError):
    """Another import is staging its rows; two at once could collide on item ids."""


@dataclass
class _Plan:
    """What the file changes, decided against the live data before anything is written."""

    #: The new items, in file order; ``new_hashes`` their content hashes; they take the queue positions from
    #: ``first_position`` on, one each.
    new_rows: list[ItemColumns] = field(default_factory=list)
    new_hashes: list[str] = field(default_factory=list)
    first_position: int = 0
    #: (new item, its new hash, the hash it had when classified)
    replacements: list[tuple[Item, str, str]] = field(default_factory=list)
    #: (item id, new gloss) of items otherwise unchanged: the gloss is not part of what an item *is*
    glosses: list[tuple[str, str]] = field(default_factory=list)


def _lexicon_key(item: Item) -> tuple[str, str, str]:
    return (item.target.lemma, item.target.pos, item.synset)


def _is_untouched(state: ItemLanguage) -> bool:
    return state.status is Status.PENDING and (state.good, state.bad) == (state.initial_good, state.initial_bad)


def _for_new_sense(item: Item, before: Item, state: ItemLanguage) -> tuple[ItemLanguage, dict]:
    """λ or σ changed: G0/B0 and any curation were about the old sense, so the item-language starts again.

    Untouched ones simply lose their old G0/B0. Curated ones (any status but an untouched pending) go back to
    pending with empty sets, so no export can ship the old sense's candidates under the new one; the history
    entry keeps everything they held, and the next pre-population fills G0/B0 for the new sense.
    """
    detail: dict = {
        "lemma": item.target.lemma,
        "pos": item.target.pos,
        "synset": item.synset,
        "previous": {"lemma": before.target.lemma, "pos": before.target.pos, "synset": before.synset},
    }
    new = replace(state, prepopulated=False, initial_good=(), initial_bad=(), overlaps=(), good=(), bad=())
    if not _is_untouched(state):
        detail.update(
            reason="the item's sense changed on import; its candidates were for the old sense",
            reopened_from=state.status.value,
            previous_good=[c.text for c in state.good],
            previous_bad=[c.text for c in state.bad],
            previous_discuss_note=state.discuss_note,
            previous_discard_reason=state.discard_reason.value if state.discard_reason else None,
            previous_discard_note=state.discard_note,
        )
        new = replace(new, status=Status.PENDING, discuss_note="", discard_reason=None, discard_note="", status_by=None)
    return new, detail


def _is_dead(staging: StagingImport, now: float) -> bool:
    """An import on this host whose process is gone, or any import silent for ``STALE_AFTER_S``."""
    if now - staging.heartbeat > STALE_AFTER_S:
        return True
    if staging.host != socket.gethostname():
        return False
    if staging.pid == os.getpid():
        return False  # this process's own import is either running (a thread) or cleans itself up
    try:
        os.kill(staging.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _delete_import(project: ProjectContext, import_id: int) -> int:
    """Delete an import's hidden rows in short transactions, then its ``imports`` row; returns items deleted."""
    deleted = 0
    while True:
        project.db.pause_for_other_writers()
        with project.db.write() as conn:
            count = project.repo.delete_staged(conn, import_id, CLEAN_CHUNK)
            if count == 0:
                project.repo.end_import(conn, import_id)
                return deleted
        deleted += count


def clean_interrupted_imports(project: ProjectContext) -> int:
    """Remove what dead imports staged (a killed process); refuse while a live one runs. Returns items removed."""
    with project.db.read() as conn:
        staging = project.repo.staging_imports(conn)
    now = time.time()
    removed = 0
    for entry in staging:
        if not _is_dead(entry, now):
            raise ImportInProgressError(
                f"Another import is running ({entry.file}, started {entry.started_at} by {entry.user}); "
                "nothing was imported. Try again when it has finished."
            )
        removed += _delete_import(project, entry.id)
    return removed


def _plan(
    repo: Repository, conn: Connection, parsed: ParsedItems, force: bool, name: str, progress: ProgressCallback
) -> tuple[_Plan, ImportReport]:
    """Classify every item as new, unchanged or replaced; refuse curated changes unless forced."""
    report = ImportReport(warnings=parsed.warnings)
    plan = _Plan()
    hashes = repo.item_hashes(conn)
    plan.first_position = repo.next_position(conn)
    total = len(parsed.records)
    changed: list[tuple[Item, str, str]] = []
    same: list[ItemColumns] = []
    for done, record in enumerate(parsed.records, start=1):
        digest = content_hash(record)
        old = hashes.get(record.id)
        if old is None:
            plan.new_rows.append(record)
            plan.new_hashes.append(digest)
            report.added += 1
        elif old == digest:
            same.append(record)
        else:
            changed.append((item_from_columns(record), digest, old))
        if done % 1000 == 0 or done == total:
            progress(done, total, "checking")
    del hashes
    plan.glosses = _gloss_changes(repo, conn, same)
    report.glosses = len(plan.glosses)
    report.unchanged = len(same) - report.glosses
    if changed and not force:
        states = repo.item_languages_of_items(conn, [item.id for item, _d, _o in changed])
        _refuse_curated(name, [item.id for item, _d, _o in changed], states)
    plan.replacements = changed
    report.replaced = len(changed)
    return plan, report


def _refuse_curated(name: str, item_ids: Sequence[str], states: dict[str, list[ItemLanguage]]) -> None:
    blocked = [i for i in item_ids if any(s.status is not Status.PENDING for s in states.get(i, ()))]
    if blocked:
        shown = ", ".join(blocked[:20]) + (" ..." if len(blocked) > 20 else "")
        raise CuratedWorkError(
            f"{name}: {len(blocked)} changed item(s) already have curated work ({shown}); "
            "nothing was imported. Re-run with --force to replace them (their candidates are kept unless "
            "the item's sense changes, which reopens them)."
        )


def _stage(
    project: ProjectContext,
    import_id: int,
    plan: _Plan,
    languages: Sequence[str],
    progress: ProgressCallback,
    work: StagingWork | None = None,
) -> None:
    """Write the new items hidden, one short transaction per chunk, pausing so other writers get their turn (each
    chunk's values, and the ``work`` on them, are made before the pause, which they count towards, not while the
    lock is held). Each chunk's WAL checkpoint runs on a thread of its own while the next chunk is made
    (``Database.background_checkpoints``)."""
    chunks = NewItemChunks(plan.new_rows, plan.new_hashes, plan.first_position)
    plain = _plain_writes(project.repo, chunks, languages, import_id)
    writes = work.writes(chunks, import_id) if work is not None else plain
    with contextlib.closing(writes), project.db.background_checkpoints():
        for number, write in enumerate(writes):
            project.db.pause_for_other_writers()
            with project.db.write() as conn:
                if not project.repo.touch_import(conn, import_id, time.time()):
                    raise ImportInProgressError("This import was cancelled by another process; nothing was imported.")
                write(conn)
            progress(chunks.end(number), len(plan.new_rows), "writing")


def _plain_writes(
    repo: Repository, chunks: NewItemChunks, languages: Sequence[str], import_id: int
) -> Generator[ChunkWrite, None, None]:
    """What stages each chunk without other work: its items, pending in every language."""
    for chunk in chunks:
        yield partial(_stage_plain, repo, chunk, languages, import_id)


def _stage_plain(repo: Repository, chunk: Chunk, languages: Sequence[str], import_id: int, conn: Connection) -> None:
    repo.stage_new_values(conn, import_id, chunk, languages)


def _commit(
    project: ProjectContext,
    conn: Connection,
    import_id: int,
    plan: _Plan,
    languages: Sequence[str],
    force: bool,
    name: str,
    report: ImportReport,
    user: User | None,
    work: StagingWork | None = None,
) -> None:
    """The one short transaction that makes the import visible: replacements, late languages, audit, flip."""
    repo = project.repo
    if not repo.touch_import(conn, import_id, time.time()):
        raise ImportInProgressError("This import was cancelled by another process; nothing was imported.")
    if plan.replacements:
        ids = [item.id for item, _d, _o in plan.replacements]
        current = repo.item_hashes_of(conn, ids)
        moved = [i for (item, _d, old), i in zip(plan.replacements, ids, strict=True) if current.get(i) != old]
        if moved:
            raise UserError(
                f"{name}: {len(moved)} item(s) changed while importing ({', '.join(moved[:20])}); "
                "nothing was imported. Run the import again."
            )
        states = repo.item_languages_of_items(conn, ids)
        if not force:
            _refuse_curated(name, ids, states)
        befores = repo.items_by_id(conn, ids)
        for item, digest, _old in plan.replacements:
            before = befores[item.id]
            same_lexicon = _lexicon_key(before) == _lexicon_key(item)
            repo.replace_item(conn, item, digest, keep_lexicon=same_lexicon)
            if same_lexicon:
                continue
            for state in sorted(states.get(item.id, ()), key=lambda s: s.lang):
                new, detail = _for_new_sense(item, before, state)
                if "reopened_from" in detail:
                    report.reopened.append(Reopened(item.id, state.lang, state.status.value))
                repo.save_item_language(conn, new, state.version, SYSTEM_USER, "item_changed", detail)
    settings = repo.get_meta(conn, "settings")
    now_languages = ProjectSettings.from_json(settings).languages if settings else tuple(languages)
    if set(now_languages) - set(languages):  # a lead added a language while this import was staging
        repo.ensure_item_languages(conn, [values.id for values in plan.new_rows], now_languages)
    repo.set_glosses(conn, plan.glosses)
    detail = {"file": name, "added": report.added, "replaced": report.replaced, "force": force}
    if report.glosses:
        detail["glosses"] = report.glosses
    if report.reopened:
        detail["reopened"] = len(report.reopened)
    administration.record(project, conn, user, "import", detail)
    if work is not None:
        work.commit(conn)
    repo.end_import(conn, import_id)


def _gloss_changes(repo: Repository, conn: Connection, same: list[ItemColumns]) -> list[tuple[str, str]]:
    """Items identical but for their gloss: the new glosses from the file (one read), applied at the commit.

    An empty gloss in the file keeps the stored one (pre-population may have learnt it from the lexicon).
    """
    with_gloss = [(values.id, values.gloss) for values in same if values.gloss]
    if not with_gloss:
        return []
    stored = repo.item_glosses(conn)
    return [(item_id, gloss) for item_id, gloss in with_gloss if stored.get(item_id) != gloss]


def import_items(
    project: ProjectContext,
    path: Path | str,
    force: bool = False,
    progress: ProgressCallback = no_progress,
    user: User | None = None,
    parse: Callable[[Sequence[str]], ParsedItems] | None = None,
    corpus_licence: str | None = None,
    work: StagingWork | None = None,
) -> ImportReport:
    """``user`` is the lead acting in the app (checked and audited); None for the command line.

    ``parse`` reads the file into items, given the project's item ids: a file of another format (WSD-framework
    XML), or an item file read ahead (the command line's); by default ``path`` is an item file, read here. The
    sentences' licence is recorded with the import (``corpus_record``): ``corpus_licence`` (a licence id, or
    ``unknown``), else what a LICENSE or README beside the file states.
    ``work``: done on the new items while they are staged, when it says so (``StagingWork.begin``)."""
    given = check_corpus_licence(corpus_licence)
    return _import_items(project, path, force, progress, user, parse, given, work)


def check_corpus_licence(licence_id: str | None) -> str | None:
    """A licence id given with an import, checked before anything is read: a known id or ``unknown``."""
    if licence_id is None:
        return None
    wanted = licence_id.strip().lower()
    if wanted != UNKNOWN and licence_by_id(wanted) is None:
        known = ", ".join([*(licence.id for licence in LICENCES), UNKNOWN])
        raise UserError(f"'{licence_id}' is not a licence id the annotator knows; use one of: {known}.")
    return wanted


def corpus_record(import_id: int, path: Path, given: str | None) -> SourceRecord:
    """The imported file's sentences as a source: the licence given with the import, else the one a LICENSE or
    README beside the file states (``licence_beside``), else unknown; the README's title and citation."""
    found = licence_beside(path) if path.exists() else None
    licence = found.licence if found is not None else unknown_licence("")
    stated = found.stated if found is not None else "not stated"
    if given is not None:
        licence = licence_by_id(given) or unknown_licence(given)
        stated = f"given with the import: {given}" + (f" (beside the file: {found.stated})" if found else "")
    title = found.title if found is not None and found.title else ""
    label = f"{title} ({path.name})" if title else f"the sentences of {path.name}"
    return SourceRecord(
        key=f"corpus:{import_id}",
        kind="corpus",
        label=label,
        provided="English sentences, their target words and senses (glosses only where the file gives them)",
        licence=licence.id if licence.known else UNKNOWN,
        stated=stated,
        url=found.url if found is not None else "",
        citation=found.citation if found is not None else "",
        notice=found.notice if found is not None and given is None else "",
    )


def _import_items(
    project: ProjectContext,
    path: Path | str,
    force: bool,
    progress: ProgressCallback,
    user: User | None,
    parse: Callable[[Sequence[str]], ParsedItems] | None = None,
    given_licence: str | None = None,
    work: StagingWork | None = None,
) -> ImportReport:
    administration.check_admin(user, "import items")
    with project.db.read() as conn:  # ids are unique case-insensitively across the project, not just the file
        known_ids = list(project.repo.item_hashes(conn))
    if parse is not None:
        parsed: ParsedItems = parse(known_ids)
    else:
        parsed = parse_item_file(path, administration.project_limits(project), known_ids, progress)
    del known_ids
    file_ids = [values.id for values in parsed.records]
    name = Path(path).name
    cleaned = clean_interrupted_imports(project)
    languages = project.settings().languages
    with project.db.read() as conn:
        plan, report = _plan(project.repo, conn, parsed, force, name, progress)
    report.cleaned = cleaned
    del parsed
    if not (plan.new_rows or plan.replacements or plan.glosses):
        _record_earlier_imports(project, Path(path), file_ids, given_licence, report)
        return report  # an unchanged re-import changes no item (it may record the sentences' licence)
    with project.db.write() as conn:
        for entry in project.repo.staging_imports(conn):  # another import started since the check above
            raise ImportInProgressError(
                f"Another import is running ({entry.file}, started {entry.started_at} by {entry.user}); "
                "nothing was imported. Try again when it has finished."
            )
        import_id = project.repo.begin_import(
            conn, name, administration.actor(user), socket.gethostname(), os.getpid(), time.time()
        )
        # Positions were planned in a read; another import may have committed since. Only one import stages at
        # a time (checked above, under the write lock), so the next position read here keeps every one unique.
        plan.first_position = project.repo.next_position(conn)
    committed = False
    try:
        if work is not None and not work.begin(len(plan.replacements)):
            work = None
        _stage(project, import_id, plan, languages, progress, work)
        corpus = corpus_record(import_id, Path(path), given_licence)
        with project.db.write() as conn:
            _commit(project, conn, import_id, plan, languages, force, name, report, user, work)
            project.repo.put_sources(conn, [corpus])
        committed = True
        report.corpus_licence, report.corpus_stated = corpus.licence, corpus.stated
        new_ids = {values.id for values in plan.new_rows}
        earlier = [item_id for item_id in file_ids if item_id not in new_ids]
        _record_earlier_imports(project, Path(path), earlier, given_licence, report)
    finally:
        if not committed:
            _clean_up_after_failure(project, import_id)
    return report


def _record_earlier_imports(
    project: ProjectContext, path: Path, item_ids: Sequence[str], given: str | None, report: ImportReport
) -> None:
    """The file's items an earlier import wrote (``item_ids``; left unchanged or replaced, they keep that import):
    record its sentences' licence where none was recorded (an import made before licences were), or where the
    licence is given now. A file of new items only has none to read."""
    if not item_ids:
        return
    wanted = set(item_ids)
    with project.db.read() as conn:
        imports = {import_id for item_id, import_id in project.repo.item_imports(conn).items() if item_id in wanted}
        recorded = project.repo.sources_by_key(conn, [f"corpus:{import_id}" for import_id in imports])
    todo = [i for i in sorted(imports) if given is not None or f"corpus:{i}" not in recorded]
    if not todo:
        return
    records = [corpus_record(import_id, path, given) for import_id in todo]
    with project.db.write() as conn:
        project.repo.put_sources(conn, records)
    if not report.corpus_licence:
        report.corpus_licence, report.corpus_stated = records[0].licence, records[0].stated


def _clean_up_after_failure(project: ProjectContext, import_id: int) -> None:
    """Best effort: delete what this import staged; if even that fails, the next import does it."""
    with contextlib.suppress(Exception):  # the original error is the one the user must see
        _delete_import(project, import_id)
