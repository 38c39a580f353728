"""The one atomic writer (``annotator.atomic_files``) every part of the app writes whole files with, and the one
clock it stamps times with."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from annotator.atomic_files import PARTIAL_MARK, atomic_file, write_bytes_atomic, write_text_atomic
from annotator.clock import utc_now


def test_a_file_is_replaced_whole_and_private(tmp_path: Path) -> None:
    path = tmp_path / "out" / "file.txt"
    write_text_atomic(path, "first\n")
    write_bytes_atomic(path, b"second\n")
    assert path.read_bytes() == b"second\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["file.txt"]  # no temporary left beside it


def test_without_replace_the_first_writer_wins(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    write_text_atomic(path, "mine\n", replace=False)
    write_text_atomic(path, "theirs\n", replace=False)
    assert path.read_text() == "mine\n"
    assert [p.name for p in tmp_path.iterdir()] == ["secret"]


def test_a_failed_write_leaves_the_old_file_and_no_partial(tmp_path: Path) -> None:
    path = tmp_path / "cache.dict"
    write_bytes_atomic(path, b"old")

    with pytest.raises(OSError), atomic_file(path) as temporary:
        temporary.write_bytes(b"half")
        raise OSError(28, "No space left on device")
    assert path.read_bytes() == b"old"
    assert not [p for p in tmp_path.iterdir() if PARTIAL_MARK in p.name]


def test_the_clock_stamps_utc_in_both_forms() -> None:
    stored, stamp = utc_now(), utc_now("seconds", zulu=True)
    assert datetime.fromisoformat(stored).utcoffset() == UTC.utcoffset(None)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", stored)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)
