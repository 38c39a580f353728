"""Pre-population (SPEC §2) and the selection filters (§4.4) over the real snapshot provider."""

from __future__ import annotations

import pytest
from prepopulate_data import GHOST, ROWS, SNAPSHOT

from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Side, Status
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.filters import run_filters
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL


@pytest.fixture
def lexicon() -> SnapshotLexicon:
    return SnapshotLexicon.from_data(SNAPSHOT, origin="test-snapshot")


@pytest.fixture
def loaded(project: Project, write_jsonl) -> Project:
    import_items(project, write_jsonl("items.jsonl", ROWS))
    return project


def state(project: Project, item_id: str, lang: str):
    with project.db.read() as conn:
        return project.repo.get_item_language(conn, item_id, lang), project.repo.get_item(conn, item_id)


def test_good_bad_ranks_provenance_and_overlaps(loaded: Project, lexicon: SnapshotLexicon) -> None:
    report = prepopulate(loaded, lexicon=lexicon)
    assert report.items == 4 and report.item_languages == 20 and report.stopped is None
    it, item = state(loaded, "drink", "IT")
    assert [(s.synset, s.rank) for s in item.senses] == [("bn:00000001n", 1), ("bn:00000002n", 2), ("bn:00000003n", 3)]
    assert (item.polysemy_degree, item.sense_rank) == (3, 3)
    assert item.gloss == "a small drink of liquor"
    assert [c.text for c in it.initial_good] == ["goccio", "colpo", "bicchierino"]
    assert [c.text for c in it.initial_bad] == ["sparo", "iniezione"]  # colpo stays in G0; WNTR never used
    assert it.good == it.initial_good and it.bad == it.initial_bad
    colpo = next(c for c in it.initial_good if c.text == "colpo")
    assert colpo.synsets == ("bn:00000003n", "bn:00000001n") and colpo.origin is Origin.LEXICON
    assert next(c for c in it.initial_bad if c.text == "sparo").synsets == ("bn:00000001n",)
    assert len(it.overlaps) == 1 and "colpo" in it.overlaps[0]
    de, _ = state(loaded, "drink", "DE")
    assert [c.text for c in de.good] == ["Schlückchen"]
    assert [c.text for c in de.bad] == ["Schuss", "Injektion", "Spritze"]
    zh, _ = state(loaded, "drink", "ZH")
    assert ([c.text for c in zh.good], zh.bad) == (["小杯"], ())
    assert it.prepopulated and it.status is Status.PENDING


def test_prepopulation_resumes_and_never_overwrites_curated_work(loaded: Project, lexicon, lead) -> None:
    first = prepopulate(loaded, languages=("IT",), lexicon=lexicon)
    assert first.item_languages == 4
    it, _ = state(loaded, "drink", "IT")
    CurationService(loaded, lead).add_candidate("drink", "IT", Side.GOOD, "cicchetto", it.version)
    second = prepopulate(loaded, lexicon=lexicon)
    assert (second.item_languages, second.already_done) == (16, 4)
    it, _ = state(loaded, "drink", "IT")
    assert [c.text for c in it.good][-1] == "cicchetto"
    assert prepopulate(loaded, lexicon=lexicon).item_languages == 0


def test_filters_report_each_rule(loaded: Project, lexicon: SnapshotLexicon) -> None:
    prepopulate(loaded, lexicon=lexicon)
    report = run_filters(loaded, lexicon=lexicon)
    grouped = report.by_rule()
    assert grouped["polysemy"] == ["verb"]  # δ(shot, VERB) = 1 here
    assert grouped["one_per_sense"] == ["drink-2"]  # same synset and source as "drink"
    # IT "colpo" (a lexicalization of the drink sense) also means the gunshot synset, which has "shot" in English.
    assert sorted(grouped["target_language"]) == ["drink", "drink-2", "fire"]
    _, item = state(loaded, "drink", "IT")
    assert any("colpo" in failure for failure in item.filter_failures)
    assert not item.excluded  # marking, not deleting


def test_reimported_item_with_a_new_synset_is_prepopulated_again(
    loaded: Project, lexicon: SnapshotLexicon, write_jsonl, lead
) -> None:
    prepopulate(loaded, lexicon=lexicon)
    CurationService(loaded, lead).add_candidate(
        "fire", "IT", Side.GOOD, "schioppettata", state(loaded, "fire", "IT")[0].version
    )
    with loaded.db.write() as conn:
        loaded.repo.set_excluded(conn, ["drink-2"], True)
    changed = [dict(r, synset="bn:00000001n") if r["id"] == "drink" else r for r in ROWS]
    changed = [dict(r, sentence="He heard one shot.") if r["id"] == "fire" else r for r in changed]
    changed = [dict(r, source="z") if r["id"] == "drink-2" else r for r in changed]
    report = import_items(loaded, write_jsonl("v2.jsonl", changed), force=True)
    assert report.replaced == 3

    drink_it, drink = state(loaded, "drink", "IT")  # σ changed: G0/B0 of the old sense are gone, to be redone
    assert not drink_it.prepopulated and drink_it.good == () and drink_it.initial_good == ()
    assert drink.senses == () and drink.synset == "bn:00000001n"
    fire_it, fire = state(loaded, "fire", "IT")  # only the sentence changed: senses and curated work stay
    assert fire_it.prepopulated and fire.polysemy_degree == 3 and "schioppettata" in [c.text for c in fire_it.good]
    _, drink2 = state(loaded, "drink-2", "IT")
    assert drink2.excluded  # the lead's exclusion survives a re-import

    again = prepopulate(loaded, lexicon=lexicon)
    assert again.item_languages == 5
    drink_it, drink = state(loaded, "drink", "IT")
    assert [c.text for c in drink_it.good] == ["sparo", "colpo"] and drink.sense_rank == 1


def test_forced_sense_change_reopens_curated_item_languages_with_a_note(
    loaded: Project, lexicon: SnapshotLexicon, write_jsonl, lead, tmp_path
) -> None:
    """Issue 14 item 4: the old sense's candidates can never be exported for the new sense."""
    import json

    from annotator.data_export.dataset import ExportOptions, export_dataset
    from annotator.services.importing import Reopened

    prepopulate(loaded, lexicon=lexicon)
    service = CurationService(loaded, lead)
    done_it = service.mark_done("drink", "IT", state(loaded, "drink", "IT")[0].version)
    service.flag_discuss("drink", "DE", "Which drink?", state(loaded, "drink", "DE")[0].version)
    service.discard("drink", "ES", "other", "odd sentence", state(loaded, "drink", "ES")[0].version)
    service.add_candidate("drink", "ZH", Side.GOOD, "一小杯", state(loaded, "drink", "ZH")[0].version)
    untouched_ru = state(loaded, "drink", "RU")[0]
    fire_it = service.mark_done("fire", "IT", state(loaded, "fire", "IT")[0].version)

    changed = [dict(r, synset="bn:00000001n") if r["id"] == "drink" else r for r in ROWS]
    report = import_items(loaded, write_jsonl("v2.jsonl", changed), force=True)

    assert report.replaced == 1
    assert report.reopened == [
        Reopened("drink", "DE", "discuss"),
        Reopened("drink", "ES", "discarded"),
        Reopened("drink", "IT", "done"),
        Reopened("drink", "ZH", "in_progress"),
    ]
    assert "4 curated item-language(s) reopened as pending because their item's sense" in report.summary()
    assert "drink [IT] (done)" in report.summary()
    it, item = state(loaded, "drink", "IT")
    assert item.synset == "bn:00000001n" and item.senses == ()
    assert (it.status, it.good, it.bad, it.initial_good, it.initial_bad, it.overlaps) == (
        Status.PENDING,
        (),
        (),
        (),
        (),
        (),
    )
    assert (it.prepopulated, it.status_by, it.version, it.updated_by) == (
        False,
        None,
        done_it.version + 1,
        "system:import",
    )
    es, _ = state(loaded, "drink", "ES")
    assert (es.status, es.discard_reason, es.discard_note) == (Status.PENDING, None, "")
    de, _ = state(loaded, "drink", "DE")
    assert (de.status, de.discuss_note) == (Status.PENDING, "")
    ru, _ = state(loaded, "drink", "RU")  # untouched: only its old G0/B0 go, no reopening
    assert (ru.status, ru.good, ru.prepopulated, ru.version) == (Status.PENDING, (), False, untouched_ru.version + 1)
    assert state(loaded, "fire", "IT")[0] == fire_it  # other items keep their work

    with loaded.db.read() as conn:
        last = loaded.repo.history(conn, "drink", "IT")[-1]
        audit = loaded.repo.audit(conn, limit=1)[0]
    assert (last.user, last.action) == ("system:import", "item_changed")
    assert last.detail == {
        "lemma": "shot",
        "pos": "NOUN",
        "synset": "bn:00000001n",
        "previous": {"lemma": "shot", "pos": "NOUN", "synset": "bn:00000003n"},
        "reason": "the item's sense changed on import; its candidates were for the old sense",
        "reopened_from": "done",
        "previous_good": ["goccio", "colpo", "bicchierino"],
        "previous_bad": ["sparo", "iniezione"],
        "previous_discuss_note": "",
        "previous_discard_reason": None,
        "previous_discard_note": "",
    }
    assert audit["action"] == "import" and audit["detail"]["reopened"] == 4

    export = export_dataset(loaded, tmp_path / "exports", ExportOptions(include_incomplete=True))
    lines = [json.loads(line) for line in (export.path / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]
    drink = next(line for line in lines if line["id"] == "drink")
    assert all(entry["good"] == [] and entry["bad"] == [] for entry in drink["languages"].values())

    again = prepopulate(loaded, lexicon=lexicon)  # the new sense gets its own G0/B0
    assert again.item_languages == 5
    it, _ = state(loaded, "drink", "IT")
    assert [c.text for c in it.good] == ["sparo", "colpo"] and it.status is Status.PENDING


def test_an_item_the_lexicon_cannot_serve_is_skipped_by_name_and_the_rest_is_done(
    project: Project, lexicon: SnapshotLexicon, write_jsonl
) -> None:
    """Issue 14 item 5: one synset missing from the snapshot no longer stops every later item."""
    from annotator.services.administration import set_excluded
    from annotator.services.prepopulate import Skipped

    import_items(project, write_jsonl("items.jsonl", [GHOST, *ROWS]))  # first in import order
    report = prepopulate(project, lexicon=lexicon)

    reason = "Synset bn:00000077n is not in the lexicon snapshot test-snapshot."
    assert report.skipped == [Skipped("ghost", lang, reason) for lang in ("DE", "ES", "IT", "RU", "ZH")]
    assert report.warnings[0] == f"ghost [DE ES IT RU ZH]: skipped, left to do: {reason}"
    assert (report.items, report.item_languages, report.outcome) == (4, 20, "partial")
    assert report.summary().endswith(
        "5 item-language(s) of 1 item(s) skipped (listed in the warnings) "
        "(partial run: some item-languages skipped; run again to retry them)"
    )
    ghost_it, ghost = state(project, "ghost", "IT")
    assert not ghost_it.prepopulated and ghost_it.version == 0 and ghost.senses == ()
    assert state(project, "verb", "IT")[0].prepopulated  # the last item was done
    with project.db.read() as conn:
        audit = project.repo.audit(conn, limit=1)[0]
    assert audit["action"] == "prepopulate"
    assert audit["detail"] == {
        "outcome": "partial",
        "item_languages": 20,
        "lexicon": lexicon.name,
        "stopped": None,
        "skipped": 5,
        "skipped_item_languages": [f"ghost [{lang}]: {reason}" for lang in ("DE", "ES", "IT", "RU", "ZH")],
        "excluded_items": 0,
    }

    again = prepopulate(project, lexicon=lexicon)  # still reported, still nothing else to do
    assert (again.already_done, again.item_languages, len(again.skipped), again.outcome) == (20, 0, 5, "partial")

    set_excluded(project, ["ghost"], True)  # excluding the item is the lead's way out
    clean = prepopulate(project, lexicon=lexicon)
    assert (clean.skipped, clean.excluded, clean.outcome) == ([], 1, "clean")
    assert clean.summary().endswith("1 excluded item(s) left out (clean run: every item-language done, none skipped)")
    with project.db.read() as conn:
        detail = project.repo.audit(conn, limit=1)[0]["detail"]
    assert (detail["outcome"], detail["skipped"], detail["excluded_items"]) == ("clean", 0, 1)


def test_dropping_the_kept_answers_between_batches_changes_no_set(
    loaded: Project, lexicon: SnapshotLexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """G0/B0 are kept encoded per (σ, λ, language) for the items sharing them; past SETS_KEPT they are dropped and
    derived again from the lexicon (memory stays bounded at 100,000 items), and a run holding one synset record at
    a time asks for the others again: every set is the same."""
    import annotator.services.prepopulate as prepopulate_module
    import annotator.services.prepopulate_lexicon as lexicon_module

    inventory = lexicon_module.SenseInventory(lexicon, ("IT", "DE"))
    item = import_row_item(loaded, "drink")
    senses = inventory.senses(item.target.lemma, item.target.pos)
    allowed = lambda source: True  # noqa: E731
    before = inventory.encoded_sets(item, senses, "IT", allowed)
    assert before == lexicon_module.EncodedSets.of(inventory.initial_sets(item, senses, "IT", allowed))
    monkeypatch.setattr(lexicon_module, "SETS_KEPT", 0)
    assert inventory.trim() is True and inventory.trim() is False  # dropped once; nothing left to drop
    assert inventory.encoded_sets(item, senses, "IT", allowed) == before  # derived again, equal

    monkeypatch.setattr(prepopulate_module, "BATCH_SIZE", 1)  # a write after every item
    monkeypatch.setattr(lexicon_module, "RECORDS_HELD", 1)
    report = prepopulate(loaded, lexicon=lexicon)
    assert report.items == 4 and report.item_languages == 20
    for item_id in ("drink", "drink-2"):
        it, _ = state(loaded, item_id, "IT")
        assert [c.text for c in it.initial_good] == ["goccio", "colpo", "bicchierino"]
        assert [c.text for c in it.initial_bad] == ["sparo", "iniezione"]


def import_row_item(project: Project, item_id: str):  # type: ignore[no-untyped-def]
    with project.db.read() as conn:
        return project.repo.get_item(conn, item_id)


def test_a_first_run_keeps_what_someone_did_before_it_and_writes_only_the_lists(loaded: Project, lexicon) -> None:
    """Work saved before pre-population (a GOOD word, a DISCUSS note) stays: G0/B0 are written beside it, GOOD/BAD
    and the status are not replaced; the untouched item-languages start with GOOD/BAD = G0/B0."""
    mine = (CandidateEntry("cicchetto", None, Origin.TRANSLATOR),)
    with loaded.db.write() as conn:
        loaded.repo.save_item_language(conn, ItemLanguage("drink", "IT", good=mine), 0, "ida", "edit")
        discuss = ItemLanguage("drink", "DE", Status.DISCUSS, discuss_note="which sense?", status_by="ida")
        loaded.repo.save_item_language(conn, discuss, 0, "ida", "discuss")
    report = prepopulate(loaded, lexicon=lexicon)
    assert (report.item_languages, report.outcome) == (20, "clean")
    it, _ = state(loaded, "drink", "IT")
    assert (it.good, it.bad, it.status, it.version, it.prepopulated) == (mine, (), Status.PENDING, 2, True)
    assert [c.text for c in it.initial_good] == ["goccio", "colpo", "bicchierino"]
    de, _ = state(loaded, "drink", "DE")
    assert (de.status, de.discuss_note, de.status_by, de.good) == (Status.DISCUSS, "which sense?", "ida", ())
    assert [c.text for c in de.initial_good] == ["Schlückchen"]
    es, _ = state(loaded, "drink", "ES")
    assert es.good == es.initial_good and es.bad == es.initial_bad and es.good
    with loaded.db.read() as conn:
        history = loaded.repo.history(conn, "drink", "IT")
    assert (history[-1].action, history[-1].version) == ("prepopulate", 2)
    assert history[-1].detail == {"good": 3, "bad": 2, "lexicon": "snapshot"}
