"""Publishing (issue 35): the Hugging Face folder read back by ``datasets`` and ``mlcroissant`` equals the export's
``dataset.jsonl``; the card's YAML names every configuration; licences are checked against the lexicon sources."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from export_data import curate_demo
from wordnet_data import write_tiny_wordnet

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.dataset import ExportOptions, export_dataset, read_dataset
from annotator.data_export.publish import LicenceRefused, PublishFolderTaken, project_sources, publish
from annotator.domain.dataset_card import size_category
from annotator.domain.licences import OTHER, SourceLicence, identify, refusals, suggested
from annotator.domain.unicode_rules import UnstorableTextError
from annotator.lexicon.licences import snapshot_source
from annotator.lexicon.wordnet import add_lexicons
from annotator.lexicon.wordnet_store import remove_lexicon
from annotator.project import LexiconSettings, Project, ProjectSettings, builtin_path
from annotator.services.importing import import_items

LANGS = ("DE", "ES", "IT", "RU", "ZH")


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo after scripted curation (one item discarded in DE, two unfinished), published by the command."""
    root = tmp_path_factory.mktemp("publish")
    create_demo(str(root / "data"), quiet=True)
    curate_demo(root / "data")
    assert main(["publish", "--data", str(root / "data"), "--out", str(root / "hf"), "--name", "Demo bench"]) == 0
    return root / "hf"


def yaml_header(card: str) -> dict[str, Any]:
    match = re.match(r"---\n(.*?)\n---\n", card, re.S)
    assert match, "the card starts with a YAML header"
    header = yaml.safe_load(match.group(1))
    assert isinstance(header, dict)
    return header


def candidate(text: str, origin: str, synsets: str) -> dict[str, Any]:
    tag = re.fullmatch(r"\[.+\]_([A-Z]+)", text)
    return {"origin": origin, "pos": tag.group(1) if tag else None, "synsets": synsets.split(), "text": text}


def line_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The ``dataset.jsonl`` line a language row stands for (only that language): what the row must preserve."""
    line: dict[str, Any] = {
        "id": row["id"],
        "sentence": row["sentence"],
        "target": {
            "text": row["target"],
            "start": row["target_start"],
            "end": row["target_end"],
            "lemma": row["lemma"],
            "pos": row["pos"],
        },
        "synset": row["synset"],
        "gloss": row["gloss"],
        "source": row["source"],
        **({"domain": row["domain"]} if row["domain"] is not None else {}),
        "polysemy_degree": row["polysemy_degree"],
        "sense_rank": row["sense_rank"],
        "senses": [{"synset": s, "rank": r} for s, r in zip(row["senses"], row["sense_ranks"], strict=True)],
    }
    entry: dict[str, Any] = {
        side: [
            candidate(t, o, s) for t, o, s in zip(row[side], row[f"{side}_origin"], row[f"{side}_synsets"], strict=True)
        ]
        for side in ("good", "bad")
    }
    if row["status"] != "done":
        entry["status"] = row["status"]
    line["languages"] = {row["lang"]: entry}
    return line


def expected_lines(folder: Path, lang: str) -> list[dict[str, Any]]:
    lines = read_dataset(folder / "export" / "dataset.jsonl")
    return [{**line, "languages": {lang: line["languages"][lang]}} for line in lines if lang in line["languages"]]


def test_datasets_loads_every_language_offline_with_the_exported_rows_in_order(
    published: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    import datasets
    import huggingface_hub.constants

    # the variables are read when the libraries are first imported: a library imported earlier in this process
    # (Stanza imports huggingface_hub) would have missed them, so the flags are set too
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    seen = 0
    for lang in LANGS:
        rows = datasets.load_dataset(str(published), lang, split="test", cache_dir=str(tmp_path / "cache"))
        expected = expected_lines(published, lang)
        assert [line_from_row(row) for row in rows] == expected, lang
        seen += len(expected)
    assert seen == sum(len(line["languages"]) for line in read_dataset(published / "export" / "dataset.jsonl"))
    discarded = datasets.load_dataset(str(published), "discarded", split="test", cache_dir=str(tmp_path / "cache"))
    listed = [json.loads(x) for x in (published / "export" / "discarded.jsonl").read_text().splitlines()]
    assert listed and [dict(row) for row in discarded] == [
        {k: v for k, v in line.items() if k != "by"} for line in listed
    ]


def test_croissant_is_valid_for_mlcroissant_and_its_record_sets_yield_the_same_rows(published: Path) -> None:
    import mlcroissant

    document = json.loads((published / "croissant.json").read_text())
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    for file in document["distribution"]:
        assert hashlib.sha256((published / file["contentUrl"]).read_bytes()).hexdigest() == file["sha256"]
    dataset = mlcroissant.Dataset(published / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors
    assert [rs.uuid for rs in dataset.metadata.record_sets] == [*LANGS, "discarded"]
    for config in [*LANGS, "discarded"]:
        table = pq.read_table(published / "data" / config / "test.parquet").to_pylist()
        records = [
            {
                key.split("/", 1)[1]: (
                    [v.decode() if isinstance(v, bytes) else v for v in value]
                    if isinstance(value, list)
                    else value.decode()
                    if isinstance(value, bytes)
                    else value
                )
                for key, value in record.items()
            }
            for record in dataset.records(config)
        ]
        assert records == table, config
        if config != "discarded":
            assert [line_from_row(row) for row in records] == expected_lines(published, config)


def test_the_cards_yaml_names_every_configuration_and_its_file(published: Path) -> None:
    card = (published / "README.md").read_text(encoding="utf-8")
    header = yaml_header(card)
    configs = {c["config_name"]: c["data_files"] for c in header["configs"]}
    assert list(configs) == [*LANGS, "discarded"]
    for name, files in configs.items():
        assert files == [{"split": "test", "path": f"data/{name}/test.parquet"}]
        assert (published / files[0]["path"]).is_file()
    assert header["license"] == "cc-by-4.0"  # the demo snapshot states Apache-2.0: the most open default holds
    assert header["language"] == ["de", "en", "es", "it", "ru", "zh"]
    assert header["size_categories"] == ["n<1K"] and header["task_categories"] == ["translation"]
    assert header["pretty_name"] == "Demo bench"
    manifest = (published / "export" / "manifest.json").read_bytes()
    assert f"sha256:{hashlib.sha256(manifest).hexdigest()}" in card
    assert "## How the data was built" in card and "hf upload --repo-type dataset" in card
    assert "| insufficient context" not in card and "| other (see the note) | 1 |" in card  # fire-coach, DE
    assert "Apache License 2.0" in card and (published / "LICENSES" / "apache-2.0.txt").is_file()


def test_candidates_from_a_babelnet_snapshot_keep_its_licence_after_the_lexicon_is_switched_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The licence follows the sources the published rows came from, not the lexicon configured now."""
    data = tmp_path / "bn"
    create_demo(str(data), quiet=True)
    frozen = json.loads(builtin_path("demo/snapshot.json").read_text(encoding="utf-8"))
    frozen.update(provider="BabelNet HTTP API (cache export)", version="babelnet-v9")
    del frozen["license"]  # frozen from the BabelNet cache: BabelNet's licence
    (tmp_path / "frozen.json").write_text(json.dumps(frozen), encoding="utf-8")
    assert main(["lexicon", "use-snapshot", "--data", str(data), str(tmp_path / "frozen.json")]) == 0
    assert main(["prepopulate", "--data", str(data), "--redo"]) == 0
    demo_snapshot = str(builtin_path("demo/snapshot.json"))
    assert main(["lexicon", "use-snapshot", "--data", str(data), demo_snapshot]) == 0  # switched back
    capsys.readouterr()
    out = tmp_path / "hf"
    args = ["publish", "--data", str(data), "--out", str(out), "--include-incomplete", "--include-unusable"]
    assert main([*args, "--license", "cc-by-4.0"]) == 2
    error = capsys.readouterr().err
    assert "Cannot publish under 'cc-by-4.0'" in error
    assert "snapshot frozen.json (BabelNet HTTP API (cache export), version babelnet-v9)" in error
    assert "BabelNet Non-Commercial License, which forbids commercial use" in error
    assert "the licence 'other' publishes under the sources' own licences" in error
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bn", "frozen.json"]
    assert main(args) == 0  # the default: the sources' own licences
    card = (out / "README.md").read_text(encoding="utf-8")
    assert yaml_header(card)["license"] == OTHER and "BabelNet Non-Commercial License" in card


def test_licence_rules_share_alike_non_commercial_and_unknown_sources() -> None:
    wiktionary = SourceLicence("wikt-de", "DE candidates", identify("https://creativecommons.org/licenses/by-sa/3.0/"))
    wordnet = SourceLicence("wn30en", "English", identify("https://wordnet.princeton.edu/license-and-commercial-use"))
    cow = SourceLicence("omw-cmn", "ZH", identify("Chinese Open Wordnet License"))
    iwn = SourceLicence("omw-iwn", "IT", identify("https://opendatacommons.org/licenses/by/1-0/"))
    assert [s.licence.id for s in (wiktionary, wordnet, cow, iwn)] == ["cc-by-sa-3.0", "wordnet", "cow", "odc-by"]
    open_wordnets = [wordnet, cow, iwn, wiktionary]
    assert suggested(open_wordnets) == "cc-by-sa-4.0"
    assert refusals("cc-by-sa-3.0", open_wordnets) == []
    (reason,) = refusals("cc-by-4.0", open_wordnets)
    assert "wikt-de" in reason and "share-alike" in reason and "cc-by-sa-3.0 or a later version" in reason
    assert suggested([wordnet, iwn]) == "cc-by-4.0"
    babelnet = SourceLicence("BabelNet v9", "all", identify("BabelNet Non-Commercial License"))
    assert suggested([babelnet, wordnet]) == OTHER
    assert refusals(OTHER, [babelnet]) == []
    assert "its own" in refusals("cc-by-nc-sa-4.0", [babelnet])[0]
    unknown = SourceLicence("my snapshot", "all", identify(""))
    assert not unknown.licence.known and suggested([unknown]) == OTHER
    assert "not a licence publish knows" in refusals("wordnet", [wordnet])[0]  # a source-only licence
    assert size_category(999) == "n<1K" and size_category(10_000) == "10K<n<100K"


def test_wordnet_sources_come_from_each_lexicons_lmf_licence(project: Project, tmp_path: Path) -> None:
    add_lexicons(project.wordnet_folder, [str(p) for p in write_tiny_wordnet(tmp_path / "lmf")])
    settings = ProjectSettings(name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"))
    sources, allowed = project_sources(project, settings)
    assert [(s.source, s.licence.id) for s in sources] == [
        ("tiny English (tiny-en:3.0)", "wordnet"),
        ("tiny tiny-it (tiny-it:1.0)", "cc-by-3.0"),
        ("tiny tiny-iwn (tiny-iwn:1.0)", "cc-by-3.0"),
    ]  # the Chinese lexicon is not a project language: its data cannot reach the dataset
    assert allowed == ["IT: TINY-IT TINY-IWN"]
    assert suggested(sources) == "cc-by-4.0"
    only_iwn = ProjectSettings(
        name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"), allowed_sources={"IT": ["TINY-IWN"]}
    )
    assert [s.source for s in project_sources(project, only_iwn)[0]][1:] == ["tiny tiny-iwn (tiny-iwn:1.0)"]


def test_publish_refuses_a_folder_with_files_and_an_unknown_licence_before_writing(
    published: Path, tmp_path: Path
) -> None:
    data = published.parent / "data"
    project = Project.open(data)
    with pytest.raises(PublishFolderTaken, match="not empty"):
        publish(project, published)
    with pytest.raises(LicenceRefused, match="'mit-ish' is not a licence publish knows"):
        publish(project, tmp_path / "new", licence="mit-ish")
    assert not (tmp_path / "new").exists()
    usable = publish(project, tmp_path / "usable", include_incomplete=True)
    # the unfinished items' usable rows only: ES book-table is in progress, RU match-pipe pending
    assert usable.rows == {"DE": 16, "ES": 15, "IT": 16, "RU": 15, "ZH": 16, "discarded": 1}
    result = publish(
        project, tmp_path / "incomplete", licence="cc-by-sa-4.0", include_incomplete=True, include_unusable=True
    )
    assert result.rows == {**dict.fromkeys(LANGS, 16), "discarded": 1}  # excluded and DE-discarded items out
    table = pq.read_table(tmp_path / "incomplete" / "data" / "ES" / "test.parquet").to_pylist()
    unfinished = [(row["id"], row["status"], row["usable"]) for row in table if row["status"] != "done"]
    assert (
        unfinished == [("book-table", "in_progress", False)]
        and yaml_header((tmp_path / "incomplete" / "README.md").read_text())["license"] == "cc-by-sa-4.0"
    )
    project.db.dispose()


def test_a_snapshot_states_its_licence_in_its_header_or_is_babelnets_when_frozen_from_its_cache() -> None:
    stated = snapshot_source({"provider": "hand-built", "version": "1", "license": "CC-BY-SA-4.0"}, "s.json")
    assert stated.licence.id == "cc-by-sa-4.0" and stated.stated == "CC-BY-SA-4.0"
    frozen = snapshot_source({"provider": "BabelNet HTTP API (cache export)", "version": "babelnet-v9"}, "c.jsonl")
    assert frozen.licence.id == "babelnet-nc" and "forbids commercial use" in refusals("cc-by-4.0", [frozen])[0]
    silent = snapshot_source({"provider": "someone", "version": "1"}, "x.json")
    assert not silent.licence.known and suggested([silent]) == OTHER
    assert "does not state a licence publish recognises" in refusals("cc-by-sa-4.0", [silent])[0]


def test_the_card_stays_valid_whatever_the_projects_name_holds(published: Path, tmp_path: Path) -> None:
    hostile = 'Bench "x" --- license: mit {\\evil} # not a comment'  # a line break is refused (test_publish_card)
    project = Project.open(published.parent / "data")
    result = publish(project, tmp_path / "hostile", name=hostile)
    project.db.dispose()
    card = (result.path / "README.md").read_text(encoding="utf-8")
    header = yaml_header(card)
    assert header["pretty_name"] == hostile and header["license"] == "cc-by-4.0"
    assert 'title = {Bench "x" --- license: mit (/evil) \\# not a comment}' in card
    assert json.loads((result.path / "croissant.json").read_text())["name"] == "bench-x-license-mit-evil-not-a-comment"


def test_a_project_whose_filters_never_ran_does_not_claim_zero_flagged(project: Project, tmp_path: Path) -> None:
    items = Path(__file__).resolve().parents[2] / "annotator" / "demo" / "items.jsonl"
    snapshot = LexiconSettings("snapshot", snapshot="builtin:demo/snapshot.json")
    project.save_settings(ProjectSettings(name="fresh", languages=("IT",), lexicon=snapshot))
    import_items(project, items)
    result = publish(project, tmp_path / "fresh", include_incomplete=True, include_unusable=True)
    card = (result.path / "README.md").read_text(encoding="utf-8")
    assert "The selection filters were not run on this project" in card and "0 item(s) flagged" not in card
    assert result.rows == {"IT": 18, "discarded": 0} and "Apache License 2.0" in card


def test_filter_counts_are_items_not_failures(project: Project, tmp_path: Path) -> None:
    items = Path(__file__).resolve().parents[2] / "annotator" / "demo" / "items.jsonl"
    snapshot = LexiconSettings("snapshot", snapshot="builtin:demo/snapshot.json")
    project.save_settings(ProjectSettings(name="f", languages=("IT", "ZH"), lexicon=snapshot))
    import_items(project, items)
    failing = {"shot-whiskey": ["target_language: IT 'x' also means y", "target_language: ZH 'z' also means y"]}
    with project.db.write() as conn:
        project.repo.set_filter_results(conn, failing)
    result = export_dataset(project, tmp_path / "exports", ExportOptions(include_incomplete=True))
    assert result.project_items == {
        "total": 18,
        "excluded": 0,
        "flagged": {"polysemy": 0, "one_per_sense": 0, "target_language": 1},
    }


def test_publish_names_the_lexicons_of_the_current_wordnet_after_another_run_replaced_it(
    project: Project, tmp_path: Path
) -> None:
    """``wn`` keeps one connection per database path for the life of a process; the database is replaced by a
    rename, so a long-running app that read the lexicons once must still see a lexicon added or removed later."""
    files = [str(p) for p in write_tiny_wordnet(tmp_path / "lmf")]
    italian = [f for f in files if "iwn" not in f]
    add_lexicons(project.wordnet_folder, italian)
    settings = ProjectSettings(name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet"))
    before = [s.source for s in project_sources(project, settings)[0]]
    assert "tiny tiny-iwn (tiny-iwn:1.0)" not in before
    add_lexicons(project.wordnet_folder, [f for f in files if "iwn" in f])
    sources, allowed = project_sources(project, settings)
    assert "tiny tiny-iwn (tiny-iwn:1.0)" in [s.source for s in sources]
    assert allowed == ["IT: TINY-IT TINY-IWN"]
    remove_lexicon(project.wordnet_folder, "tiny-it:1.0")
    sources, allowed = project_sources(project, settings)
    assert "tiny tiny-it (tiny-it:1.0)" not in [s.source for s in sources] and allowed == ["IT: TINY-IWN"]


@pytest.mark.parametrize("char", ["\x00", "\ud800", "\ufffe"])
def test_a_dataset_name_holding_unstorable_text_is_refused_by_name_and_nothing_is_written(
    published: Path, tmp_path: Path, char: str
) -> None:
    project = Project.open(published.parent / "data")
    with pytest.raises(UnstorableTextError, match="The dataset name holds"):
        publish(project, tmp_path / "out", name=f"Bench{char}mark")
    project.db.dispose()
    assert not (tmp_path / "out").exists()
