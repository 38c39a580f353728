"""Issue 33: why a pre-populated list is empty, and suggestions from related senses, the team's curation and the
machine translations scored MISS — on a tiny wordnet with relations written here, on a snapshot and through the
BabelNet client against the local fake server; both engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_babelnet import DEFAULT_KEY, FakeBabelNet
from openpyxl import load_workbook
from prepopulate_data import ROWS, SNAPSHOT
from suggestion_data import (
    BEVERAGE,
    DRINK,
    GUNSHOT,
    SIP,
    by_text,
    person,
    version,
)

from annotator.cli import main
from annotator.data_export.spreadsheet import DATA_SHEET, export_sheet
from annotator.domain.hints import word_lookup_hint
from annotator.domain.jobs import JobKind, JobState
from annotator.domain.model import Side
from annotator.evaluation.run import create_analyser, evaluate
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.curation import CurationService
from annotator.services.evaluate_project import prepare_current
from annotator.services.evaluation_results import save_result
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate
from annotator.services.sheet_import import import_sheet
from annotator.services.suggestions import bulk as bulk_suggestions
from annotator.services.suggestions.card import card_view, shown_card
from annotator.services.suggestions.mt import MT_MARKER, miss_lines, miss_translations
from annotator.services.suggestions.project_counts import empty_good_counts
from annotator.services.wordnet_hints import typed_word_hint, word_senses
from annotator.store.repository import utc_now

pytestmark = pytest.mark.both_engines


def forget_kept_suggestions(project: Project) -> None:
    """Drop the related parts pre-population kept (a project pre-populated before it kept them has none)."""
    from annotator.store import schema

    with project.db.write() as conn:
        conn.execute(schema.suggestion_cache.delete())


def test_an_empty_good_list_says_which_lexicons_were_consulted_and_what_bad_holds(wn_project: Project) -> None:
    view = card_view(wn_project, "a1", "IT")
    assert view.good_empty_reason.startswith(
        "None of the Italian lexicons consulted (sg-it) has a word for this sense."
    )
    assert "sg-it2, not allowed for Italian, has 1: “cicchetto”" in view.good_empty_reason
    assert "BAD holds 1 word of the other senses of “shot” instead (sg-it 1)" in view.good_empty_reason
    assert view.bad_empty_reason == ""
    gunshot = card_view(wn_project, "g1", "IT")
    assert gunshot.good_empty_reason == ""
    assert gunshot.bad_empty_reason == (
        "None of the 1 other sense of “shot” has a word in Italian in the lexicons consulted (sg-it). "
        "GOOD holds 1 word of this sense."
    )


def test_related_senses_and_other_lexicons_are_suggested_with_relation_and_gloss(wn_project: Project) -> None:
    found = by_text(card_view(wn_project, "a1", "IT"))
    assert found["cicchetto"] == {
        "text": "cicchetto", "side": "GOOD", "source": "related", "relation": "not allowed lexicon", "synset": DRINK,
        "reason": "A word for this very sense in sg-it2, a lexicon not allowed for Italian.",
    }  # fmt: skip
    assert found["bevanda"]["relation"] == "hypernym" and found["bevanda"]["synset"] == BEVERAGE
    assert "a single serving of a beverage" in found["bevanda"]["reason"]
    # a word of a verb synset for a noun target: offered in the cross-PoS form, never bare
    assert found["[sorseggiare]_VERB"]["relation"] == "derivation" and found["[sorseggiare]_VERB"]["synset"] == SIP
    assert "sorseggiare" not in found
    assert "whisky" not in found  # a part-of relation (meronym) is not one suggestions follow
    assert [s.text for s in card_view(wn_project, "a1", "IT").suggestions][:3] == [
        "cicchetto", "bevanda", "[sorseggiare]_VERB",
    ]  # fmt: skip


def test_a_related_word_already_in_bad_is_suggested_as_a_move_and_one_in_good_is_not(wn_project: Project) -> None:
    with wn_project.db.read() as conn:
        lead = wn_project.repo.get_user(conn, "lena")
    assert lead is not None
    service = CurationService(wn_project, lead)
    service.add_candidate("a1", "IT", Side.BAD, "bevanda", version(wn_project, "a1"))
    service.add_candidate("a1", "IT", Side.GOOD, "sorseggiare", version(wn_project, "a1"))
    found = by_text(card_view(wn_project, "a1", "IT"))
    assert found["bevanda"]["side"] == "move-to-GOOD" and found["bevanda"]["reason"].startswith("Now in BAD.")
    assert "sorseggiare" not in found and "[sorseggiare]_VERB" not in found  # its bare word stands in GOOD


def test_team_memory_from_the_service_gives_a_good_on_the_same_sense_and_a_bad_on_another(
    wn_project: Project,
) -> None:
    ivo, ada = person(wn_project, "ivo"), person(wn_project, "ada")
    assert "grappino" not in by_text(card_view(wn_project, "a2", "IT"))
    CurationService(wn_project, ivo).add_candidate("a1", "IT", Side.GOOD, "grappino", version(wn_project, "a1"))
    CurationService(wn_project, ada).add_candidate("g1", "IT", Side.GOOD, "fucilata", version(wn_project, "g1"))
    found = by_text(card_view(wn_project, "a2", "IT"))
    assert found["grappino"] == {
        "text": "grappino", "side": "GOOD", "source": "team", "relation": "same sense", "synset": DRINK,
        "reason": "Curated GOOD for this sense on 1 other item by ivo.",
    }  # fmt: skip
    assert found["fucilata"]["side"] == "BAD" and found["fucilata"]["source"] == "team"
    assert found["fucilata"]["synset"] == GUNSHOT and "sense 1 of “shot”" in found["fucilata"]["reason"]
    assert next(iter(found)) == "grappino"  # the team's GOOD ranks first, its BAD last
    assert list(found)[-1] == "fucilata"
    assert "grappino" not in by_text(card_view(wn_project, "a1", "IT"))  # its own item: in GOOD
    bulk = {view.item_id: view for view in bulk_suggestions.views(wn_project, ["IT"])}  # the command line's way
    for item_id in ("a1", "a2", "g1"):
        assert bulk[item_id] == card_view(wn_project, item_id, "IT")


def test_team_memory_from_a_sheet_import(wn_project: Project, tmp_path: Path) -> None:
    ivo = person(wn_project, "ivo")
    path = export_sheet(wn_project, "IT", tmp_path)
    workbook = load_workbook(path)
    sheet = workbook[DATA_SHEET]
    columns = {sheet.cell(1, c).value: c for c in range(1, sheet.max_column + 1)}
    row = next(r for r in range(2, sheet.max_row + 1) if sheet.cell(r, 1).value == "a1")
    sheet.cell(row, columns["GOOD"]).value = "grappino\nbicchierino"
    edited = tmp_path / "edited.xlsx"
    workbook.save(edited)
    import_sheet(CurationService(wn_project, ivo), edited)
    found = by_text(card_view(wn_project, "a2", "IT"))
    assert found["grappino"]["source"] == "team" and found["bicchierino"]["side"] == "GOOD"
    assert found["grappino"]["reason"] == "Curated GOOD for this sense on 1 other item by ivo."


def test_a_miss_translation_s_target_word_is_suggested_with_its_system(wn_project: Project, tmp_path: Path) -> None:
    translations = tmp_path / "translations.jsonl"
    lines = [
        {"id": "a1", "lang": "IT", "system": "sysA", "translation": "Versò un grappino di whisky."},
        {"id": "a1", "lang": "IT", "system": "sysB", "translation": "Ha versato un grappino di whisky."},
        {"id": "g1", "lang": "IT", "system": "sysA", "translation": "Ha sentito uno sparo."},  # GOOD: no MT words
    ]
    translations.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert not [s for s in card_view(wn_project, "a1", "IT").suggestions if s.source == "mt"]
    dataset, loaded = prepare_current(wn_project, translations)
    result = evaluate(dataset, loaded, create_analyser("default"))
    with wn_project.db.write() as conn:
        job_id = wn_project.repo.insert_job(conn, JobKind.EVALUATE, "lena", {"page": True}, utc_now())
        wn_project.repo.update_job(conn, job_id, state=JobState.DONE)
    save_result(wn_project, job_id, result)
    found = by_text(card_view(wn_project, "a1", "IT"))
    assert found["grappino"]["source"] == "mt" and found["grappino"]["side"] == "GOOD"
    assert found["grappino"]["relation"] == "MISS translation: sysA, sysB"
    assert "sysA, sysB" in found["grappino"]["reason"]
    assert "whisky" not in found  # the translation of another content word of the sentence ("whiskey")
    assert not [s for s in card_view(wn_project, "g1", "IT").suggestions if s.source == "mt"]
    # the work area's card: read from the view the page has just read, the same answer, with the evaluation read
    # once for both the suggestions and the card's MISS lines
    view = CurationService(wn_project, person(wn_project, "ivo")).view("a1", "IT")
    shown = shown_card(wn_project, view.item, view.state)
    assert shown == card_view(wn_project, "a1", "IT") and shown.evaluation == job_id
    lines = miss_lines(wn_project, shown.evaluation, "a1", "IT")
    assert lines == miss_translations(wn_project, "a1", "IT") and [system for system, _ in lines] == [
        "sysA", "sysB"
    ]  # fmt: skip


def test_typing_any_word_says_which_synsets_of_the_lexicons_it_lexicalizes(wn_project: Project) -> None:
    with wn_project.db.read() as conn:
        item = wn_project.repo.get_item(conn, "a1")
    assert item is not None

    def hint(word: str) -> str:
        found = word_senses(wn_project, item, "IT", word)
        return word_lookup_hint("shot", [(s.synset, s.is_item_synset, s.rank, s.gloss) for s in found])

    assert hint("cicchetto") == "The lexicons have it for this sense (σ) — usually GOOD."
    assert hint("sparo") == "The lexicons have it for sense 1 of “shot”: the act of firing a projectile — usually BAD."
    assert hint("bevanda") == (
        "The lexicons have it only for senses unrelated to “shot” (e.g. a single serving of a beverage)."
    )
    assert hint("zzz") == "The lexicons do not have this word."
    assert typed_word_hint(wn_project, item, "IT", "sparo") == hint("sparo")
    assert typed_word_hint(wn_project, item, "IT", "  ") is None


def test_the_project_page_counts_empty_good_lists_and_those_with_suggestions(wn_project: Project) -> None:
    forget_kept_suggestions(wn_project)  # as a project pre-populated before they were kept at pre-population
    counts = {c.lang: c for c in empty_good_counts(wn_project)}
    assert (counts["IT"].empty_good, counts["IT"].with_suggestions, counts["IT"].not_computed) == (2, 0, 2)
    bulk_suggestions.refresh(wn_project)
    counts = {c.lang: c for c in empty_good_counts(wn_project)}
    assert (counts["IT"].empty_good, counts["IT"].with_suggestions, counts["IT"].not_computed) == (2, 2, 0)


def test_the_empty_good_counts_follow_a_team_member_s_curation_of_the_same_sense(wn_project: Project) -> None:
    """The empty rows are kept between calls while the data does not change: a curated GOOD list on another item of
    the same σ must still count at once (and the item's own list never counts for itself)."""
    forget_kept_suggestions(wn_project)  # only the team's lists count here
    counts = {c.lang: c for c in empty_good_counts(wn_project)}
    assert (counts["IT"].empty_good, counts["IT"].with_suggestions, counts["IT"].not_computed) == (2, 0, 2)
    ivo = person(wn_project, "ivo")
    CurationService(wn_project, ivo).add_candidate("a1", "IT", Side.GOOD, "grappino", version(wn_project, "a1"))
    counts = {c.lang: c for c in empty_good_counts(wn_project)}
    assert (counts["IT"].empty_good, counts["IT"].with_suggestions, counts["IT"].not_computed) == (2, 1, 2)
    CurationService(wn_project, ivo).add_candidate("a2", "IT", Side.GOOD, "bicchierino", version(wn_project, "a2"))
    counts = {c.lang: c for c in empty_good_counts(wn_project)}
    assert (counts["IT"].empty_good, counts["IT"].with_suggestions, counts["IT"].not_computed) == (2, 2, 2)


def test_the_command_line_writes_one_line_per_item_language(wn_project: Project, tmp_path: Path, capsys) -> None:
    out = tmp_path / "suggestions.jsonl"
    data = str(wn_project.data_dir)
    assert main(["suggestions", "--data", data, "--lang", "IT", "--items", "a1,g1", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(line["id"], line["lang"]) for line in lines] == [("a1", "IT"), ("g1", "IT")]
    fields = {"id", "lang", "good_empty_reason", "bad_empty_reason", "suggestions", "shown_first"}
    assert all(set(line) == fields for line in lines)
    assert lines[0]["good_empty_reason"].startswith("None of the Italian lexicons consulted (sg-it)")
    assert lines[1]["good_empty_reason"] == ""
    first = lines[0]["suggestions"][0]
    assert list(first) == ["text", "side", "source", "relation", "synset", "reason"]
    assert first["text"] == "cicchetto"
    printed = capsys.readouterr().out
    assert "2 item-language(s) written" in printed
    assert "IT: 1 start with an empty GOOD list, 1 of them with suggestions" in printed
    assert main(["suggestions", "--data", data, "--items", "nope", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "No such item(s) in this project: nope" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


# --- snapshot and BabelNet: the reason from the sources of the answer ---------------------------------------


def test_snapshot_reason_names_the_allowed_sources_and_a_source_not_allowed(project: Project, write_jsonl) -> None:
    project.save_settings(
        ProjectSettings(name="s", lexicon=LexiconSettings("snapshot"), allowed_sources={"DE": ["WIKTLB"]})
    )
    import_items(project, write_jsonl("items.jsonl", ROWS))
    prepopulate(project, lexicon=SnapshotLexicon.from_data(SNAPSHOT, origin="test"))
    project.lexicon = lambda settings=None: SnapshotLexicon.from_data(SNAPSHOT, origin="test")  # type: ignore[method-assign]
    ru = card_view(project, "fire", "RU")
    assert ru.good_empty_reason == (
        "None of the Russian lexicons consulted (WIKT, WIKTLB) has a word for this sense. "
        "BAD holds 1 word of the other senses of “shot” instead (WIKT 1)."
    )
    de = card_view(project, "fire", "DE")
    assert "WIKT, not allowed for German, has 1: “Schuss”" in de.good_empty_reason
    assert by_text(de)["Schuss"]["relation"] == "not allowed lexicon"
    it = by_text(card_view(project, "fire", "IT"))
    assert "sparo_mt" not in it  # a machine-translated source is never offered


def test_babelnet_reason_through_the_fake_server(project: Project, write_jsonl, monkeypatch) -> None:
    with FakeBabelNet(SNAPSHOT) as server:
        monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
        project.save_settings(ProjectSettings(name="b", lexicon=LexiconSettings("babelnet", base_url=server.base_url)))
        import_items(project, write_jsonl("items.jsonl", ROWS))
        prepopulate(project)
        zh = card_view(project, "fire", "ZH")
    assert zh.good_empty_reason == (
        "None of the Chinese lexicons consulted (OMWN_ZH) has a word for this sense. "
        "BAD holds 1 word of the other senses of “shot” instead (OMWN_ZH 1)."
    )
    assert zh.bad_empty_reason == ""


def test_the_project_page_shows_the_empty_good_block(wn_project: Project, monkeypatch) -> None:
    from app_helpers import logged_in

    bulk_suggestions.refresh(wn_project)
    monkeypatch.setenv("ANNOTATOR_DATA", str(wn_project.data_dir))
    at = logged_in("lena", "lena-password-long")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    table = next(df.value for df in at.dataframe if "start with an empty GOOD list" in df.value.columns)
    assert table.to_dict("records") == [
        {"language": "Italian (IT)", "start with an empty GOOD list": 2, "of those, with suggestions": 2,
         "worked on by a person": 0, "suggestions not computed yet": 0},
    ]  # fmt: skip


def test_a_lexicon_added_before_relations_files_gets_them_from_wn_once(wn_project: Project) -> None:
    from annotator.lexicon.wordnet import using_folder
    from annotator.lexicon.wordnet_relations import WordnetRelations, load_relations, relations_path

    folder = wn_project.wordnet_folder
    path = relations_path(folder, "sg-en", "3.0")
    written_at_add = load_relations(folder, "sg-en", "3.0").relations
    assert written_at_add[DRINK] == [["hypernym", BEVERAGE], ["derivation", SIP]]
    path.unlink()
    exports: list[str] = []

    def export(specifier: str, target: Path) -> None:
        exports.append(specifier)
        with using_folder(folder) as wn:
            wn.export(wn.lexicons(lexicon=specifier), target)

    relations = WordnetRelations(folder, [("sg-en", "3.0")], export)
    assert relations.related(DRINK) == [("hypernym", BEVERAGE), ("derivation", SIP)]
    assert exports == ["sg-en:3.0"] and path.exists()
    assert load_relations(folder, "sg-en", "3.0", export).relations == written_at_add
    assert exports == ["sg-en:3.0"]  # read from the file it wrote, not exported again


def test_changed_allowed_sources_recompute_the_kept_suggestions_and_a_redo_the_reason(wn_project: Project) -> None:
    from annotator.services.prepopulate import Redo

    before = card_view(wn_project, "a1", "IT")
    assert "cicchetto" in by_text(before) and before.good_empty_reason
    wn_project.save_settings(
        ProjectSettings(
            name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"),
            allowed_sources={"IT": ["sg-it", "sg-it2"]},
        )
    )  # fmt: skip
    prepopulate(wn_project, redo=Redo())
    after = card_view(wn_project, "a1", "IT")
    assert after.good_empty_reason == "" and "cicchetto" not in by_text(after)  # now in GOOD
    assert by_text(after)["bevanda"]["relation"] == "hypernym"
    with wn_project.db.read() as conn:
        related = wn_project.repo.cached_suggestions_of(conn, [("a1", "IT")])[("a1", "IT")].related
    assert "cicchetto" not in related  # recomputed for the new sources, not the kept "not allowed" proposal


def test_the_evaluate_job_reads_the_miss_words_for_the_cards(wn_project: Project, tmp_path: Path, monkeypatch) -> None:
    from annotator.services import jobs

    monkeypatch.setenv("ANNOTATOR_DATA", str(wn_project.data_dir))
    translations = tmp_path / "mt.jsonl"
    line = {"id": "a1", "lang": "IT", "system": "sysC", "translation": "Versò un grappino."}
    translations.write_text(json.dumps(line) + "\n", encoding="utf-8")
    params = {"current": True, "page": True, "translations": str(translations)}
    job = jobs.wait(wn_project, jobs.start(wn_project, JobKind.EVALUATE, params).id, timeout=180)
    assert job.state is JobState.DONE, job
    with wn_project.db.read() as conn:
        assert wn_project.repo.get_meta(conn, MT_MARKER) == job.id  # read by the job, not by a card
    found = by_text(card_view(wn_project, "a1", "IT"))
    assert found["grappino"]["relation"] == "MISS translation: sysC"


def test_the_project_page_counts_the_empty_good_lists_a_person_worked_on(wn_project: Project) -> None:
    """Worked on: a change by a person in the item-language's history, or a status other than pending; a suggestion
    dismissed (the translator's own, no history) or an item only looked at does not count."""
    from annotator.domain.commands import Address, DismissSuggestion

    bulk_suggestions.refresh(wn_project)
    assert {c.lang: c.worked_on for c in empty_good_counts(wn_project)} == {"IT": 0}
    ivo = CurationService(wn_project, person(wn_project, "ivo"))
    ivo.handle(Address("a2", "IT"), DismissSuggestion(Side.GOOD, "bevanda"))
    assert {c.lang: c.worked_on for c in empty_good_counts(wn_project)} == {"IT": 0}
    ivo.add_candidate("a1", "IT", Side.GOOD, "grappino", version(wn_project, "a1"))
    assert {c.lang: c.worked_on for c in empty_good_counts(wn_project)} == {"IT": 1}
