"""Issue 32, acceptance 4: what the suggestion card (issue 33) reads and writes on each run of Curate and Review.

The related suggestions are kept by pre-population, so a card neither opens the lexicon nor writes; the team's
look-up reads items by sense; with no lexicon configured the card refuses before reading anything else. Statements
and transactions are counted with SQLAlchemy's engine events; both engines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prepopulate_data import ROWS, SNAPSHOT
from sqlalchemy import Engine, event

from annotator.domain.model import Item, ItemLanguage, Role, Side, Status
from annotator.errors import UserError
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.prepopulate import Redo, prepopulate
from annotator.services.suggestions.card import shown_card

pytestmark = pytest.mark.both_engines


@dataclass
class Statements:
    """The statements and transactions a block of code ran on a project's engine."""

    sql: list[tuple[str, object]] = field(default_factory=list)
    transactions: int = 0

    @property
    def writes(self) -> list[str]:
        return [s for s, _p in self.sql if s.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]

    @property
    def selects(self) -> list[str]:
        return [s for s, _p in self.sql if s.lstrip().upper().startswith("SELECT")]


@contextmanager
def counted(project: Project | None = None) -> Iterator[Statements]:
    """Statements on ``project``'s engine, or on every engine of the process (the app opens its own)."""
    found = Statements()
    engine: Any = project.db.engine if project is not None else Engine

    def on_statement(_conn, _cursor, statement, parameters, _context, _many) -> None:  # type: ignore[no-untyped-def]
        found.sql.append((statement, parameters))

    def on_begin(_conn) -> None:  # type: ignore[no-untyped-def]
        found.transactions += 1

    event.listen(engine, "before_cursor_execute", on_statement)
    event.listen(engine, "begin", on_begin)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)
        event.remove(engine, "begin", on_begin)


def shown(project: Project, item_id: str, lang: str) -> tuple[Item, ItemLanguage]:
    with project.db.read() as conn:
        item = project.repo.get_item(conn, item_id)
        state = project.repo.get_item_language(conn, item_id, lang)
    assert item is not None and state is not None
    return item, state


@pytest.fixture
def snapshot_project(project: Project, tmp_path: Path, write_jsonl) -> tuple[Project, Path]:
    """A project on a snapshot file where German allows WIKTLB only (so σ's WIKT word is a related suggestion),
    pre-populated from it; and the file."""
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    project.save_settings(
        ProjectSettings(
            name="s", lexicon=LexiconSettings("snapshot", snapshot=str(path)), allowed_sources={"DE": ["WIKTLB"]}
        )
    )
    import_items(project, write_jsonl("items.jsonl", ROWS))
    prepopulate(project)
    return project, path


def test_pre_population_keeps_the_related_part_so_a_card_opens_no_lexicon_and_writes_nothing(
    snapshot_project: tuple[Project, Path],
) -> None:
    project, path = snapshot_project
    with project.db.read() as conn:
        rows = project.repo.cached_suggestions_of(conn, [("fire", lang) for lang in project.settings().languages])
    assert len(rows) == len(project.settings().languages)  # every item-language, not only the visited ones
    # the file's content is broken, its time kept: a card that opened the lexicon would fail
    times = path.stat()
    path.write_text("not a snapshot", encoding="utf-8")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    item, state = shown(project, "fire", "DE")
    with counted(project) as done:
        card = shown_card(project, item, state)
    found = {s.text: s for s in card.suggestions}
    assert found["Schuss"].relation == "not allowed lexicon"  # σ's word in WIKT, kept by pre-population
    assert done.writes == [] and done.transactions == 1


def test_a_redo_replaces_the_related_part_and_keeps_the_machine_translations_part(
    snapshot_project: tuple[Project, Path],
) -> None:
    project, _path = snapshot_project
    with project.db.write() as conn:
        before = project.repo.cached_suggestions_of(conn, [("fire", "DE")])[("fire", "DE")]
        project.repo.put_cached_suggestions(
            conn, [("fire", "DE", before._replace(related="[]", mt_stamp="evaluation:7", mt="[1]"))]
        )
    prepopulate(project, redo=Redo(items=("fire",)))
    with project.db.read() as conn:
        after = project.repo.cached_suggestions_of(conn, [("fire", "DE")])[("fire", "DE")]
    assert after == before._replace(mt_stamp="evaluation:7", mt="[1]")  # related computed again, MT part kept


def test_a_lexicon_passed_to_pre_population_keeps_no_related_part(project: Project, write_jsonl) -> None:
    """The card's stamp names the project's own lexicon: what another one answered is not kept under it."""
    from annotator.lexicon.snapshot import SnapshotLexicon

    import_items(project, write_jsonl("items.jsonl", ROWS))
    prepopulate(project, lexicon=SnapshotLexicon.from_data(SNAPSHOT, origin="test"))
    with project.db.read() as conn:
        assert project.repo.cached_suggestions_of(conn, [("fire", "DE"), ("drink", "IT")]) == {}


def test_with_no_lexicon_configured_the_card_refuses_before_reading_anything_else(
    project: Project, write_jsonl
) -> None:
    import_items(project, write_jsonl("items.jsonl", ROWS))
    item, state = shown(project, "fire", "DE")
    with counted(project) as done, pytest.raises(UserError, match="No lexicon is set"):
        shown_card(project, item, state)
    assert len(done.selects) == 1 and done.transactions == 1  # the settings only


def test_the_team_look_up_reads_the_items_of_the_senses_not_the_language_s_curated_list(
    snapshot_project: tuple[Project, Path],
) -> None:
    project, _path = snapshot_project
    ivo = add_user(project, "lena", Role.LEAD, (), "lena-password-long")
    service = CurationService(project, ivo)
    _item, drink_2 = shown(project, "drink-2", "IT")
    service.add_candidate("drink-2", "IT", Side.GOOD, "cicchetto", drink_2.version)
    service.mark_done("drink-2", "IT", shown(project, "drink-2", "IT")[1].version)
    item, state = shown(project, "drink", "IT")
    with counted(project) as done:
        card = shown_card(project, item, state)
    team = [s for s in card.suggestions if s.source == "team"]
    assert [(s.text, s.side) for s in team] == [("cicchetto", "GOOD")]  # curated GOOD on the same σ
    assert shown(project, "drink-2", "IT")[1].status is Status.DONE
    statement, parameters = next((s, p) for s, p in done.sql if "items.synset IN" in s.replace('"', ""))
    if project.db.engine.dialect.name == "sqlite":  # PostgreSQL plans from its statistics; SQLite from the indexes
        with project.db.engine.connect() as conn:
            plan = " | ".join(row[-1] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters))
        assert "ix_items_synset" in plan and "ix_item_languages_lang_status" not in plan, plan


def test_next_on_the_curate_page_reads_the_new_card_and_writes_nothing(
    snapshot_project: tuple[Project, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new card used to compute its related part and write it in a transaction of its own."""
    from app_helpers import area, logged_in, send_area

    project, _path = snapshot_project
    add_user(project, "lena", Role.LEAD, (), "lena-password-long")
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    at = logged_in("lena", "lena-password-long")
    shown_before = (area(at)["item"], area(at)["lang"])
    with counted() as done:
        send_area(at, "next")
    assert (area(at)["item"], area(at)["lang"]) != shown_before
    assert done.writes == [], done.writes


def test_a_snapshot_named_inside_the_data_folder_is_stamped_by_its_own_time(
    project: Project, tmp_path: Path, write_jsonl, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept related part names the snapshot as ``Project.lexicon`` opens it (relative to the data folder), so a
    run started from any folder stamps it alike, and a changed file makes the next card compute it again."""
    path = project.data_dir / "snapshot.json"
    path.parent.mkdir(parents=True, exist_ok=True)  # (a PostgreSQL project's folder holds no database file)
    path.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    project.save_settings(
        ProjectSettings(
            name="s", lexicon=LexiconSettings("snapshot", snapshot="snapshot.json"), allowed_sources={"DE": ["WIKTLB"]}
        )
    )
    import_items(project, write_jsonl("items.jsonl", ROWS))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    prepopulate(project)
    item, state = shown(project, "fire", "DE")
    with counted(project) as done:
        shown_card(project, item, state)
    assert done.writes == []  # kept by pre-population, current
    later = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    with counted(project) as done:
        card = shown_card(project, item, state)
    assert done.writes  # the changed snapshot's part computed again and kept
    assert "Schuss" in {s.text for s in card.suggestions}
