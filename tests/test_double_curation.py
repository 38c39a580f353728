"""Double curation service (issue 11): assignment, private copies, permissions (database unchanged after every
refusal), adjudication into the item-language with history naming the sources, agreement, and the v2→v3 migration."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import dump

from annotator.commands.project import create_demo
from annotator.domain.model import Role, Side, Status, User
from annotator.domain.workflow import WorkflowError
from annotator.errors import ConflictError, PermissionDenied, UserError
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService, load_agreement

ITEM, OTHER, LANG = "shot-whiskey", "head-stream", "IT"


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("double-demo") / "data"
    create_demo(str(path), quiet=True)
    project = Project.open(path)
    add_user(project, "ana", Role.TRANSLATOR, ("IT",), "ana-password")
    add_user(project, "ben", Role.TRANSLATOR, ("IT",), "ben-password")
    add_user(project, "dora", Role.TRANSLATOR, ("DE",), "dora-password")
    project.db.dispose()
    return path


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path) -> Project:
    data = tmp_path / "data"
    shutil.copytree(demo_template, data)
    return Project.open(data)


def user(project: Project, name: str) -> User:
    with project.db.read() as conn:
        found = project.repo.get_user(conn, name)
    assert found is not None
    return found


@pytest.fixture
def assigned(demo: Project) -> Project:
    DoubleCurationService(demo, user(demo, "lead")).assign(LANG, ["ana", "ben"], item_ids=[ITEM, OTHER])
    return demo


def test_assignment_gives_each_translator_a_copy_of_the_prepopulated_sets(assigned: Project) -> None:
    ana = DoubleCurationService(assigned, user(assigned, "ana"))
    assert [(c.item_id, c.status) for c in ana.my_copies()] == [(OTHER, Status.PENDING), (ITEM, Status.PENDING)]
    _item, copy = ana.copy(ITEM, LANG)
    assert [e.format() for e in copy.good] == ["goccio", "bicchierino"]
    assert "sparo" in [e.format() for e in copy.bad]
    # the translator's overview shows only their own copy's status
    summaries = ana.assignments(LANG)
    assert [(s.item_id, s.annotators) for s in summaries] == [
        (OTHER, {"ana": Status.PENDING}),
        (ITEM, {"ana": Status.PENDING}),
    ]
    lead_view = DoubleCurationService(assigned, user(assigned, "lead")).assignments(LANG)
    assert lead_view[0].annotators == {"ana": Status.PENDING, "ben": Status.PENDING}
    with assigned.db.read() as conn:
        assert assigned.repo.audit(conn)[0]["action"] == "assign"


def test_a_share_picks_that_many_pending_items_and_bad_requests_change_nothing(demo: Project) -> None:
    lead = DoubleCurationService(demo, user(demo, "lead"))
    before = dump(demo)
    with pytest.raises(UserError, match="at least two"):
        lead.assign(LANG, ["ana", "ana"], share=0.5)
    with pytest.raises(UserError, match="'dora' is not an active account that may curate IT"):
        lead.assign(LANG, ["ana", "dora"], share=0.5)
    with pytest.raises(UserError, match="no-such-item \\[IT\\] cannot be assigned"):
        lead.assign(LANG, ["ana", "ben"], item_ids=[ITEM, "no-such-item"])
    with pytest.raises(UserError, match="share must be above 0"):
        lead.assign(LANG, ["ana", "ben"], share=1.5)
    assert dump(demo) == before
    chosen = lead.assign(LANG, ["ana", "ben"], share=0.5)
    with demo.db.read() as conn:
        total = sum(1 for _ in demo.repo.iter_item_languages(conn, LANG))
    assert len(chosen) == round(total / 2)
    # what is assigned cannot be assigned again
    with pytest.raises(UserError, match="already assigned"):
        lead.assign(LANG, ["ana", "ben"], item_ids=[chosen[0]])


def finish_both(project: Project) -> None:
    ana = DoubleCurationService(project, user(project, "ana"))
    ben = DoubleCurationService(project, user(project, "ben"))
    state = ana.add_candidate(ITEM, LANG, Side.GOOD, "cicchetto", 0)
    state = ana.move_candidate(ITEM, LANG, "bicchierino", Side.BAD, state.version)
    ana.mark_done(ITEM, LANG, state.version)
    state = ben.add_candidate(ITEM, LANG, Side.GOOD, "Cicchetto", 0)
    ben.mark_done(ITEM, LANG, state.version)
    ana.discard(OTHER, LANG, "idiom", "", 0)
    ben.flag_discuss(OTHER, LANG, "unclear sense", 0)


def test_permissions_every_refusal_leaves_the_database_unchanged(assigned: Project) -> None:
    ana = DoubleCurationService(assigned, user(assigned, "ana"))
    ben = DoubleCurationService(assigned, user(assigned, "ben"))
    dora = DoubleCurationService(assigned, user(assigned, "dora"))
    state = ana.add_candidate(ITEM, LANG, Side.GOOD, "cicchetto", 0)
    before = dump(assigned)
    refused = [
        (PermissionDenied, lambda: ben.copy(ITEM, LANG, "ana")),  # read another's copy
        (PermissionDenied, lambda: dora.copy(ITEM, LANG, "ana")),
        (PermissionDenied, lambda: ben.comparison(ITEM, LANG)),  # see the copies side by side
        (PermissionDenied, lambda: ben.adjudicate(ITEM, LANG, ["goccio"], [], 0)),
        (PermissionDenied, lambda: ben.adjudicate_discard(ITEM, LANG, "idiom", "", 0)),
        (PermissionDenied, lambda: ben.assign(LANG, ["ana", "ben"], share=1.0)),
        (PermissionDenied, lambda: ben.agreement()),
        (PermissionDenied, lambda: dora.add_candidate(ITEM, LANG, Side.GOOD, "sorso", 0)),  # wrong language
        (UserError, lambda: DoubleCurationService(assigned, user(assigned, "lead")).mark_done(ITEM, LANG, 0)),
        (ConflictError, lambda: ana.add_candidate(ITEM, LANG, Side.GOOD, "sorso", 0)),  # stale version
        # ordinary curation of an assigned item-language is closed, for translators and leads alike
        (WorkflowError, lambda: CurationService(assigned, user(assigned, "ana")).mark_done(ITEM, LANG, 0)),
        (
            WorkflowError,
            lambda: CurationService(assigned, user(assigned, "lead")).add_candidate(ITEM, LANG, "good", "x", 0),
        ),
        # the lead adjudicates only when every copy is finished
        (
            WorkflowError,
            lambda: DoubleCurationService(assigned, user(assigned, "lead")).adjudicate(ITEM, LANG, ["goccio"], [], 0),
        ),
    ]
    for error, call in refused:
        with pytest.raises(error):
            call()
        assert dump(assigned) == before
    # ben's own copy is untouched by ana's edit: copies are private
    _item, ben_copy = ben.copy(ITEM, LANG)
    assert "cicchetto" not in [e.key for e in ben_copy.good]
    assert ana.copy(ITEM, LANG)[1].version == state.version


def test_finished_copies_lock_and_the_lead_adjudicates(assigned: Project) -> None:
    ana = DoubleCurationService(assigned, user(assigned, "ana"))
    lead = DoubleCurationService(assigned, user(assigned, "lead"))
    state = ana.add_candidate(ITEM, LANG, Side.GOOD, "cicchetto", 0)
    state = ana.mark_done(ITEM, LANG, state.version)
    state = ana.reopen(ITEM, LANG, state.version)  # ben has not finished: ana may still change her mind
    state = ana.move_candidate(ITEM, LANG, "bicchierino", Side.BAD, state.version)
    ana.mark_done(ITEM, LANG, state.version)
    ben = DoubleCurationService(assigned, user(assigned, "ben"))
    state = ben.add_candidate(ITEM, LANG, Side.GOOD, "Cicchetto", 0)
    ben_done = ben.mark_done(ITEM, LANG, state.version)
    with pytest.raises(WorkflowError, match="with a lead"):
        ben.reopen(ITEM, LANG, ben_done.version)

    comparison = lead.comparison(ITEM, LANG)
    assert comparison.all_finished
    differing = {row.text: row.values for row in comparison.rows if row.differs}
    assert differing == {"bicchierino": {"ana": "bad", "ben": "good"}}
    same = {row.key: row.values for row in comparison.rows if not row.differs}
    assert same["cicchetto"] == {"ana": "good", "ben": "good"}  # case-only difference: one candidate

    with assigned.db.read() as conn:
        version = assigned.repo.get_item_language(conn, ITEM, LANG).version
    saved = lead.adjudicate(ITEM, LANG, ["goccio", "cicchetto", "sorso"], ["bicchierino", "sparo"], version)
    assert saved.status is Status.DONE and saved.status_by == "lead"
    assert [e.format() for e in saved.good] == ["goccio", "cicchetto", "sorso"]
    goccio = saved.good[0]
    assert goccio.origin.value == "lexicon" and goccio.synsets  # provenance kept from G0
    with assigned.db.read() as conn:
        history = assigned.repo.history(conn, ITEM, LANG)
    assert history[-1].action == "adjudicate" and history[-1].user == "lead"
    sources = history[-1].detail["sources"]
    assert sources["goccio"] == ["ana", "ben"] and sources["bicchierino"] == ["ana"] and sources["sorso"] == ["lead"]
    assert history[-1].detail["copies"]["ana"]["status"] == "done"
    # adjudicated: the copies are closed, and the item-language is back in the ordinary flow
    with pytest.raises(WorkflowError, match="adjudicated"):
        lead.adjudicate(ITEM, LANG, ["goccio"], [], saved.version)
    reopened = CurationService(assigned, user(assigned, "lead")).reopen(ITEM, LANG, saved.version)
    assert reopened.status is Status.IN_PROGRESS


def test_agreement_over_the_finished_copies(assigned: Project) -> None:
    finish_both(assigned)
    report = DoubleCurationService(assigned, user(assigned, "lead")).agreement(["IT", "DE"])
    it = report.languages["IT"]
    # shot-whiskey: both done; head-stream: discarded vs DISCUSS → decisions agree 1 of 2
    assert (it.decision_pairs, it.decision_agree) == (2, 1)
    # GOOD: ana {goccio, cicchetto}, ben {goccio, bicchierino, cicchetto} → not exact, Jaccard 2/3
    assert it.exact_good == 0 and it.mean_jaccard_good == pytest.approx(2 / 3)
    # pre-populated units: G0 ∪ B0 = 10, only bicchierino differs (bad vs good) → 9/10; added: cicchetto agrees
    assert (it.prepopulated_units, it.prepopulated_agree) == (10, 9)
    assert (it.added_units, it.added_agree) == (1, 1)
    assert it.alpha_units == 11
    assert report.languages["DE"].alpha is None
    assert load_agreement(assigned).to_json() == report.to_json() | {"languages": {"IT": it.to_json()}}


def test_a_version_2_database_gains_the_double_curation_tables(demo: Project) -> None:
    with demo.db.write() as conn:
        conn.exec_driver_sql("DROP TABLE copies")
        conn.exec_driver_sql("DROP TABLE assignments")
        conn.exec_driver_sql("UPDATE meta SET value='2' WHERE key='schema_version'")
    reopened = Project.open(demo.data_dir)
    with reopened.db.read() as conn:
        assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() == "3"
        assert conn.exec_driver_sql("SELECT count(*) FROM assignments").scalar() == 0
    DoubleCurationService(reopened, user(reopened, "lead")).assign(LANG, ["ana", "ben"], item_ids=[ITEM])
