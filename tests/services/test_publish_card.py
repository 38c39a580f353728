"""What a published card says the data is (issue 41): rows by status, empty GOOD, usable, each selection rule, the
same counts as the Parquet's; only usable rows by default; every declared configuration loads; names, sources'
metadata and paths that cannot break or leak into the card, ``LICENSES/``, ``croissant.json`` or the manifest."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from export_data import EXCLUDED, curate_demo, validator
from markdown_it import MarkdownIt

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.selection import ExportOptions, load_project_data, select
from annotator.domain.dataset_card import CardTextError
from annotator.domain.model import Role
from annotator.domain.refinement_stats import RefinementRecord, refinement_table
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts.admin import add_user
from annotator.services.curation import CurationService
from annotator.services.importing import import_items

LANGS = ("DE", "ES", "IT", "RU", "ZH")
DEMO = Path(__file__).resolve().parents[2] / "annotator" / "demo"
#: A translator whose name must never reach the published folder.
SECRET_TRANSLATOR = "zoe.hidden-name"
#: Done by a sheet import with nothing in GOOD (the curation service refuses it; an imported sheet may carry it).
EMPTY_DONE = ("head-stream", "IT")


def yaml_header(card: str) -> dict[str, Any]:
    match = re.match(r"---\n(.*?)\n---\n", card, re.S)
    assert match, "the card starts with a YAML header"
    header = yaml.safe_load(match.group(1))
    assert isinstance(header, dict)
    return header


def card_table(card: str, section: str) -> list[dict[str, str]]:
    """The first Markdown table under ``## section``, as dicts by header."""
    return table_after(card, f"## {section}\n")


def table_after(card: str, marker: str) -> list[dict[str, str]]:
    """The first Markdown table after ``marker`` (and before the next section)."""
    text = card.split(marker, 1)[1].split("\n## ", 1)[0].splitlines()
    start = next(n for n, line in enumerate(text) if line.startswith("|"))
    lines = []
    for line in text[start:]:
        if not line.startswith("|"):
            break
        lines.append(line)
    headers = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(headers, (c.strip() for c in line.strip("|").split("|")), strict=True)) for line in lines[2:]]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The curated demo, plus: a translator with a name that must not be published edits an ES row, and one IT row
    is done with an empty GOOD list (as a spreadsheet import can leave it)."""
    data = tmp_path_factory.mktemp("card") / "data"
    create_demo(str(data), quiet=True)
    curate_demo(data)
    project = Project.open(data)
    translator = add_user(project, SECRET_TRANSLATOR, Role.TRANSLATOR, ("ES",), "a-long-enough-password-41")
    service = CurationService(project, translator)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, "book-table", "ES")
        empty = project.repo.get_item_language(conn, *EMPTY_DONE)
    assert state is not None and empty is not None
    service.replace_candidates("book-table", "ES", [*(e.format() for e in state.good), "separar"], [], state.version)
    with project.db.write() as conn:
        project.repo.save_item_language(conn, replace(empty, good=()), empty.version, "lead", "sheet_edit")
    project.db.dispose()
    return data


def parquet_facts(folder: Path, config: str) -> dict[str, Any]:
    rows = pq.read_table(folder / "data" / config / "test.parquet").to_pylist()
    return {
        "rows": len(rows),
        "status": Counter(row["status"] for row in rows),
        "empty GOOD": sum(not row["good"] for row in rows),
        "usable": sum(row["usable"] for row in rows),
        "usable rule": all(row["usable"] == (row["status"] == "done" and bool(row["good"])) for row in rows),
        "fails": Counter(rule for row in rows for rule in row["filters_failed"]),
    }


def check_card_counts_equal_the_parquet(folder: Path) -> None:
    card = (folder / "README.md").read_text(encoding="utf-8")
    table = {row["configuration"]: row for row in card_table(card, "What the data is")}
    declared = [c["config_name"] for c in yaml_header(card)["configs"]]
    for config in [c for c in declared if c != "discarded"]:
        facts, shown = parquet_facts(folder, config), table[config]
        assert facts["usable rule"], config
        assert int(shown["rows"]) == facts["rows"] and int(shown["usable"]) == facts["usable"], config
        assert int(shown["empty GOOD"]) == facts["empty GOOD"], config
        statuses = {name: int(n) for name, n in shown.items() if name in ("done", "pending", "in_progress", "discuss")}
        assert statuses == {s: facts["status"].get(s, 0) for s in statuses} and sum(statuses.values()) == facts["rows"]
        assert set(facts["status"]) <= set(statuses), config
        for rule in ("polysemy", "one_per_sense", "target_language"):
            assert int(shown[f"fails {rule}"]) == facts["fails"][rule], (config, rule)


def test_default_publish_has_only_usable_rows_and_the_card_counts_equal_the_parquet(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(demo), "--out", str(out)]) == 0
    check_card_counts_equal_the_parquet(out)
    it = pq.read_table(out / "data" / "IT" / "test.parquet").to_pylist()
    assert all(row["usable"] and row["status"] == "done" for row in it)
    manifest = json.loads((out / "export" / "manifest.json").read_text())
    validator("manifest.schema.json").validate(manifest)
    assert manifest["options"]["usable_only"] is True and manifest["counts"]["left_out"]["unusable"] == 0
    assert EMPTY_DONE[0] not in {row["id"] for row in it}  # done but nothing in GOOD: not usable, left out
    card = (out / "README.md").read_text(encoding="utf-8")
    left = {row["language"]: row for row in table_after(card, "Rows left out as not usable")}
    assert left["IT"]["done, GOOD empty"] == "1"
    # flagged items a lead did not exclude are published with their rule (the demo's filters flag three)
    flagged = [row for config in LANGS for row in pq.read_table(out / "data" / config / "test.parquet").to_pylist()]
    failing = Counter(rule for row in flagged for rule in row["filters_failed"])
    assert failing and set(failing) <= {"polysemy", "one_per_sense", "target_language"}
    listed = ", ".join(
        f"`{rule}` {failing[rule]}" for rule in ("polysemy", "one_per_sense", "target_language") if failing[rule]
    )
    assert f"published rows failing a rule: {listed} (per language" in card


def test_every_declared_configuration_loads_and_a_configuration_without_rows_is_not_declared(
    demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project without discards: the ``discarded`` configuration would have 0 rows, which ``datasets`` cannot
    load ("BatchSize must be greater than 0"): it is neither written nor declared; every other one loads."""
    project = Project.open(tmp_path / "fresh", create=True)
    snapshot = LexiconSettings("snapshot", snapshot="builtin:demo/snapshot.json")
    project.save_settings(ProjectSettings(name="fresh", languages=("IT", "ZH"), lexicon=snapshot))
    import_items(project, DEMO / "items.jsonl")
    project.db.dispose()
    out = tmp_path / "hf"
    args = ["publish", "--data", str(tmp_path / "fresh"), "--out", str(out), "--include-incomplete"]
    assert main([*args, "--include-unusable"]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    declared = [c["config_name"] for c in yaml_header(card)["configs"]]
    assert declared == ["IT", "ZH"] and not (out / "data" / "discarded").exists()
    assert [rs["@id"] for rs in json.loads((out / "croissant.json").read_text())["recordSet"]] == ["IT", "ZH"]
    assert "No person changed any of the 36 published row(s)" in card and "translators refined" not in card
    assert yaml_header(card)["annotations_creators"] == ["machine-generated"]
    check_card_counts_equal_the_parquet(out)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    for config in declared:
        rows = datasets.load_dataset(str(out), config, split="test", cache_dir=str(tmp_path / "cache"))
        assert rows.to_list() == pq.read_table(out / "data" / config / "test.parquet").to_pylist()
    import mlcroissant

    dataset = mlcroissant.Dataset(out / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors
    assert len(list(dataset.records("ZH"))) == 18


def test_unusable_rows_are_published_only_when_asked_and_the_refusal_names_flags_that_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project.open(tmp_path / "fresh", create=True)
    snapshot = LexiconSettings("snapshot", snapshot="builtin:demo/snapshot.json")
    project.save_settings(ProjectSettings(name="fresh", languages=("IT",), lexicon=snapshot))
    import_items(project, DEMO / "items.jsonl")
    project.db.dispose()
    base = ["publish", "--data", str(tmp_path / "fresh")]
    assert main([*base, "--out", str(tmp_path / "a")]) == 2
    error = capsys.readouterr().err
    assert "Nothing to publish" in error and "--include-incomplete publishes the usable rows" in error
    assert main([*base, "--out", str(tmp_path / "b"), "--include-incomplete"]) == 2
    error = capsys.readouterr().err
    assert "left out: 18 unusable" in error and "--include-unusable publishes rows not done" in error
    flags = set(re.findall(r"--[a-z-]+", error)) | {"--include-incomplete"}
    from annotator.cli import build_parser

    help_text = build_parser()._subparsers._group_actions[0].choices["publish"].format_help()  # type: ignore[union-attr]
    assert flags and all(flag in help_text for flag in flags)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_curation_text_and_who_annotated_come_from_the_history_without_names(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(demo), "--out", str(out), "--include-incomplete", "--include-unusable"]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    project = Project.open(demo)
    with project.db.read() as conn:
        touched = {
            (row[0], row[1])
            for row in conn.exec_driver_sql("SELECT item_id, lang FROM history WHERE user NOT LIKE 'system:%'")
        }
    project.db.dispose()
    rows = [row for lang in LANGS for row in pq.read_table(out / "data" / lang / "test.parquet").to_pylist()]
    changed = sum((row["id"], row["lang"]) in touched for row in rows)
    assert 0 < changed < len(rows)  # match-pipe RU was left pending by everyone
    assert f"People changed {changed} of the {len(rows)} published row(s)" in card
    assert f"The other {len(rows) - changed} row(s) are the lexicon's output as pre-populated" in card
    assert "2 person(s) changed item-languages" in card
    who = {row["language"]: row for row in card_table(card, "Who annotated")}
    assert who["ES"]["lead"] == "1" and who["ES"]["translator"] == "1" and who["DE"]["all"] == "1"
    assert yaml_header(card)["annotations_creators"] == ["expert-generated", "machine-generated"]
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET_TRANSLATOR.encode() not in path.read_bytes(), path


def test_a_word_moved_from_bad_counts_as_added_and_keeps_its_lexicon_origin_in_stats_schema_and_card(
    demo: Path, tmp_path: Path
) -> None:
    """The demo's curation moves DE "feuern" from BAD to GOOD on fire-late (fire-coach is discarded in DE)."""
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(demo), "--out", str(out)]) == 0
    stats = json.loads((out / "export" / "stats.json").read_text())["refinement"]["languages"]
    assert stats["DE"]["added_moved"] == 1 and stats["DE"]["added"] >= 1
    de = {row["id"]: row for row in pq.read_table(out / "data" / "DE" / "test.parquet").to_pylist()}
    moved = dict(zip(de["fire-late"]["good"], de["fire-late"]["good_origin"], strict=True))
    assert moved["feuern"] == "lexicon"
    card = (out / "README.md").read_text(encoding="utf-8")
    table2 = {row["language"]: row for row in card_table(card, "Refinement statistics")}
    assert table2["DE"]["added / moved"] == f"{stats['DE']['added']} / 1"
    assert "moved from BAD by a translator (`origin` stays `lexicon`" in card
    assert "added them)" not in card  # the old text said every added word was the translators' own
    croissant = json.loads((out / "croissant.json").read_text())
    descriptions = {f["name"]: f["description"] for f in croissant["recordSet"][0]["field"]}
    assert "moved to GOOD by a translator" in descriptions["good_origin"]


def test_moved_words_are_counted_apart_in_the_refinement_sums() -> None:
    records = [
        RefinementRecord("a", "DE", "s1", frozenset({"x"}), frozenset({"x", "y", "z"}), frozenset({"x", "y"})),
        RefinementRecord("b", "DE", "s2", frozenset({"p"}), frozenset({"q"}), frozenset()),
    ]
    row = refinement_table(records, ["DE"]).row("DE")
    assert (row.added, row.added_moved, row.final_good) == (3, 1, 4) and row.added_pct == 75.0
    assert row.to_json()["added_moved"] == 1


def test_selection_keeps_only_usable_item_languages_when_asked(demo: Path) -> None:
    project = Project.open(demo)
    data = load_project_data(project)
    project.db.dispose()
    usable = select(data, ExportOptions(include_incomplete=True, usable_only=True))
    everything = select(data, ExportOptions(include_incomplete=True))
    assert usable.unusable["IT"] == Counter({"empty_good": 1}) and usable.unusable["ES"] == Counter({"in_progress": 1})
    assert usable.unusable["RU"] == Counter({"pending": 1}) and usable.left_out["unusable"] == 0
    assert sum(usable.per_language().values()) == sum(everything.per_language().values()) - 3
    assert "unusable" not in everything.left_out  # a plain export's counts are unchanged
    assert EXCLUDED not in {exported.item.id for exported in usable.items}


def test_hub_id_and_authors_fill_the_croissant_url_the_load_upload_and_citation_lines(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hf"
    args = ["publish", "--data", str(demo), "--out", str(out), "--hub-id", "lab-x/wsd.bench_1"]
    assert main([*args, "--author", "Ada Lovelace", "--author", "Alan Turing"]) == 0
    printed = capsys.readouterr().out
    assert f"hf upload --repo-type dataset lab-x/wsd.bench_1 {out}" in printed and "placeholder(s)" in printed
    card = (out / "README.md").read_text(encoding="utf-8")
    assert 'load_dataset("lab-x/wsd.bench_1", "DE", split="test")' in card
    assert "hf upload --repo-type dataset lab-x/wsd.bench_1 ." in card
    assert "author = {Ada Lovelace and Alan Turing}" in card
    assert "howpublished = {\\url{https://huggingface.co/datasets/lab-x/wsd.bench_1}}" in card
    croissant = json.loads((out / "croissant.json").read_text())
    assert croissant["url"] == "https://huggingface.co/datasets/lab-x/wsd.bench_1"
    assert [c["name"] for c in croissant["creator"]] == ["Ada Lovelace", "Alan Turing"]
    assert croissant["publisher"]["name"] == "lab-x"
    rai = {key for key in croissant if key.startswith("rai:")}
    assert {"rai:dataCollection", "rai:dataAnnotationProtocol", "rai:personalSensitiveInformation"} <= rai
    assert {"rai:dataLimitations", "rai:dataUseCases", "rai:dataReleaseMaintenancePlan"} <= rai
    for section in ("Who annotated", "Uses", "Limitations", "Personal and sensitive information", "Maintenance"):
        assert f"\n## {section}\n" in card
    assert yaml_header(card)["source_datasets"] == ["extended|other"]
    import mlcroissant

    assert not mlcroissant.Dataset(out / "croissant.json").metadata.ctx.issues.errors


def test_without_a_hub_id_the_card_marks_what_a_lead_must_fill(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(demo), "--out", str(out)]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "**[TO FILL: the Hub URL (annotator publish --hub-id OWNER/NAME)]**" in card
    assert "author = {TO FILL: the authors (--author)}" in card and 'load_dataset("OWNER/NAME"' in card
    assert "url" not in json.loads((out / "croissant.json").read_text())  # a placeholder is not a URL


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Bench\x7fmark", "U+007F (DEL)"),
        ("Bench\x85mark", "U+0085 (next line)"),
        ("Bench\x9bmark", "U+009B (C1 control)"),
        ("Bench\x1bmark", "U+001B (C0 control)"),
        ("Bench\nmark", "U+000A (line feed)"),
    ],
)
def test_a_control_character_in_a_name_is_refused_by_name_with_exit_2_and_nothing_written(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, shown: str
) -> None:
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(demo), "--out", str(out), "--name", name]) == 2
    error = capsys.readouterr().err
    assert f"The dataset name holds the control character {shown} at character 6" in error
    assert not out.exists()
    assert main(["publish", "--data", str(demo), "--out", str(out), "--author", name]) == 2
    assert f"The author holds the control character {shown}" in capsys.readouterr().err and not out.exists()


def test_a_control_character_in_the_projects_name_is_refused_and_a_bad_hub_id_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project.open(tmp_path / "p", create=True)
    snapshot = LexiconSettings("snapshot", snapshot="builtin:demo/snapshot.json")
    project.save_settings(ProjectSettings(name="My\x7fbench", languages=("IT",), lexicon=snapshot))
    import_items(project, DEMO / "items.jsonl")
    project.db.dispose()
    args = ["publish", "--data", str(tmp_path / "p"), "--out", str(tmp_path / "hf"), "--include-incomplete"]
    assert main([*args, "--include-unusable"]) == 2
    assert "project's name (give another with --name) holds the control character U+007F" in capsys.readouterr().err
    for hub_id in ("no-owner", "a/b/c", "-x/y", "x/y--z", "x/ y"):
        assert main([*args, "--include-unusable", "--name", "ok", f"--hub-id={hub_id}"]) == 2
        assert "is not OWNER/NAME" in capsys.readouterr().err or hub_id == "x/ y"
    with pytest.raises(CardTextError, match="control character"):
        from annotator.domain.dataset_card import check_hub_id

        check_hub_id("x/y\x85")
    assert main([*args, "--include-unusable", "--name", "Bench ok"]) == 0


def test_hostile_text_stays_text_in_every_format(demo: Path, tmp_path: Path) -> None:
    """A name and a snapshot's metadata crafted to make headings, images, links, YAML keys or LaTeX commands."""
    hostile = 'Bench "x" --- license: mit {\\evil} # 100% $x$ & ![p](https://evil.example/p.png) <b>'
    snapshot = json.loads((DEMO / "snapshot.json").read_text(encoding="utf-8"))
    snapshot["provider"] = "x\n## Licence: CC0\n![pixel](https://evil.example/pixel.png) [click](https://evil.example)"
    snapshot["label"] = "<img src=https://evil.example/l.png> # Heading"
    (demo.parent / "hostile.json").write_text(json.dumps(snapshot), encoding="utf-8")
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    project = Project.open(data)
    settings = project.settings()
    project.save_settings(
        replace(settings, lexicon=LexiconSettings("snapshot", snapshot=str(demo.parent / "hostile.json")))
    )
    project.db.dispose()
    assert main(["prepopulate", "--data", str(data), "--redo", "--force"]) == 0  # the rows now come from it
    out = tmp_path / "hf"
    args = ["--name", hostile, "--license", "other", "--include-incomplete", "--include-unusable"]
    assert main(["publish", "--data", str(data), "--out", str(out), *args]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    header = yaml_header(card)
    assert header["pretty_name"] == hostile and header["license"] == "other"
    assert (
        'title = {Bench "x" --- license: mit (/evil) \\# 100\\% \\$x\\$ \\& ![p](https://evil.example/p.png) <b>}'
        in card
    )
    markdown = MarkdownIt("commonmark").enable("table")
    for path in (out / "README.md", out / "LICENSES" / "README.md"):
        text = path.read_text(encoding="utf-8").split("\n---\n", 1)[-1]
        tokens = [t for block in markdown.parse(text) for t in [block, *(block.children or [])]]
        assert not [t for t in tokens if t.type in ("image", "html_inline", "html_block")], path
        assert not [t for t in tokens if t.type == "link_open" and "evil" in str(t.attrGet("href"))], path
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        assert not [h for h in headings if h.startswith(("Licence: CC0", "Heading"))], (path, headings)
    licences = (out / "LICENSES" / "README.md").read_text(encoding="utf-8")
    assert licences.count("\n## ") == 2  # two sources (the sentences, the snapshot), two headings


def test_nothing_published_names_a_path_of_the_server(demo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "server" / "lexicons"
    elsewhere.mkdir(parents=True)
    shutil.copy(DEMO / "snapshot.json", elsewhere / "demo-snapshot.json")
    data = tmp_path / "data"
    shutil.copytree(demo, data)
    project = Project.open(data)
    project.save_settings(
        replace(project.settings(), lexicon=LexiconSettings("snapshot", snapshot=str(elsewhere / "demo-snapshot.json")))
    )
    project.db.dispose()
    assert main(["prepopulate", "--data", str(data), "--redo", "--force"]) == 0  # the rows now come from it
    out = tmp_path / "hf"
    assert main(["publish", "--data", str(data), "--out", str(out), "--include-incomplete", "--include-unusable"]) == 0
    for path in out.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert str(tmp_path).encode() not in content and b"/server/" not in content, path
    manifest = json.loads((out / "export" / "manifest.json").read_text())
    assert manifest["lexicon"]["snapshot"] == "demo-snapshot.json"
    assert "snapshot demo-snapshot.json" in (out / "LICENSES" / "README.md").read_text(encoding="utf-8")
