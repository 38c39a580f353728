"""Double curation service (issue 11): assignment, private copies, permissions (database unchanged after every
refusal), adjudication into the item-language with history naming the sources, agreement, and the v2→v3 migration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from double_curation_data import ITEM, LANG, OTHER, user
from project_helpers import dump, rewind_schema

from annotator.domain.commands import (
    AddCandidate,
    Address,
    Command,
    Discard,
    FlagDiscuss,
    MarkDone,
    MoveCandidate,
    Reopen,
)
from annotator.domain.model import DiscardReason, ItemLanguage, Side, Status
from annotator.domain.workflow import WorkflowError
from annotator.errors import ConflictError, PermissionDenied, UserError
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.double_curation import DoubleCurationService, load_agreement


def edit(
    service: DoubleCurationService, item_id: str, command: Command, version: int, owner: str | None = None
) -> ItemLanguage:
    """A change to ``owner``'s copy (the acting user's by default): the one curation service, a copy's address."""
    address = Address(item_id, LANG, owner or service.user.name)
    return CurationService(service.project, service.user).handle(address, command, version)


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
    state = edit(ana, ITEM, AddCandidate(Side.GOOD, "cicchetto"), 0)
    state = edit(ana, ITEM, MoveCandidate("bicchierino", Side.BAD), state.version)
    edit(ana, ITEM, MarkDone(), state.version)
    state = edit(ben, ITEM, AddCandidate(Side.GOOD, "Cicchetto"), 0)
    edit(ben, ITEM, MarkDone(), state.version)
    edit(ana, OTHER, Discard(DiscardReason.IDIOM), 0)
    edit(ben, OTHER, FlagDiscuss("unclear sense"), 0)


def test_permissions_every_refusal_leaves_the_database_unchanged(assigned: Project) -> None:
    ana = DoubleCurationService(assigned, user(assigned, "ana"))
    ben = DoubleCurationService(assigned, user(assigned, "ben"))
    dora = DoubleCurationService(assigned, user(assigned, "dora"))
    state = edit(ana, ITEM, AddCandidate(Side.GOOD, "cicchetto"), 0)
    before = dump(assigned)
    refused = [
        (PermissionDenied, lambda: ben.copy(ITEM, LANG, "ana")),  # read another's copy
        (PermissionDenied, lambda: dora.copy(ITEM, LANG, "ana")),
        (PermissionDenied, lambda: ben.comparison(ITEM, LANG)),  # see the copies side by side
        (PermissionDenied, lambda: ben.adjudicate(ITEM, LANG, ["goccio"], [], 0)),
        (PermissionDenied, lambda: ben.adjudicate_discard(ITEM, LANG, "idiom", "", 0)),
        (PermissionDenied, lambda: ben.assign(LANG, ["ana", "ben"], share=1.0)),
        (PermissionDenied, lambda: ben.agreement()),
        (PermissionDenied, lambda: edit(dora, ITEM, AddCandidate(Side.GOOD, "sorso"), 0)),  # wrong language
        (UserError, lambda: edit(DoubleCurationService(assigned, user(assigned, "lead")), ITEM, MarkDone(), 0)),
        (ConflictError, lambda: edit(ana, ITEM, AddCandidate(Side.GOOD, "sorso"), 0)),  # stale version
        # a copy is changed by its translator only: not another translator, not a lead
        (PermissionDenied, lambda: edit(ben, ITEM, AddCandidate(Side.GOOD, "sorso"), state.version, "ana")),
        (
            PermissionDenied,
            lambda: edit(
                DoubleCurationService(assigned, user(assigned, "lead")), ITEM, MarkDone(), state.version, "ana"
            ),
        ),
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
    state = edit(ana, ITEM, AddCandidate(Side.GOOD, "cicchetto"), 0)
    state = edit(ana, ITEM, MarkDone(), state.version)
    state = edit(ana, ITEM, Reopen(), state.version)  # ben has not finished: ana may still change her mind
    state = edit(ana, ITEM, MoveCandidate("bicchierino", Side.BAD), state.version)
    edit(ana, ITEM, MarkDone(), state.version)
    ben = DoubleCurationService(assigned, user(assigned, "ben"))
    state = edit(ben, ITEM, AddCandidate(Side.GOOD, "Cicchetto"), 0)
    ben_done = edit(ben, ITEM, MarkDone(), state.version)
    with pytest.raises(WorkflowError, match="with a lead"):
        edit(ben, ITEM, Reopen(), ben_done.version)

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


def test_a_revision_0003_database_gains_the_double_curation_tables(demo: Project) -> None:
    with demo.db.write() as conn:
        rewind_schema(conn, "0003")
    demo.db.dispose()
    reopened = Project.open(demo.data_dir)
    assert reopened.db.schema_revision() >= "0004"
    with reopened.db.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM assignments").scalar() == 0
    DoubleCurationService(reopened, user(reopened, "lead")).assign(LANG, ["ana", "ben"], item_ids=[ITEM])


def adjudicate_both(project: Project) -> None:
    finish_both(project)
    lead = DoubleCurationService(project, user(project, "lead"))
    with project.db.read() as conn:
        version = project.repo.get_item_language(conn, ITEM, LANG).version
        other = project.repo.get_item_language(conn, OTHER, LANG).version
    lead.adjudicate(ITEM, LANG, ["goccio", "cicchetto"], ["bicchierino", "sparo"], version)
    lead.adjudicate_discard(OTHER, LANG, "idiom", "", other)


def test_the_export_holds_the_adjudicated_sets_the_copies_and_the_agreement(
    assigned: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jsonschema import Draft202012Validator

    from annotator.cli import main
    from annotator.data_export.dataset import read_dataset, schema_path

    adjudicate_both(assigned)
    assert (
        main(
            [
                "export",
                "--data",
                str(assigned.data_dir),
                "--out",
                str(tmp_path / "out"),
                "--include-incomplete",
                "--with-annotators",
            ]
        )
        == 0
    )
    folder = next((tmp_path / "out").iterdir())
    lines = {line["id"]: line for line in read_dataset(folder / "dataset.jsonl")}
    it = lines[ITEM]["languages"]["IT"]
    assert [c["text"] for c in it["good"]] == ["goccio", "cicchetto"] and "status" not in it
    # each translator's own sets, anonymised in name order: ana → A1, ben → A2
    assert [(a["id"], a["status"]) for a in it["annotators"]] == [("A1", "done"), ("A2", "done")]
    assert [c["text"] for c in it["annotators"][1]["good"]] == ["goccio", "bicchierino", "Cicchetto"]
    assert "annotators" not in lines[ITEM]["languages"]["DE"]
    dataset_schema = Draft202012Validator(json.loads(schema_path().read_text(encoding="utf-8")))
    assert all(dataset_schema.is_valid(line) for line in lines.values())
    assert not any('"ana"' in json.dumps(line) or '"ben"' in json.dumps(line) for line in lines.values())

    stats = json.loads((folder / "stats.json").read_text(encoding="utf-8"))
    stats_schema = json.loads((folder / "stats.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(stats_schema)
    assert not [e.message for e in Draft202012Validator(stats_schema).iter_errors(stats)]
    agreement = stats["agreement"]
    assert agreement["item_languages"] == 2 and agreement["languages"]["IT"]["prepopulated_units"] == 10
    assert agreement["pairs"][0]["annotators"] == ["A1", "A2"]
    assert agreement["languages"]["DE"]["alpha"] is None
    # refinement statistics use the adjudicated sets: G0 {goccio, bicchierino} → Gf {goccio, cicchetto}
    refinement = stats["refinement"]["languages"]["IT"]
    assert (refinement["item_languages"], refinement["added"], refinement["removed"]) == (1, 1, 1)
    # stats.json is also valid when nothing was double-curated (agreement all n/a)
    capsys.readouterr()
    assert main(["stats", "--data", str(assigned.data_dir)]) == 0
    assert "Agreement between translators over 2" in capsys.readouterr().out


def test_annotator_names_on_request(assigned: Project, tmp_path: Path) -> None:
    from annotator.data_export.dataset import ExportOptions, export_dataset, read_dataset

    adjudicate_both(assigned)
    options = ExportOptions(include_incomplete=True, with_annotators=True, annotator_names=True)
    result = export_dataset(assigned, tmp_path / "out", options)
    line = next(x for x in read_dataset(result.files["dataset.jsonl"]) if x["id"] == ITEM)
    assert [a["id"] for a in line["languages"]["IT"]["annotators"]] == ["ana", "ben"]
    # without --with-annotators the lines have no annotators at all
    plain = export_dataset(assigned, tmp_path / "plain", ExportOptions(include_incomplete=True))
    assert all(
        "annotators" not in lang for x in read_dataset(plain.files["dataset.jsonl"]) for lang in x["languages"].values()
    )


def test_stored_keys_are_the_spec_identities() -> None:
    from annotator.data_export.copy_records import stored_keys
    from annotator.domain.candidates import key_string
    from annotator.domain.model import CandidateEntry
    from annotator.store.repository import candidates_to_json

    entries = [CandidateEntry("Quelle"), CandidateEntry("sparare", "VERB"), CandidateEntry("Cafe\u0301")]
    assert stored_keys(candidates_to_json(entries)) == {key_string(e.text, e.pos) for e in entries}
