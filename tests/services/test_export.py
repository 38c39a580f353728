"""Dataset export (SPEC §7): the demo project after scripted curation, the JSON Schema, determinism, the
selection rules and options, atomic writing, and the ``export``/``stats`` commands."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from export_data import DISCARDED, EXCLUDED, INCOMPLETE, curate_demo, validator
from refinement_records import records_from_states

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.dataset import (
    DATASET_FILE,
    DISCARDED_FILE,
    MANIFEST_FILE,
    STATS_FILE,
    ExportOptions,
    collect,
    export_dataset,
    load_project_data,
    read_dataset,
    select,
)
from annotator.data_export.selection import DiscardedItemLanguage, DoneRow, ExportedItem
from annotator.domain.candidates import parse_candidate
from annotator.domain.model import CandidateEntry, ItemLanguage, Origin, Status
from annotator.domain.refinement_stats import refinement_table
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.store.item_languages import CandidateSetsRow
from annotator.store.items import ItemRow

LANGS = ("DE", "ES", "IT", "RU", "ZH")


@pytest.fixture(scope="module")
def curated(tmp_path_factory: pytest.TempPathFactory) -> Project:
    data = tmp_path_factory.mktemp("curated-demo") / "data"
    create_demo(str(data), quiet=True)
    curate_demo(data)
    return Project.open(data)


def test_demo_export_validates_line_by_line_against_the_schema(curated: Project, tmp_path: Path) -> None:
    result = export_dataset(curated, tmp_path / "exports")
    raw = result.files[DATASET_FILE].read_bytes()
    lines = raw.decode("utf-8").splitlines()
    schema = validator()
    for number, line in enumerate(lines, start=1):
        errors = [e.message for e in schema.iter_errors(json.loads(line))]
        assert not errors, f"line {number}: {errors}"
    data = [json.loads(line) for line in lines]
    assert [d["id"] for d in data] == sorted(d["id"] for d in data)
    for d in data:
        assert set(d["languages"]) == set(LANGS)
        for lang in d["languages"].values():
            for candidate in (*lang["good"], *lang["bad"]):
                parsed = parse_candidate(candidate["text"], d["target"]["pos"])  # canonical §3 form round-trips
                assert (parsed.format(), parsed.pos) == (candidate["text"], candidate["pos"])
    # UTF-8 as is, not \u escapes; Figure 1's item with its senses, rank and provenance.
    assert "Schlückchen".encode() in raw and b"\\u" not in raw
    shot = next(d for d in data if d["id"] == "shot-whiskey")
    assert (shot["polysemy_degree"], shot["sense_rank"]) == (6, 5)
    assert [s["rank"] for s in shot["senses"]] == [1, 2, 3, 4, 5, 6]
    assert shot["senses"][4]["synset"] == shot["synset"] == "bn:00057755n"
    it = shot["languages"]["IT"]
    assert [c["text"] for c in it["good"]] == ["goccio", "cicchetto"]
    assert it["good"][0]["origin"] == "lexicon" and it["good"][0]["synsets"] == ["bn:00057755n"]
    assert it["good"][1] == {"text": "cicchetto", "pos": None, "origin": "translator", "synsets": []}
    assert it["bad"][-1] == {"text": "[sparare]_VERB", "pos": "VERB", "origin": "translator", "synsets": []}


def test_schema_rejects_lines_that_break_the_format() -> None:
    schema = validator()
    good_line = {
        "id": "x",
        "sentence": "A shot.",
        "target": {"text": "shot", "start": 2, "end": 6, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:00057755n",
        "gloss": "",
        "source": "",
        "polysemy_degree": 2,
        "sense_rank": 1,
        "senses": [{"synset": "bn:00057755n", "rank": 1}],
        "languages": {
            "IT": {
                "good": [{"text": "[sparare]_VERB", "pos": "VERB", "origin": "translator", "synsets": []}],
                "bad": [],
            }
        },
    }
    assert schema.is_valid(good_line)
    broken = json.loads(json.dumps(good_line))
    broken["languages"]["IT"]["good"][0]["text"] = "sparare"  # a tag but no brackets
    assert not schema.is_valid(broken)
    broken = {k: v for k, v in good_line.items() if k != "senses"}
    assert not schema.is_valid(broken)
    broken = json.loads(json.dumps(good_line))
    broken["languages"]["it"] = broken["languages"].pop("IT")
    assert not schema.is_valid(broken)


def test_two_exports_of_the_same_database_are_byte_identical(curated: Project, tmp_path: Path) -> None:
    first = export_dataset(curated, tmp_path)
    second = export_dataset(curated, tmp_path)
    assert first.path != second.path  # a new folder each time, never overwritten
    for name in (DATASET_FILE, DISCARDED_FILE, STATS_FILE):
        assert first.files[name].read_bytes() == second.files[name].read_bytes(), name
    assert first.manifest["files"] == second.manifest["files"]


def test_manifest_records_versions_counts_lexicon_and_checksums(curated: Project, tmp_path: Path) -> None:
    result = export_dataset(curated, tmp_path)
    manifest = json.loads(result.files[MANIFEST_FILE].read_text(encoding="utf-8"))
    assert manifest == result.manifest
    assert not list(validator("manifest.schema.json").iter_errors(manifest))
    assert manifest["schema_version"] == 1 and manifest["tool_version"]
    assert manifest["languages"] == list(LANGS)
    assert manifest["lexicon"]["provider"] == "snapshot"
    assert manifest["lexicon"]["version"] == "demo-1"
    for name, info in manifest["files"].items():
        data = (result.path / name).read_bytes()
        assert info["sha256"] == hashlib.sha256(data).hexdigest(), name
        assert info["bytes"] == len(data)
    assert sorted(p.name for p in result.path.iterdir()) == sorted([*manifest["files"], MANIFEST_FILE])


def test_default_export_holds_items_done_in_every_language(curated: Project, tmp_path: Path) -> None:
    result = export_dataset(curated, tmp_path)
    ids = {d["id"] for d in read_dataset(result.files[DATASET_FILE])}
    assert len(ids) == 14
    assert not ids & {EXCLUDED, DISCARDED, *INCOMPLETE}
    counts = result.manifest["counts"]
    assert counts["left_out"] == {"excluded": 1, "discarded": 1, "incomplete": 2}
    assert counts["item_languages"] == 14 * 5
    # Table 1 for these 14 items, counted by hand from annotator/demo/README.md: nouns shot×2, head×2, bank,
    # spring, plant, bat (8 items, 6 lemmas, 8 synsets); verbs take off, run×2 (one synset), fire-late, charge,
    # strike (6 items, 5 lemmas, 5 synsets).
    assert counts["table1"] == {
        "all": {"items": 14, "lemmas": 11, "synsets": 13},
        "NOUN": {"items": 8, "lemmas": 6, "synsets": 8},
        "VERB": {"items": 6, "lemmas": 5, "synsets": 5},
    }
    discarded = [json.loads(line) for line in result.files[DISCARDED_FILE].read_text(encoding="utf-8").splitlines()]
    assert len(discarded) == 1
    assert discarded[0]["id"] == DISCARDED and discarded[0]["lang"] == "DE"
    assert (discarded[0]["reason"], discarded[0]["note"], discarded[0]["by"]) == (
        "other",
        "same sense and source as fire-late",
        "lead",
    )
    assert discarded[0]["at"] and discarded[0]["item_exported"] is False


def test_options_keep_partially_discarded_and_include_incomplete(curated: Project, tmp_path: Path) -> None:
    kept = read_dataset(
        export_dataset(curated, tmp_path, ExportOptions(keep_partially_discarded=True)).files[DATASET_FILE]
    )
    fire = next(d for d in kept if d["id"] == DISCARDED)
    assert sorted(fire["languages"]) == ["ES", "IT", "RU", "ZH"]  # DE was discarded
    assert not {d["id"] for d in kept} & {EXCLUDED, *INCOMPLETE}

    both = export_dataset(curated, tmp_path, ExportOptions(include_incomplete=True, keep_partially_discarded=True))
    lines = {d["id"]: d for d in read_dataset(both.files[DATASET_FILE])}
    assert EXCLUDED not in lines and len(lines) == 17
    assert lines["book-table"]["languages"]["ES"]["status"] == "in_progress"
    assert "apartar" in [c["text"] for c in lines["book-table"]["languages"]["ES"]["good"]]
    assert lines["match-pipe"]["languages"]["RU"]["status"] == "pending"
    assert "status" not in lines["match-pipe"]["languages"]["IT"]  # done languages look as in a default export
    assert both.manifest["counts"]["left_out"] == {"excluded": 1, "discarded": 0, "incomplete": 0}
    schema = validator()
    assert all(schema.is_valid(line) for line in lines.values())


def test_stats_json_agrees_with_the_statistics_over_the_stored_states(curated: Project, tmp_path: Path) -> None:
    """stats.json (computed from raw rows) equals Table 2 computed from ItemLanguage dataclasses, over SPEC §6's
    scope: every done item-language of the items not excluded, including items the default export leaves out."""
    result = export_dataset(curated, tmp_path)
    stats = json.loads(result.files[STATS_FILE].read_text(encoding="utf-8"))
    with curated.db.read() as conn:
        items = curated.repo.list_items(conn)
        synset_of = {item.id: item.synset for item in items}
        included = {item.id for item in items if not item.excluded}
        states = [s for s in curated.repo.iter_item_languages(conn) if s.item_id in included]
    assert EXCLUDED not in included and len(included) == 17
    expected = refinement_table(records_from_states(states, synset_of), LANGS).to_json()
    assert stats["refinement"] == json.loads(json.dumps(expected))
    it = stats["refinement"]["languages"]["IT"]
    # 17: IT is done for every included item, also fire-coach (discarded in DE) and book-table / match-pipe
    # (unfinished in ES / RU), which the default export leaves out.
    assert it["item_languages"] == 17
    assert it["removed"] == 1 and it["added"] == 2  # bicchierino; cicchetto and prendere * permesso
    # run-bakery / run-relief and fire-late / fire-coach: untouched in IT, identical.
    assert it["pairs"] == 2 and it["identical_pairs"] == 2
    de = stats["refinement"]["languages"]["DE"]
    assert de["item_languages"] == 16  # fire-coach is discarded in DE: not counted there
    assert de["added"] == 1 and de["removed"] == 0  # feuern (fire-late); Ursprung → ursprung is case only
    es, ru = stats["refinement"]["languages"]["ES"], stats["refinement"]["languages"]["RU"]
    assert es["item_languages"] == ru["item_languages"] == 16  # book-table ES, match-pipe RU not done
    assert stats["counts"] == result.manifest["counts"]["table1"]


def test_the_snapshot_and_the_selection_hold_one_typed_row_per_item_and_item_language(curated: Project) -> None:
    """An export keeps the whole project in memory for its run: one NamedTuple per item and item-language (never a
    dataclass holding enum members, a dict or a list per row), read by name; done rows are made as they are read."""
    snapshot = load_project_data(curated)
    selection = select(snapshot, ExportOptions(include_incomplete=True))
    states = [state for group in snapshot.states.values() for state in group]
    assert snapshot.items and all(type(item) is ItemRow for item in snapshot.items)
    assert states and all(type(state) is CandidateSetsRow for state in states)
    assert all(type(group) is tuple for group in snapshot.states.values())
    assert selection.items and all(type(exported) is ExportedItem for exported in selection.items)
    assert selection.discarded and all(type(d) is DiscardedItemLanguage for d in selection.discarded)
    done = list(selection.done())
    assert done and all(type(row) is DoneRow for row in done)
    exported = selection.items[0]
    assert exported.item.id == exported.states[0].item_id and exported.states[0].lang in selection.languages
    assert done[0].synset == next(item.synset for item in snapshot.items if item.id == done[0].item_id)


def test_an_interrupted_export_leaves_nothing_that_looks_complete(curated: Project, tmp_path: Path) -> None:
    root = tmp_path / "exports"
    earlier = export_dataset(curated, root)
    seen_during_write: list[tuple[str, bool]] = []

    def crash(done: int, total: int, message: str) -> None:
        seen_during_write[:] = [
            (name, (root / name / MANIFEST_FILE).exists()) for name in os.listdir(root) if name != earlier.path.name
        ]
        if done == 3:
            raise RuntimeError("disk unplugged")

    with pytest.raises(RuntimeError, match="disk unplugged"):
        export_dataset(curated, root, progress=crash)
    # While it was writing, the new export existed only as a hidden '.…partial-…' folder without a manifest,
    # so even a hard crash at that moment leaves nothing that looks like a finished export.
    assert len(seen_during_write) == 1
    name, has_manifest = seen_during_write[0]
    assert name.startswith(".dataset-") and ".partial-" in name and not has_manifest
    # Afterwards: only the earlier, complete export; the partial folder is gone.
    assert sorted(os.listdir(root)) == [earlier.path.name]
    assert [p for p in root.rglob(MANIFEST_FILE)] == [earlier.path / MANIFEST_FILE]


def test_statistics_of_the_hand_worked_example_through_the_database(project: Project, write_jsonl, lead) -> None:
    """The example of tests/test_refinement_stats.py, stored for real (G0 as pre-population stores it, Gf made
    through the curation service): collect() must give the same hand-worked figures."""
    project.save_settings(ProjectSettings(name="hand", languages=("DE", "ES", "IT")))
    synsets = {"A": "S1", "B": "S1", "C": "S1", "D": "S2", "E": "S2", "F": "S3", "G": "S1", "H": "S4"}
    synsets = {item: f"bn:0000000{name[1]}n" for item, name in synsets.items()}  # real synset ids (S1 = bn:00000001n)
    import_items(
        project,
        write_jsonl(
            "items.jsonl",
            [
                {
                    "id": i,
                    "sentence": f"He poured a shot {i}.",
                    "target": "shot",
                    "lemma": "shot",
                    "pos": "NOUN",
                    "synset": s,
                }
                for i, s in synsets.items()
            ],
        ),
    )
    plan = {  # (item, lang): (G0, Gf, final status)
        ("A", "IT"): (["goccio", "bicchierino"], ["Goccio", "cicchetto"], Status.DONE),
        ("B", "IT"): ([], ["goccio", "cicchetto"], Status.DONE),
        ("C", "IT"): (["goccio", "bere"], ["goccio", "[bere]_VERB"], Status.DONE),
        ("D", "IT"): (["fonte", "sorgente"], ["fonte", "sorgente"], Status.DONE),
        ("E", "IT"): (["fonte", "sorgente"], ["Fonte", "sorgente"], Status.DONE),
        ("F", "IT"): (["x"], ["y", "z"], Status.IN_PROGRESS),
        ("G", "IT"): (["goccio"], ["sparo"], Status.DISCARDED),
        ("A", "DE"): (["Schuss"], ["Schuss", "Schlückchen"], Status.DONE),
        ("H", "ES"): (["trago"], ["trago"], Status.PENDING),
    }
    with project.db.write() as conn:  # G0 stored the way pre-population stores it
        for (item, lang), (g0, _gf, _status) in plan.items():
            current = project.repo.get_item_language(conn, item, lang)
            assert current is not None
            initial = tuple(CandidateEntry(t, None, Origin.LEXICON, (synsets[item],)) for t in g0)
            new = ItemLanguage(item, lang, good=initial, initial_good=initial, prepopulated=True)
            project.repo.save_item_language(conn, new, current.version, "system:prepopulate", "prepopulate")
    service = CurationService(project, lead)
    for (item, lang), (_g0, gf, status) in plan.items():
        version = service.view(item, lang).state.version
        if status is Status.PENDING:
            continue
        version = service.replace_candidates(item, lang, gf, [], version).version
        if status is Status.DONE:
            service.mark_done(item, lang, version)
        elif status is Status.DISCARDED:
            service.discard(item, lang, "idiom", "", version)

    # Items A-H are unfinished in some language (A in ES, the others in DE and ES), so a default export holds
    # none of them; the statistics still cover every done item-language (SPEC §6), whatever the options.
    assert collect(project).items == []
    table = collect(project).refinement()
    for options in (ExportOptions(include_incomplete=True), ExportOptions(keep_partially_discarded=True)):
        assert collect(project, options).refinement() == table
    it, de, es = table.row("IT"), table.row("DE"), table.row("ES")
    assert (it.added_pct, it.removed_pct, it.shared_pct) == pytest.approx((40.0, 25.0, 50.0))
    assert it.mean_jaccard == pytest.approx(2 / 3)
    assert (de.added_pct, de.removed_pct, de.shared_pct) == (pytest.approx(50.0), 0.0, None)
    assert es.item_languages == 0 and es.added_pct is None
    assert table.mean == pytest.approx(
        {"added_pct": 45.0, "removed_pct": 12.5, "shared_pct": 50.0, "mean_jaccard": 2 / 3}
    )


def test_export_and_stats_commands(
    curated: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(curated.data_dir)
    monkeypatch.chdir(tmp_path)
    assert main(["--data", data, "export"]) == 0  # default root: DATA/exports, beside the project (issue 24)
    out = capsys.readouterr().out
    assert not (tmp_path / "exports").exists()  # not the folder the command ran from
    folders = list((curated.data_dir / "exports").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("dataset-")
    assert f"to {folders[0].resolve()}" in out  # printed in full
    assert "Exported 14 item(s), 70 item-language(s)" in out and "1 excluded, 1 discarded, 2 incomplete" in out

    assert main(["--data", data, "export", "--out", "elsewhere", "--include-incomplete"]) == 0
    assert json.loads(next((tmp_path / "elsewhere").glob("*/manifest.json")).read_text())["counts"]["items"] == 16
    capsys.readouterr()

    assert main(["stats", "--data", data]) == 0
    table = capsys.readouterr().out
    assert "% added" in table and "Mean" in table and "Dataset counts" in table
    it_row = next(line for line in table.splitlines() if line.startswith("IT "))
    assert it_row.split()[:2] == ["IT", "17"]  # every done IT item-language of the included items (SPEC §6)

    assert main(["stats", "--data", data, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    exported = json.loads(next(folders[0].glob(STATS_FILE)).read_text(encoding="utf-8"))
    assert printed == exported


def test_an_empty_project_exports_an_empty_dataset_with_na_statistics(project: Project, tmp_path: Path) -> None:
    result = export_dataset(project, tmp_path)
    assert result.files[DATASET_FILE].read_bytes() == b""
    stats = json.loads(result.files[STATS_FILE].read_text(encoding="utf-8"))
    assert stats["refinement"]["mean"] == {
        "added_pct": None,
        "removed_pct": None,
        "shared_pct": None,
        "mean_jaccard": None,
    }


def test_the_evaluation_reads_the_exported_dataset(curated: Project, tmp_path: Path) -> None:
    """The export is the evaluation's input (SPEC §8): its parser accepts every line and sees every candidate."""
    from annotator.evaluation.inputs import load_dataset

    result = export_dataset(curated, tmp_path, ExportOptions(keep_partially_discarded=True))
    dataset = load_dataset(result.files[DATASET_FILE])
    assert len(dataset.items) == 15
    lines = {d["id"]: d for d in read_dataset(result.files[DATASET_FILE])}
    specs = dataset.items["shot-whiskey"].languages["IT"]
    assert len(specs) == len(lines["shot-whiskey"]["languages"]["IT"]["good"]) + len(
        lines["shot-whiskey"]["languages"]["IT"]["bad"]
    )
    assert "DE" not in dataset.items[DISCARDED].languages


def test_an_unreadable_wordnet_is_named_in_the_manifest_and_the_export_goes_on(
    project: Project, tmp_path: Path
) -> None:
    """The manifest's lexicon line is a record, not a gate: a damaged ``wn.db`` is written down as such."""
    project.save_settings(ProjectSettings(name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet")))
    project.wordnet_folder.mkdir(parents=True, exist_ok=True)
    (project.wordnet_folder / "wn.db").write_bytes(b"not a database, " * 16)
    result = export_dataset(project, tmp_path / "out")
    assert result.manifest["lexicon"]["provider"] == "wordnet"
    assert result.manifest["lexicon"]["error"] == "wordnet not readable: file is not a database"
    assert json.loads(result.files[MANIFEST_FILE].read_text(encoding="utf-8")) == result.manifest


@pytest.mark.parametrize("kind", ["existing file", "under a file", "under /proc"])
def test_export_to_a_folder_that_cannot_be_made_is_a_user_error(
    curated: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    file = tmp_path / "taken"
    file.write_text("not a folder", encoding="utf-8")
    out = {"existing file": file, "under a file": file / "exports", "under /proc": Path("/proc/nope")}[kind]
    assert main(["--data", str(curated.data_dir), "export", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"Cannot write to {out}" in err and "Traceback" not in err
    assert file.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize("umask", [0o022, 0o002], ids=["umask-022", "umask-002"])
def test_an_export_is_readable_by_its_owner_only(curated: Project, tmp_path: Path, umask: int) -> None:
    """Issue 14: the export folder, every file in it and the output folder it made are 0700/0600 whatever the umask."""
    old = os.umask(umask)
    try:
        result = export_dataset(curated, tmp_path / "exports")
    finally:
        os.umask(old)
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "exports").stat().st_mode) == 0o700
    assert {stat.S_IMODE(path.stat().st_mode) for path in result.path.iterdir()} == {0o600}
    assert {path.name for path in result.path.iterdir()} >= set(result.files)


def test_export_with_nothing_to_export_says_so_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project where no item is done in every language: the command refuses (exit 2) unless --allow-empty."""
    data = tmp_path / "data"
    assert main(["init", "--data", str(data), "--languages", "IT"]) == 0
    capsys.readouterr()
    assert main(["--data", str(data), "export"]) == 2
    err = capsys.readouterr().err
    assert "Nothing to export" in err and "--allow-empty" in err
    assert not (data / "exports").exists() or not any((data / "exports").iterdir())

    assert main(["--data", str(data), "export", "--allow-empty"]) == 0
    (folder,) = (data / "exports").iterdir()
    assert (folder / "dataset.jsonl").read_text(encoding="utf-8") == ""


def test_a_bad_option_shows_the_subcommands_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["export", "--lang", "IT"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: annotator export ") and "unrecognized arguments: --lang IT" in err
    with pytest.raises(SystemExit):
        main(["sheet", "export", "--bogus"])
    assert capsys.readouterr().err.startswith("usage: annotator sheet export ")
