"""``annotator import --prepopulate``: the import, and the pre-population of its new items while they are staged.

Each chunk of new items is pre-populated before it is written, and written once with its lists, its history and its
records, hidden like the rest of the import until it commits: the same rows as an import followed by ``prepopulate``
(one audit row each), without writing every item-language twice and reading it back in between. That path is taken
when the import only adds items and nothing else is left to pre-populate (otherwise the history would number its
rows in another order than the two commands do); else the import runs as usual and ``prepopulate`` after it.

A lexicon that stops answering (quota, unreachable) stops the pre-population, not the import: the items left are
staged pending, as a stopped run leaves them. Anything else that fails leaves nothing, as a failed import does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from annotator.context import ProjectContext
from annotator.data_import.items import ParsedItems
from annotator.domain.model import Item, Status, Target
from annotator.domain.settings import LexiconSettings
from annotator.errors import UserError
from annotator.gc_pause import gc_paused
from annotator.lexicon.base import Lexicon, LexiconError, LexiconQuotaError, LexiconUnavailableError
from annotator.progress import ProgressCallback, no_progress
from annotator.second_process import SecondProcess, can_fork
from annotator.services.importing import Chunk, ChunkWrite, ImportReport, NewItemChunks, import_items
from annotator.services.prepopulate import (
    SYSTEM_USER,
    PrepopulationBatch,
    PrepopulationReport,
    PrepopulationRun,
    finish_run,
    prepopulate,
    sources_rows,
    start_run,
)
from annotator.store.prepopulation import PendingState
from annotator.store.staging import KeptRows, StagedRows


def import_and_prepopulate(
    project: ProjectContext,
    path: Path | str,
    force: bool = False,
    progress: ProgressCallback = no_progress,
    corpus_licence: str | None = None,
    imported: Callable[[ImportReport], None] = lambda _report: None,
    processes: int | None = None,
    parse: Callable[[Sequence[str]], ParsedItems] | None = None,
) -> tuple[ImportReport, PrepopulationReport]:
    """Import an item file, then pre-populate what is left to do, as ``import_items`` then ``prepopulate`` (the
    command line's, ``user`` None) store it; the new items' item-languages pre-populated while staged when it can.
    ``imported`` is called with the import's report once it is committed, before a pre-population run after it
    (the command line prints it, as it did between the two commands). ``processes``: 2 pre-populates the new
    items in a second process while this one writes them, 1 in this one; default: the second one when it pays
    (``StagedPrepopulation.in_second_process``). Both store the same rows. ``parse``: as ``import_items`` takes it."""
    work = StagedPrepopulation(project, processes)
    # the collector is paused as a pre-population pauses it (young objects collected between chunks)
    with gc_paused(age_survivors=True):
        work.load_lexicon()  # while the file is read (a second process may be reading it)
        report = import_items(
            project, path, force=force, progress=progress, parse=parse, corpus_licence=corpus_licence, work=work
        )
    imported(report)
    if work.run is None:
        return report, prepopulate(project, progress=progress)
    finish_run(project, work.run, work.run.lexicon, work.before, None, save=True, languages=work.languages)
    return report, work.run.report


def _item(values: Mapping[str, Any]) -> Item:
    """The item a new row's values stand for, as a reader of the staged row would see it."""
    target = Target(values["target_text"], values["target_start"], values["target_end"], values["lemma"], values["pos"])
    return Item(
        id=values["id"], sentence=values["sentence"], target=target, synset=values["synset"], source=values["source"],
        gloss=values["gloss"], domain=values["domain"],
    )  # fmt: skip


class StagedPrepopulation:
    """The import's ``StagingWork``: a pre-population run over the new items, chunk by chunk."""

    def __init__(self, project: ProjectContext, processes: int | None = None) -> None:
        if processes is not None and processes not in (1, 2):
            raise ValueError(f"processes must be 1 or 2 (got {processes})")
        self.project = project
        self.processes = processes
        #: The run, once ``begin`` took the work.
        self.run: PrepopulationRun | None = None
        self.before: dict[str, int] = {}
        self.languages: tuple[str, ...] = ()
        #: The languages in the order a run reads an item's item-languages (``to_prepopulate``).
        self.in_order: tuple[str, ...] = ()
        self.stopped = False
        #: Ω(λ) as stored, per (λ case-folded, POS) (``prepopulated_rows``).
        self.senses_json: dict[tuple[str, str], str] = {}
        #: The project's lexicon built by ``load_lexicon``, and the settings it was built from.
        self.loaded: tuple[LexiconSettings, Lexicon] | None = None

    def load_lexicon(self) -> None:
        """Build the project's lexicon ahead of ``begin``, which uses it when the lexicon settings are still the
        same; one that cannot be built is left for ``begin`` to find again (the import then goes on alone)."""
        settings = self.project.settings()
        with contextlib.suppress(UserError, LexiconError):
            self.loaded = (settings.lexicon, self.project.lexicon(settings))

    def begin(self, replacements: int) -> bool:
        if replacements:
            return False
        settings = self.project.settings()
        languages = tuple(settings.languages)
        with self.project.db.read() as conn:
            todo = self.project.repo.prepopulation_todo(conn, languages)
        if todo.item_ids:
            return False
        report = PrepopulationReport(already_done=todo.already_done, excluded=len(todo.excluded))
        loaded = self.loaded[1] if self.loaded is not None and self.loaded[0] == settings.lexicon else None
        self.loaded = None
        try:
            self.run, self.before = start_run(self.project, settings, languages, report, project_lexicon=loaded)
        except (UserError, LexiconError):  # no usable lexicon: the import goes on alone, and ``prepopulate`` says why
            return False
        self.languages, self.in_order = languages, tuple(sorted(languages))
        return True

    def writes(self, chunks: NewItemChunks, import_id: int) -> Generator[ChunkWrite, None, None]:
        """What stages each chunk, in order: its rows, pre-populated and made outside any transaction, in a second
        process while this one writes when ``in_second_process`` says so, else here, each before its write."""
        if not self.in_second_process(len(chunks)):
            for chunk in chunks:
                yield self._writer(self._staged_rows(chunk, import_id))
            return
        run = self.run
        assert run is not None, "begin() took the work"
        with SecondProcess(lambda: self._all_staged_rows(chunks, import_id)) as child:
            for rows in child.values():  # one per chunk, then the result
                yield self._writer(rows)
            run.report, self.stopped = child.result

    def in_second_process(self, chunks: int) -> bool:
        """Whether to pre-populate ``chunks`` chunks in a second process: ``processes`` 2 (when the system can
        fork), or by default when the lexicon is held in memory (it computes alone; a lexicon asking a server or
        reading a database stays in one process), there are two chunks or more, and ``can_fork``."""
        if self.processes is not None:
            return self.processes >= 2 and hasattr(os, "fork")
        lexicon = self.run.lexicon if self.run is not None else None
        return chunks >= 2 and bool(getattr(lexicon, "held_in_memory", False)) and can_fork()

    def _all_staged_rows(
        self, chunks: NewItemChunks, import_id: int
    ) -> Generator[StagedRows, None, tuple[PrepopulationReport, bool]]:
        """The second process's work: each chunk's rows, then the run's report and whether it stopped."""
        for chunk in chunks:
            yield self._staged_rows(chunk, import_id)
        assert self.run is not None, "begin() took the work"
        return self.run.report, self.stopped

    def _staged_rows(self, chunk: Chunk, import_id: int) -> StagedRows:
        """A chunk of new items pre-populated, as the rows that stage it (pending where nothing was computed)."""
        batch = self._computed(chunk)
        if batch is None:
            return self.project.repo.prepopulated_rows(
                import_id, chunk, self.languages, (), "", "", {}, self.senses_json
            )
        computed = batch.computed
        kept = KeptRows(
            [(c.item_id, c.lang, c.record) for c in computed if c.record],
            [(c.item_id, c.lang, c.related_stamp, c.related) for c in computed if c.related_stamp],
            [(row.item_id, row.lang, row.sources) for row in sources_rows(batch)],
        )
        lexicon = {row.item_id: (row.gloss, row.senses) for row in batch.lexicon_rows}
        return self.project.repo.prepopulated_rows(
            import_id, chunk, self.languages, batch.list_saves, SYSTEM_USER, "prepopulate", lexicon, self.senses_json,
            kept,
        )  # fmt: skip

    def _computed(self, chunk: Chunk) -> PrepopulationBatch | None:
        """Pre-populate a chunk of new items (outside any transaction): its batch, None when it holds nothing."""
        run = self.run
        assert run is not None, "begin() took the work"
        if not self.stopped:
            try:
                for values in chunk:
                    states = [PendingState(values["id"], lang, 0, Status.PENDING, "[]", "[]") for lang in self.in_order]
                    run.add_item(_item(values), states)
            except (LexiconQuotaError, LexiconUnavailableError) as error:
                run.report.stopped, self.stopped = str(error), True  # the items left are staged pending
        batch = run.take_batch()
        if batch is not None:
            run.written(batch)
        return batch

    def _writer(self, rows: StagedRows) -> ChunkWrite:
        return partial(self.project.repo.write_staged_rows, rows=rows)

    def commit(self, conn: Connection) -> None:
        if self.run is not None:  # the sources of the lists, recorded as a run's batches record them
            self.project.repo.put_sources(conn, self.run.provenance.records, replace=False)
