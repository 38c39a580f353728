"""``init --snapshot`` keeps the snapshot it checked in the data folder; ``prepopulate`` loads it from there while
the file is unchanged, and reads (and refuses) the file again once it changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from program_run import printed, run_program

from annotator.cli import main
from annotator.lexicon.snapshot_cache import CACHE_FILE
from annotator.project import Project, builtin_path


def _items(tmp_path: Path) -> Path:
    rows = builtin_path("demo/items.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_prepopulate_uses_the_copy_init_kept_and_rereads_a_changed_file(tmp_path: Path, capsys) -> None:
    snapshot = tmp_path / "lexicon.json"
    snapshot.write_bytes(builtin_path("demo/snapshot.json").read_bytes())
    data = str(tmp_path / "p")
    assert main(["init", "--data", data, "--snapshot", str(snapshot)]) == 0
    copy = tmp_path / "p" / CACHE_FILE
    assert copy.is_file()
    kept = copy.read_bytes()
    assert main(["import", str(_items(tmp_path)), "--data", data]) == 0
    assert main(["prepopulate", "--data", data]) == 0
    assert copy.read_bytes() == kept  # loaded, not rewritten
    with Project.open(data).db.read() as conn:
        states = list(Project.open(data).repo.iter_item_languages(conn))
    assert states and all(s.prepopulated for s in states)
    assert any(s.initial_good for s in states)

    broken = json.loads(snapshot.read_text(encoding="utf-8"))
    broken["lemmas"][0]["synsets"].append("bn:09999999n")  # valid records, a dangling reference
    snapshot.write_text(json.dumps(broken), encoding="utf-8")
    capsys.readouterr()
    assert main(["prepopulate", "--data", data, "--redo"]) == 2
    err = capsys.readouterr().err
    assert "lexicon.json" in err and "bn:09999999n" in err


def test_the_command_line_reads_the_snapshot_in_a_second_process_with_the_same_copy_and_refusals(
    tmp_path: Path, capsys
) -> None:
    """``init`` reads the snapshot in a second process while it loads the database layer: the copy it keeps is the
    one an init in one process keeps, and a refused snapshot is refused in the same words, nothing created."""
    assert len(os.sched_getaffinity(0)) >= 2, "this test needs two usable CPUs"
    snapshot = tmp_path / "lexicon.json"
    snapshot.write_bytes(builtin_path("demo/snapshot.json").read_bytes())
    done = run_program("init", "--data", str(tmp_path / "two"), "--snapshot", str(snapshot))
    assert done.returncode == 0, done.stderr
    assert printed(done).forked == 1
    assert main(["init", "--data", str(tmp_path / "one"), "--snapshot", str(snapshot)]) == 0  # in this process
    kept = (tmp_path / "two" / CACHE_FILE).read_bytes()
    assert kept == (tmp_path / "one" / CACHE_FILE).read_bytes()

    broken = json.loads(snapshot.read_text(encoding="utf-8"))
    broken["lemmas"][0]["synsets"].append("bn:09999999n")
    snapshot.write_text(json.dumps(broken), encoding="utf-8")
    refused = run_program("init", "--data", str(tmp_path / "three"), "--snapshot", str(snapshot))
    capsys.readouterr()
    assert main(["init", "--data", str(tmp_path / "four"), "--snapshot", str(snapshot)]) == 2
    assert refused.returncode == 2 and printed(refused).forked == 1
    assert refused.stderr == capsys.readouterr().err and "bn:09999999n" in refused.stderr
    assert not (tmp_path / "three").exists() and not (tmp_path / "four").exists()
