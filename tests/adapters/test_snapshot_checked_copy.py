"""The checked copy of a snapshot kept in a data folder: used only for the same bytes, limits and checking code;
a stale or damaged copy is ignored, the file checked again and the copy rewritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_babelnet import sample_snapshot_data

from annotator.data_import.limits import InputLimitError, InputLimits
from annotator.lexicon.base import LexiconError
from annotator.lexicon.snapshot import SnapshotLexicon
from annotator.lexicon.snapshot_cache import CACHE_FILE, read_checked_snapshot
from annotator.lexicon.snapshot_read import read_snapshot_file


def _snapshot(path: Path, gloss: str = "A small drink of liquor.") -> Path:
    data = sample_snapshot_data()
    data["synsets"][0]["glosses"]["EN"] = gloss
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_copy_answers_what_reading_the_file_answers(tmp_path: Path) -> None:
    source = _snapshot(tmp_path / "snap.json")
    folder = tmp_path / "data"
    folder.mkdir()
    first = read_checked_snapshot(source, None, folder)
    assert (folder / CACHE_FILE).is_file()
    again = read_checked_snapshot(source, None, folder)
    assert again == first == read_snapshot_file(source)
    copy = SnapshotLexicon.load(source, None, folder)
    assert copy.synset_ids("shot", "NOUN") == SnapshotLexicon.load(source).synset_ids("shot", "NOUN")
    assert copy.origin == str(source)


def test_a_changed_file_is_read_again_and_a_bad_one_refused(tmp_path: Path) -> None:
    source = _snapshot(tmp_path / "snap.json")
    folder = tmp_path / "data"
    folder.mkdir()
    read_checked_snapshot(source, None, folder)
    _snapshot(source, gloss="A changed gloss.")
    changed = read_checked_snapshot(source, None, folder)
    assert dict(changed.synsets[0][2])["EN"] == "A changed gloss."
    source.write_text("{not json", encoding="utf-8")
    with pytest.raises(LexiconError, match="not valid JSON"):
        read_checked_snapshot(source, None, folder)


def test_a_copy_checked_within_wider_limits_is_not_used_under_narrower_ones(tmp_path: Path) -> None:
    source = _snapshot(tmp_path / "snap.json", gloss="x" * 500)
    folder = tmp_path / "data"
    folder.mkdir()
    read_checked_snapshot(source, InputLimits(), folder)
    with pytest.raises((LexiconError, InputLimitError), match="max_cell_chars"):
        read_checked_snapshot(source, InputLimits(max_cell_chars=100), folder)


@pytest.mark.parametrize("damage", ["truncated", "flipped", "garbage"])
def test_a_damaged_copy_is_ignored_and_rewritten(tmp_path: Path, damage: str) -> None:
    source = _snapshot(tmp_path / "snap.json")
    folder = tmp_path / "data"
    folder.mkdir()
    expected = read_checked_snapshot(source, None, folder)
    cache = folder / CACHE_FILE
    whole = cache.read_bytes()
    if damage == "truncated":
        cache.write_bytes(whole[: len(whole) - 10])
    elif damage == "flipped":
        cache.write_bytes(whole[:-5] + bytes([whole[-5] ^ 0xFF]) + whole[-4:])
    else:
        cache.write_bytes(b"\x00" * 100)
    assert read_checked_snapshot(source, None, folder) == expected
    assert cache.read_bytes() == whole


def test_no_folder_no_copy(tmp_path: Path) -> None:
    source = _snapshot(tmp_path / "snap.json")
    missing = tmp_path / "not-there"
    assert read_checked_snapshot(source, None, missing) == read_snapshot_file(source)
    assert not missing.exists()
