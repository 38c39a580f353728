"""GOOD and BAD are stored as NULL while they are still G0 and B0, and a lexicon candidate in short form: every
reader of the store returns the full lists (decoded, or as JSON text in exported form), SQL over the current lists
gives the answers it gave when both were written in full, and a project written in the old form (both written, every
candidate in full) is upgraded by revision 0017 and reads back identically, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from project_helpers import rewind_schema
from store_rows import add_items, item

from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Status
from annotator.project import Project
from annotator.store.database import head_revision
from annotator.store.evaluation_rows import EvaluationRow
from annotator.store.item_languages import candidates_from_json, candidates_to_json

pytestmark = pytest.mark.both_engines

G0 = (
    CandidateEntry("banca", "NOUN", Origin.LEXICON, ("bn:00008364n",)),
    CandidateEntry("istituto", None, Origin.LEXICON),
)
B0 = (CandidateEntry("riva", None, Origin.LEXICON, ("bn:00008363n",)),)
ADDED = CandidateEntry("cassa")
B_SYNSET = item("b").synset
#: Texts a plain text replacement of the short form could trip on, were it not anchored on an unescaped quote.
HOSTILE = (
    CandidateEntry('x{"l":y', None, Origin.LEXICON, ("bn:1",)),
    CandidateEntry("a\\", None, Origin.LEXICON),
    CandidateEntry('{"l":', None, Origin.TRANSLATOR),
)


def full(entries: tuple[CandidateEntry, ...]) -> str:
    """A list as exported (SPEC: every candidate ``{"origin", "pos", "synsets", "text"}``), written independently."""
    return json.dumps(
        [{"origin": e.origin.value, "pos": e.pos, "synsets": list(e.synsets), "text": e.text} for e in entries],
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
    )


def test_lexicon_candidates_are_stored_short_and_read_from_either_form() -> None:
    short = candidates_to_json((*G0, *HOSTILE))
    assert short.count('{"l":') == 3  # istituto and the first two hostile texts; a tagged or typed one in full
    assert len(short) < len(full((*G0, *HOSTILE)))
    assert candidates_from_json(short) == candidates_from_json(full((*G0, *HOSTILE))) == (*G0, *HOSTILE)


def _states() -> list[ItemLanguage]:
    """Pre-populated item-languages: untouched, GOOD edited, BAD emptied, G0 empty, and one never pre-populated."""
    return [
        ItemLanguage("a", "IT", Status.PENDING, 0, G0, B0, G0, B0, prepopulated=True),
        ItemLanguage("b", "IT", Status.DONE, 0, (*G0, ADDED), B0, G0, B0, prepopulated=True),
        ItemLanguage("c", "IT", Status.DONE, 0, G0, (), G0, B0, prepopulated=True),
        ItemLanguage("a", "DE", Status.PENDING, 0, (), B0, (), B0, prepopulated=True),
        ItemLanguage("b", "DE", Status.DONE, 0, (ADDED,), B0, (), B0, prepopulated=True),
    ]


def _written(project: Project) -> None:
    add_items(project, [item("a"), item("b"), item("c")], langs=("IT", "DE"))
    with project.db.write() as conn:
        project.repo.save_item_languages(conn, _states(), "system:prepopulate", "prepopulate", [{}] * len(_states()))


def _stored(project: Project) -> dict[tuple[str, str], tuple[Any, Any]]:
    with project.db.read() as conn:
        rows = conn.exec_driver_sql("SELECT item_id, lang, good, bad FROM item_languages")
        return {(i, lang): (good, bad) for i, lang, good, bad in rows}


def _everything_read(project: Project) -> dict[str, Any]:
    """What every reader of the store returns for the project (the lists as decoded states and as stored text)."""
    with project.db.read() as conn:
        return {
            "states": list(project.repo.iter_item_languages(conn)),
            "of_items": project.repo.item_languages_of_items(conn, ["a", "b", "c"]),
            "one": project.repo.get_item_language(conn, "b", "IT"),
            "sets": list(project.repo.iter_candidate_sets(conn)),
            "evaluation": sorted(map(tuple, project.repo.evaluation_rows(conn, ["IT", "DE"])), key=repr),
            "empty_good": project.repo.empty_good_rows(conn),
            "team": project.repo.team_rows(conn, [B_SYNSET], "DE", other_than="a"),
        }


def test_unedited_good_and_bad_are_stored_once_and_read_in_full(project: Project) -> None:
    _written(project)
    stored = _stored(project)
    assert stored[("a", "IT")] == (None, None)  # still G0/B0: held only in initial_good/initial_bad
    assert stored[("b", "IT")] == (candidates_to_json((*G0, ADDED)), None)
    assert stored[("c", "IT")] == (None, "[]")
    assert stored[("a", "DE")] == (None, None)
    read = _everything_read(project)
    states = {(s.item_id, s.lang): s for s in read["states"]}
    assert states.pop(("c", "DE")) == ItemLanguage("c", "DE")  # never saved: pending, empty
    for written in _states():
        state = states[(written.item_id, written.lang)]
        assert state == replace(written, version=1, updated_by="system:prepopulate", updated_at=state.updated_at)
    sets = {(r.item_id, r.lang): (r.good, r.bad, r.initial_good) for r in read["sets"]}
    assert sets[("a", "IT")] == (full(G0), full(B0), full(G0))  # as exported, though stored short
    assert sets[("b", "IT")] == (full((*G0, ADDED)), full(B0), full(G0))
    assert sets[("c", "IT")] == (full(G0), "[]", full(G0))
    # the item-languages with an empty G0 (both DE), with their current lists; the team's GOOD read for b's σ
    assert [(r.item_id, r.lang, r.good, r.bad) for r in read["empty_good"]] == [
        ("a", "DE", "[]", full(B0)),
        ("b", "DE", full((ADDED,)), full(B0)),
    ]
    assert [(row.item_id, row.good) for row in read["team"]] == [("b", full((ADDED,)))]
    evaluation = [EvaluationRow(*row) for row in read["evaluation"]]
    assert sorted((row.id, row.good, row.bad) for row in evaluation if row.lang == "IT") == [
        ("a", full(G0), full(B0)),
        ("b", full((*G0, ADDED)), full(B0)),
        ("c", full(G0), "[]"),
    ]


def test_hostile_texts_come_back_unchanged_from_every_reader(project: Project) -> None:
    add_items(project, [item("a")], langs=("IT",))
    state = ItemLanguage("a", "IT", Status.DONE, 0, (*HOSTILE, ADDED), HOSTILE, HOSTILE, HOSTILE, prepopulated=True)
    with project.db.write() as conn:
        project.repo.save_item_languages(conn, [state], "ivo", "done", [{}])
    with project.db.read() as conn:
        assert project.repo.get_item_language(conn, "a", "IT").good == (*HOSTILE, ADDED)  # type: ignore[union-attr]
        (row,) = project.repo.iter_candidate_sets(conn)
    assert (row.good, row.bad, row.initial_good) == (full((*HOSTILE, ADDED)), full(HOSTILE), full(HOSTILE))


def test_a_project_written_with_both_lists_is_upgraded_and_reads_back_identically(project: Project) -> None:
    _written(project)
    before = _everything_read(project)
    with project.db.write() as conn:  # the form every earlier release wrote: GOOD/BAD always written out
        rewind_schema(conn, "0016_suggestion_kinds")
    old = _stored(project)
    assert None not in {value for pair in old.values() for value in pair}
    assert old[("a", "IT")] == (full(G0), full(B0))
    project.db.dispose()

    reopened = Project.open(project.data_dir)
    assert reopened.db.schema_revision() == head_revision()
    assert _stored(reopened) == {
        ("a", "IT"): (None, None),
        ("b", "IT"): (candidates_to_json((*G0, ADDED)), None),
        ("c", "IT"): (None, "[]"),
        ("a", "DE"): (None, None),
        ("b", "DE"): (candidates_to_json((ADDED,)), None),
        ("c", "DE"): (None, None),
    }
    with reopened.db.read() as conn:  # G0/B0 rewritten in short form too
        initial = conn.exec_driver_sql("SELECT initial_good FROM item_languages WHERE item_id = 'a' AND lang = 'IT'")
        assert initial.scalar_one() == candidates_to_json(G0) != full(G0)
    assert _everything_read(reopened) == before


def test_the_downgrade_writes_the_lists_back_and_the_upgrade_takes_them_out_again(project: Project) -> None:
    from alembic import command

    from annotator.store.schema_migrations import alembic_config

    _written(project)
    before, stored = _everything_read(project), _stored(project)
    with project.db.write() as conn:
        config = alembic_config()
        config.attributes["connection"] = conn
        command.downgrade(config, "0016_suggestion_kinds")
    old = _stored(project)
    assert old[("b", "IT")] == (full((*G0, ADDED)), full(B0))
    assert old[("c", "DE")] == ("[]", "[]")
    with pytest.raises(Exception, match=r"(?i)not[ -]null"), project.db.write() as conn:
        conn.exec_driver_sql("UPDATE item_languages SET good = NULL")  # NOT NULL again, as before revision 0017
    project.db.dispose()
    reopened = Project.open(project.data_dir)
    assert (_stored(reopened), _everything_read(reopened)) == (stored, before)
