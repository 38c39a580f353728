"""Import items into a project: validate the whole file, then write everything in one transaction.

Re-importing the same file is a no-op; a changed item that already has curated work is refused unless
forced, because silently replacing a sentence under a translator's candidates would corrupt the dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlalchemy import Connection

from annotator.data_import.items import ParsedItems, RowProblem, content_hash, parse_item_file
from annotator.data_import.limits import project_limits
from annotator.domain.model import Item, ItemLanguage, Status, User
from annotator.errors import UserError
from annotator.progress import ProgressCallback, no_progress
from annotator.project import Project
from annotator.services import administration
from annotator.store.repository import Repository

#: Who the history names for changes the import makes by itself.
SYSTEM_USER = "system:import"

#: Rows written per statement batch; progress is reported after each.
INSERT_CHUNK = 500


@dataclass
class ImportReport:
    added: int = 0
    unchanged: int = 0
    replaced: int = 0
    #: Items whose only change is their gloss (not part of what an item *is*): the new gloss is applied.
    glosses: int = 0
    warnings: list[RowProblem] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.added} added, {self.replaced} replaced, {self.unchanged} unchanged"
            + (f", {self.glosses} gloss(es) updated" if self.glosses else "")
            + (f", {len(self.warnings)} warning(s)" if self.warnings else "")
        )


class CuratedWorkError(UserError):
    """Changed items already have curated work; re-run with force to replace them."""


def _forget_prepopulation(repo: Repository, conn: Connection, item: Item, states: list[ItemLanguage]) -> None:
    """λ or σ changed: G0/B0 came from the old senses, so the next pre-population must redo them.

    Untouched pending sets are cleared with them; curated current sets are the translators' work and stay.
    """
    for state in states:
        untouched = state.status is Status.PENDING and (state.good, state.bad) == (
            state.initial_good,
            state.initial_bad,
        )
        new = replace(
            state,
            prepopulated=False,
            initial_good=(),
            initial_bad=(),
            overlaps=(),
            good=() if untouched else state.good,
            bad=() if untouched else state.bad,
        )
        detail = {"lemma": item.target.lemma, "pos": item.target.pos, "synset": item.synset}
        repo.save_item_language(conn, new, state.version, SYSTEM_USER, "item_changed", detail)


def _apply_gloss_changes(repo: Repository, conn: Connection, same: list[Item]) -> int:
    """Items identical but for their gloss: apply a new gloss from the file (one read, one batched write).

    An empty gloss in the file keeps the stored one (pre-population may have learnt it from the lexicon).
    """
    with_gloss = [item for item in same if item.gloss]
    if not with_gloss:
        return 0
    stored = repo.item_glosses(conn)
    changed = [(item.id, item.gloss) for item in with_gloss if stored.get(item.id) != item.gloss]
    repo.set_glosses(conn, changed)
    return len(changed)


def import_items(
    project: Project,
    path: Path | str,
    force: bool = False,
    progress: ProgressCallback = no_progress,
    user: User | None = None,
) -> ImportReport:
    """``user`` is the lead acting in the app (checked and audited); None for the command line."""
    administration.check_admin(user, "import items")
    with project.db.read() as conn:  # ids are unique case-insensitively across the project, not just the file
        known_ids = list(project.repo.item_hashes(conn))
    parsed: ParsedItems = parse_item_file(path, project_limits(project), known_ids)
    report = ImportReport(warnings=parsed.warnings)
    languages = project.settings().languages
    total = len(parsed.items)
    with project.db.write() as conn:
        repo = project.repo
        hashes = repo.item_hashes(conn)
        position = repo.next_position(conn)
        new_ids: list[str] = []
        new_rows: list[tuple[Item, str, int]] = []
        blocked: list[str] = []
        same: list[Item] = []
        for done, item in enumerate(parsed.items, start=1):
            digest = content_hash(item)
            old = hashes.get(item.id)
            if old is None:
                new_rows.append((item, digest, position))
                position += 1
                new_ids.append(item.id)
                report.added += 1
            elif old == digest:
                same.append(item)
            else:
                states = repo.item_languages_of(conn, item.id)
                curated = [il for il in states.values() if il.status is not Status.PENDING]
                if curated and not force:
                    blocked.append(item.id)
                else:
                    before = repo.get_item(conn, item.id)
                    same_lexicon = before is not None and (before.target.lemma, before.target.pos, before.synset) == (
                        item.target.lemma,
                        item.target.pos,
                        item.synset,
                    )
                    repo.replace_item(conn, item, digest, keep_lexicon=same_lexicon)
                    if not same_lexicon:
                        _forget_prepopulation(repo, conn, item, list(states.values()))
                    report.replaced += 1
            progress(done, total, "checking")
        if blocked:
            shown = ", ".join(blocked[:20]) + (" ..." if len(blocked) > 20 else "")
            raise CuratedWorkError(
                f"{Path(path).name}: {len(blocked)} changed item(s) already have curated work ({shown}); "
                "nothing was imported. Re-run with --force to replace them (their candidates are kept)."
            )
        report.glosses = _apply_gloss_changes(repo, conn, same)
        report.unchanged = len(same) - report.glosses
        for start in range(0, len(new_rows), INSERT_CHUNK):
            chunk = new_rows[start : start + INSERT_CHUNK]
            repo.insert_items(conn, chunk)
            repo.ensure_item_languages(conn, [item.id for item, _digest, _position in chunk], languages)
            progress(start + len(chunk), len(new_rows), "writing")
        if report.added or report.replaced or report.glosses:  # an unchanged re-import stays a true no-op
            detail = {"file": Path(path).name, "added": report.added, "replaced": report.replaced, "force": force}
            if report.glosses:
                detail["glosses"] = report.glosses
            administration.record(project, conn, user, "import", detail)
    return report
