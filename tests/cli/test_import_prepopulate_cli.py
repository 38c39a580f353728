"""``annotator import --prepopulate``: the import, then the same pre-population as ``annotator prepopulate``, in one
run; what it stores equals the two commands run one after the other."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from program_run import printed, run_program
from sqlalchemy import select
from store_rows import table_rows

from annotator.cli import main
from annotator.project import Project, builtin_path
from annotator.store import schema

#: Times and the ids a run draws at random differ between two runs that store the same work.
_DRAWN = re.compile(r"^[0-9a-f]{32}$|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")
#: What pre-population writes, and the items it reads.
_TABLES = ("items", "item_languages", "history", "suggestion_cache", "item_language_sources", "lexicon_records")


def _stored(data: Path) -> dict[str, list[tuple[object, ...]]]:
    project = Project.open(data)
    try:
        return table_rows(project, _TABLES, _DRAWN)
    finally:
        project.db.dispose()


def _init(data: Path, snapshot: Path) -> None:
    assert main(["init", "--data", str(data), "--name", "t", "--languages", "IT,DE", "--snapshot", str(snapshot)]) == 0


def _demo_projects(tmp_path: Path, *names: str) -> Path:
    """New projects ``tmp_path / name`` on a copy of the demo snapshot; a copy of the demo items, returned."""
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_bytes(builtin_path("demo/snapshot.json").read_bytes())
    items = tmp_path / "items.jsonl"
    items.write_bytes(builtin_path("demo/items.jsonl").read_bytes())
    for name in names:
        _init(tmp_path / name, snapshot)
    return items


def test_import_with_prepopulate_stores_what_import_then_prepopulate_store(tmp_path: Path, capsys) -> None:
    items = _demo_projects(tmp_path, "one", "two")
    one, two = tmp_path / "one", tmp_path / "two"
    capsys.readouterr()

    assert main(["import", str(items), "--data", str(one), "--prepopulate"]) == 0
    out = capsys.readouterr().out
    assert "added" in out and "item-languages pre-populated" in out and "clean run" in out
    assert main(["import", str(items), "--data", str(two)]) == 0
    assert main(["prepopulate", "--data", str(two)]) == 0

    combined, separate = _stored(one), _stored(two)
    assert combined == separate
    project = Project.open(one)
    with project.db.read() as conn:
        flags = set(conn.execute(select(schema.item_languages.c.prepopulated)).scalars())
    project.db.dispose()
    assert flags == {True} and combined["history"]


def test_import_with_prepopulate_returns_prepopulates_exit_code_and_an_import_again_does_nothing(
    tmp_path: Path, capsys
) -> None:
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_bytes(builtin_path("demo/snapshot.json").read_bytes())
    items = tmp_path / "items.jsonl"
    first = builtin_path("demo/items.jsonl").read_text(encoding="utf-8").splitlines()[0]
    unknown = first.replace('"synset": "', '"synset": "bn:09999999n", "was": "', 1)
    items.write_text(unknown + "\n", encoding="utf-8")
    data = tmp_path / "data"
    _init(data, snapshot)
    assert main(["import", str(items), "--data", str(data), "--prepopulate"]) == 4  # the synset is not in the lexicon
    out = capsys.readouterr().out
    assert "Finished with errors" in out and "run 'annotator prepopulate' again" in out


@pytest.mark.parametrize("extra", [["--format", "mucow"]])
def test_import_with_prepopulate_refuses_a_mucow_suite_and_changes_nothing(tmp_path: Path, capsys, extra) -> None:
    data = tmp_path / "data"
    assert main(["init", "--data", str(data), "--name", "t", "--languages", "DE"]) == 0
    before = _stored(data)
    capsys.readouterr()
    assert main(["import", str(tmp_path / "en-de.key.txt"), "--data", str(data), *extra, "--prepopulate"]) == 2
    assert "--prepopulate does not go with --format mucow" in capsys.readouterr().err
    assert _stored(data) == before


@pytest.mark.parametrize("chunks", [1, 3])
def test_a_lexicon_that_stops_answering_stops_the_pre_population_not_the_import(
    chunks: int, tmp_path: Path, write_jsonl, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """BabelNet's quota reached in the first chunk: the import is committed, the items done so far are pre-populated
    (as import then prepopulate leave them, with the same quota), every item after the stop left to do, the whole
    later chunks of a longer import included; a later run finishes them."""
    from fake_babelnet import DEFAULT_KEY, FakeBabelNet
    from prepopulate_data import ROWS, SNAPSHOT

    from annotator.services.importing import INSERT_CHUNK

    monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    count = len(ROWS) if chunks == 1 else (chunks - 1) * INSERT_CHUNK + 3
    rows = [dict(ROWS[n % len(ROWS)], id=f"item-{n:04d}") for n in range(count)]
    items = str(write_jsonl("items.jsonl", rows))
    one, two = tmp_path / "one", tmp_path / "two"
    with FakeBabelNet(SNAPSHOT) as server:
        for data in (one, two):
            assert main(["init", "--data", str(data), "--babelnet", "--babelnet-url", server.base_url]) == 0
        capsys.readouterr()
        server.exhaust_quota_after(9)  # enough for (shot, NOUN) only: the stop comes with the first (shot, VERB)
        assert main(["import", items, "--data", str(one), "--prepopulate"]) == 3
        out = capsys.readouterr().out
        assert f"{count} added" in out and "daily requests limit" in out and "run 'annotator prepopulate' again" in out
        server.exhaust_quota_after(9)
        assert main(["import", items, "--data", str(two)]) == 0
        assert main(["prepopulate", "--data", str(two)]) == 3
        combined = _stored(one)
        assert combined == _stored(two)
        flags = [row[9] for row in combined["item_languages"]]  # prepopulated
        assert len(flags) == 5 * count and sum(flags) == 15  # the three noun items before the verb's
        assert not any(flags[5 * INSERT_CHUNK :])  # the chunks after the stop: every item-language pending
        server.lift_quota()
        assert main(["prepopulate", "--data", str(one)]) == 0
    assert all(row[9] for row in _stored(one)["item_languages"])


def test_without_a_lexicon_the_import_is_made_and_printed_then_the_pre_population_says_why_not(
    tmp_path: Path, capsys
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_bytes(builtin_path("demo/items.jsonl").read_bytes())
    data = tmp_path / "data"
    assert main(["init", "--data", str(data), "--name", "t", "--languages", "IT,DE"]) == 0
    capsys.readouterr()
    assert main(["import", str(items), "--data", str(data), "--prepopulate"]) == 2
    captured = capsys.readouterr()
    assert "added" in captured.out and "No lexicon is set for this project yet" in captured.err
    stored = _stored(data)
    assert stored["items"] and stored["item_languages"] and not stored["history"]  # imported, nothing pre-populated


def test_the_command_line_reads_the_item_file_in_a_second_process_and_stores_and_refuses_the_same(
    tmp_path: Path, capsys
) -> None:
    """``import`` reads its item file in a second process while it opens the project, as for a project without
    items under the default limits: the same rows and words as a run in one process; a project with items gets the
    file read again with its ids, so a rule only they can break is still enforced."""
    assert len(os.sched_getaffinity(0)) >= 2, "this test needs two usable CPUs"
    items = _demo_projects(tmp_path, "aside", "here")
    aside, here = tmp_path / "aside", tmp_path / "here"
    capsys.readouterr()

    done = run_program("import", str(items), "--data", str(aside), "--prepopulate")
    assert done.returncode == 0, done.stderr
    out, forked, _frozen = printed(done)
    assert forked == 1  # the reading (18 items: one chunk, pre-populated in this process)
    assert main(["import", str(items), "--data", str(here), "--prepopulate"]) == 0
    assert out == capsys.readouterr().out and "18 added" in out
    assert _stored(aside) == _stored(here)

    # the project's own ids: an id differing from one of them by case only is refused, though the file alone is fine
    first = json.loads(items.read_text(encoding="utf-8").splitlines()[0])
    clash = tmp_path / "clash.jsonl"
    clash.write_text(json.dumps(dict(first, id=first["id"].upper(), sentence="He poured a shot.")) + "\n")
    refused = run_program("import", str(clash), "--data", str(aside))
    assert main(["import", str(clash), "--data", str(here)]) == 2
    err = capsys.readouterr().err
    assert refused.returncode == 2 and refused.stderr == err and "already in the project" in err
    assert printed(refused).forked == 1

    # a file the second process refuses: the same words as here
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(dict(first, id="new-one", pos="XX")) + "\n")
    refused = run_program("import", str(bad), "--data", str(aside), "--prepopulate")
    assert main(["import", str(bad), "--data", str(here), "--prepopulate"]) == 2
    err = capsys.readouterr().err
    assert refused.returncode == 2 and refused.stderr == err and "bad_pos" in err and "bad.jsonl" in err
    assert _stored(aside) == _stored(here)
