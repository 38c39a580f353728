"""The wordnet provider (issue 23) on a tiny WN-LMF wordnet built in the test: Ω(λ) in WordNet sense order, G0/B0
per language through the ILI with the lexicon as provenance, ``use-wordnet`` (files, re-adding, refusals), the
DiBiMT Figure 1 item, id-scheme mismatches skipped by name, Curate's hint look-up, and export / statistics /
evaluation / selection filters unchanged on a wordnet project."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from project_helpers import dump
from wordnet_data import SHOT_DRINK, english_lmf, write_tiny_wordnet, write_tiny_wsd

from annotator.cli import main
from annotator.data_export.dataset import ExportOptions, export_dataset, read_dataset
from annotator.errors import UserError
from annotator.lexicon.base import LexiconError
from annotator.lexicon.sources import allowed_sources
from annotator.lexicon.wordnet import WordnetLexicon, add_lexicons, project_language
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.filters import run_filters
from annotator.services.import_wsd import import_wsd_xml
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

pytestmark = pytest.mark.both_engines

SHOT_SENSES = [
    "wn:00122661n", "wn:04205759n", "wn:00565302n", "wn:14485673n",
    "wn:10593115n", "wn:06614729n", "wn:00697365n", "wn:13773250n",
]  # fmt: skip


@pytest.fixture
def wordnet_files(tmp_path: Path) -> list[Path]:
    return write_tiny_wordnet(tmp_path / "lmf")


@pytest.fixture
def wn_project(project: Project, wordnet_files: list[Path]) -> Project:
    """A project (IT, ZH) whose lexicon is the tiny wordnet."""
    add_lexicons(project.wordnet_folder, [str(p) for p in wordnet_files])
    project.save_settings(ProjectSettings(name="wn", languages=("IT", "ZH"), lexicon=LexiconSettings("wordnet")))
    return project


def test_omega_follows_wordnet_sense_numbers_and_satellites_are_adjectives(wn_project: Project) -> None:
    lexicon = wn_project.lexicon()
    assert isinstance(lexicon, WordnetLexicon)
    assert lexicon.synset_ids("shot", "NOUN") == SHOT_SENSES  # the file lists them backwards; n decides
    assert lexicon.synset_ids("Shot", "NOUN") == SHOT_SENSES
    # a head adjective and three satellites, all `a`, in sense order
    assert lexicon.synset_ids("living", "ADJ") == ["wn:02756129a", "wn:01941274a", "wn:00005839a", "wn:00928874a"]
    assert lexicon.synset_ids("belong", "VERB") == ["wn:02301680v", "wn:02737724v", "wn:02737876v"]
    assert lexicon.synset_ids("shot", "VERB") == [] and lexicon.synset_ids("shot", "PROPN") == []
    record = lexicon.synset("wn:00928874a", ["IT", "ZH"])
    assert record.pos == "ADJ" and record.gloss() == "still in existence"
    english = {(s.lemma, s.wordnet_sense_number) for s in record.senses if s.lang == "EN"}
    assert english == {("surviving", 1), ("living", 4)}


def test_lexicalizations_come_through_the_ili_with_the_lexicon_as_provenance(wn_project: Project) -> None:
    lexicon = wn_project.lexicon()
    record = lexicon.synset("wn:00122661n", ["IT", "ZH"])
    by_lang = {(s.lang, s.source, s.lemma) for s in record.senses if s.lang != "EN"}
    assert ("IT", "tiny-it", "colpo") in by_lang and ("IT", "tiny-iwn", "sparo") in by_lang
    assert ("ZH", "tiny-cmn", "射击") in by_lang
    assert record.glosses == {"EN": "the act of firing a projectile"}  # glosses: the English definition
    # allowed sources are lexicon ids, every lexicon of the language by default (cmn-Hans is the project's ZH)
    defaults = lexicon.default_sources
    assert defaults["IT"] == {"TINY-IT", "TINY-IWN"} and defaults["ZH"] == {"TINY-CMN"}
    assert project_language("cmn-Hans") == "ZH" and project_language("it") == "IT"
    only_mwn = allowed_sources("IT", {"IT": ["tiny-it"]}, defaults)
    assert only_mwn.allows("tiny-it") and not only_mwn.allows("tiny-iwn")
    assert lexicon.synset_ids_in("sparo", "IT", "NOUN") == ["wn:04205759n", "wn:00122661n"]
    assert lexicon.synset_ids_in("属于", "ZH", "VERB") == ["wn:02301680v", "wn:02737876v"]
    with pytest.raises(LexiconError, match="not in the English wordnet"):
        lexicon.synset("wn:99999999n", ["IT"])


def test_figure_1_shot_item_gets_the_papers_good_and_bad_words(wn_project: Project) -> None:
    """DiBiMT Figure 1: "He poured a shot of whiskey" — GOOD bicchierino/cicchetto, BAD includes iniezione/sparo."""
    items = wn_project.data_dir.parent / "items.jsonl"
    line = {"id": "fig1", "sentence": "He poured a shot of whiskey.", "target": "shot", "lemma": "shot",
            "pos": "NOUN", "synset": SHOT_DRINK, "domain": "FOOD"}  # fmt: skip
    items.write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_items(wn_project, items)
    report = prepopulate(wn_project)
    assert report.outcome == "clean", report.warnings
    with wn_project.db.read() as conn:
        item = wn_project.repo.get_item(conn, "fig1")
        states = wn_project.repo.item_languages_of(conn, "fig1")
    assert item.domain == "FOOD" and item.gloss == "a small drink of liquor"
    assert item.polysemy_degree == 8 and item.sense_rank == 8  # μ(σ) from WordNet's sense numbers
    it = states["IT"]
    assert [c.text for c in it.initial_good] == ["bicchierino", "cicchetto"]
    assert all(c.synsets == (SHOT_DRINK,) for c in it.initial_good)
    bad = {c.text: c.synsets for c in it.initial_bad}
    assert {"iniezione", "sparo", "colpo", "tiratore"} <= set(bad)
    assert bad["sparo"] == ("wn:00122661n", "wn:04205759n") and bad["iniezione"] == ("wn:00697365n",)
    assert [c.text for c in states["ZH"].initial_good] == ["一杯"]
    assert {"注射", "射击", "机会"} <= {c.text for c in states["ZH"].initial_bad}


def test_a_babelnet_item_on_a_wordnet_project_is_skipped_with_its_reason(wn_project: Project) -> None:
    items = wn_project.data_dir.parent / "items.jsonl"
    rows = [
        {"id": "bn-item", "sentence": "He poured a shot.", "target": "shot", "lemma": "shot", "pos": "NOUN",
         "synset": "bn:00057755n"},
        {"id": "wn-item", "sentence": "A shot of rum.", "target": "shot", "lemma": "shot", "pos": "NOUN",
         "synset": SHOT_DRINK},
    ]  # fmt: skip
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_items(wn_project, items)
    report = prepopulate(wn_project)
    assert report.outcome == "partial" and report.item_languages == 2
    assert {(s.item_id, s.lang) for s in report.skipped} == {("bn-item", "IT"), ("bn-item", "ZH")}
    message = report.warnings[0]
    assert message.startswith("bn-item [IT ZH]: skipped") and "BabelNet synset id" in message and "wordnet" in message


def test_use_wordnet_adds_lexicons_into_the_projects_own_folder_and_readding_is_a_no_op(
    tmp_path: Path, wordnet_files: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "p"
    assert main(["init", "--data", str(data), "--languages", "IT,ZH"]) == 0
    assert main(["lexicon", "use-wordnet", "--data", str(data), *map(str, wordnet_files)]) == 0
    out = capsys.readouterr().out
    assert "tiny-en:3.0 (en, project language EN): 15 synsets, 22 senses — added" in out
    assert "tiny-cmn:1.0 (cmn-Hans, project language ZH): 7 synsets, 8 senses — added" in out
    assert "tiny-it:1.0 (it, project language IT): 9 synsets, 15 senses — added" in out
    assert "languages IT: tiny-it tiny-iwn; ZH: tiny-cmn" in out
    folder = data / "wordnet"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir() if p.is_file())
    assert Project.open(data).settings().lexicon.provider == "wordnet"
    before = (folder / "wn.db").read_bytes()
    assert main(["lexicon", "use-wordnet", "--data", str(data), str(wordnet_files[1])]) == 0
    assert "tiny-it:1.0 (it, project language IT): 9 synsets, 15 senses — already there" in capsys.readouterr().out
    assert (folder / "wn.db").read_bytes() == before


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("notes.txt", "hello", "must end in .xml, .xml.gz or .xml.xz"),
        ("items.xml", "<corpus/>", "has no XML declaration"),
        (
            "other.xml",
            '<?xml version="1.0" encoding="UTF-8"?>\n<corpus/>\n',
            "lacks the WN-LMF DOCTYPE on line 2",
        ),
        ("broken.xml.gz", "not gzip at all", "cannot decompress"),
    ],
)
def test_a_file_that_is_not_wn_lmf_is_refused_with_its_reason_and_nothing_changes(
    wn_project: Project, wordnet_files: list[Path], name: str, content: str, reason: str
) -> None:
    bad = wordnet_files[0].parent / name
    bad.write_text(content, encoding="utf-8")
    before = (wn_project.wordnet_folder / "wn.db").read_bytes()
    with pytest.raises(LexiconError) as refused:  # the good file given first is not added either
        add_lexicons(wn_project.wordnet_folder, [str(wordnet_files[0]), str(bad)])
    assert str(bad) in str(refused.value) and reason in str(refused.value)
    assert (wn_project.wordnet_folder / "wn.db").read_bytes() == before


def test_an_english_lexicon_without_wordnet_30_offsets_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "not-aligned.xml"
    other.write_text(english_lmf("tiny-other", offset_ids=False), encoding="utf-8")
    folder = tmp_path / "wordnet"
    with pytest.raises(LexiconError, match=r"not aligned with WordNet 3\.0") as refused:
        add_lexicons(folder, [str(other)])
    assert "tiny-other-x13773250n" in str(refused.value) or "do not carry WordNet 3.0 offsets" in str(refused.value)
    import wn

    wn.config.data_directory = folder
    assert wn.lexicons() == []  # removed again
    with pytest.raises(LexiconError, match="exactly one English"):
        WordnetLexicon(folder)


def test_the_whole_chain_runs_unchanged_on_a_wordnet_project(wn_project: Project, tmp_path: Path) -> None:
    """Import XML → pre-populate → filters → export (schema-checked, with domain) → statistics → evaluation."""
    xml, gold = write_tiny_wsd(tmp_path / "wsd")
    imported = import_wsd_xml(wn_project, xml, gold)
    assert imported.report.added == 3 and [i for i, _k in imported.multi_key] == ["tiny.d001.s000.t004"]
    assert prepopulate(wn_project).item_languages == 6
    filters = run_filters(wn_project)
    assert filters.checked == 3
    # all three pass δ ≥ 3 (8, 4, 3 senses); belong/"in the right place": IT appartenere also means "be owned by",
    # which has "belong" in English — the target-language rule, on wordnet data
    assert filters.by_rule() == {"polysemy": [], "one_per_sense": [], "target_language": ["tiny.d000.s001.t006"]}
    assert any("'appartenere' also means wn:02301680v" in f for f in filters.failures["tiny.d000.s001.t006"])
    result = export_dataset(wn_project, tmp_path / "out", ExportOptions(include_incomplete=True))
    lines = {line["id"]: line for line in read_dataset(result.files["dataset.jsonl"])}
    shot = lines["tiny.d000.s000.t003"]
    assert shot["synset"] == SHOT_DRINK and shot["domain"] == "FOOD_AND_DRINK" and shot["sense_rank"] == 8
    assert shot["sentence"][shot["target"]["start"] : shot["target"]["end"]] == "shot"
    assert result.manifest["lexicon"]["provider"] == "wordnet"
    assert "tiny-en:3.0" in result.manifest["lexicon"]["version"]
    stats = json.loads(result.files["stats.json"].read_text(encoding="utf-8"))
    assert stats["counts"]["all"] == {"items": 3, "lemmas": 3, "synsets": 3} and stats["counts"]["ADJ"]["items"] == 1
    translations = tmp_path / "translations.jsonl"
    translations.write_text(
        json.dumps({"id": "tiny.d000.s000.t003", "lang": "IT", "system": "s1",
                    "translation": "Ha versato un bicchierino di whisky."}) + "\n"
        + json.dumps({"id": "tiny.d000.s000.t003", "lang": "ZH", "system": "s1", "translation": "他倒了一杯威士忌。"})
        + "\n",
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "eval"
    assert main(["evaluate", str(result.files["dataset.jsonl"]), str(translations), "--out", str(out)]) == 0
    analysed = [json.loads(line) for line in (out / "analysed.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(r["lang"], r["result"]) for r in analysed} == {("IT", "GOOD"), ("ZH", "GOOD")}


def test_xml_import_needs_the_wordnet_lexicon(project: Project, tmp_path: Path) -> None:
    xml, gold = write_tiny_wsd(tmp_path / "wsd")
    before = dump(project)
    with pytest.raises(UserError, match="use-wordnet"):
        import_wsd_xml(project, xml, gold)
    assert dump(project) == before


def test_a_source_given_by_url_is_downloaded_into_the_projects_folder(
    tmp_path: Path, wordnet_files: list[Path]
) -> None:
    """What a wn package id does on a connected machine (wn.download), against a local HTTP server."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(wordnet_files[0].parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        folder = tmp_path / "wordnet"
        url = f"http://127.0.0.1:{server.server_address[1]}/tiny-it.xml.gz"
        added = add_lexicons(folder, [url])
    finally:
        server.shutdown()
    assert [(info.specifier, info.added) for info in added] == [("tiny-it:1.0", True)]
    assert (folder / "downloads").is_dir()  # wn's download cache: inside the project's folder, not ~/.wn_data
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
