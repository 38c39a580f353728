"""``init --snapshot`` keeps the snapshot it checked in the data folder; ``prepopulate`` loads it from there while
the file is unchanged, and reads (and refuses) the file again once it changed."""

from __future__ import annotations

import json
from pathlib import Path

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
