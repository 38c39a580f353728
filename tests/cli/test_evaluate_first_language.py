"""``annotator evaluate`` reads the language of the translations' first line before the inputs, to start reading
that language's dictionary beside its own start-up: a hint, so anything odd there is no language, never an error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from annotator.commands.evaluate import _first_language
from annotator.data_import.limits import InputLimits


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps({"id": "a", "lang": "DE", "system": "s", "translation": "t"}) + "\n{}\n", ["DE"]),
        ("id\tlang\tsystem\ttranslation\na\tRU\ts\tt\n", ["RU"]),
        ("\ufeff" + json.dumps({"lang": "IT"}) + "\n", ["IT"]),  # a byte-order mark first
        ("id\tlang\tsystem\ttranslation\r\na\t ru-RU \ts\tt\r\n", ["ru-RU"]),
        ("id\tsystem\ttranslation\na\ts\tt\n", []),  # a TSV without the column
        ("id\tlang\na\n", []),  # a row shorter than its header
        (json.dumps({"id": "a", "lang": 7}) + "\n", []),
        (json.dumps({"id": "a"}) + "\n", []),
        (json.dumps(["DE"]) + "\n", []),
        ("not json at all\n", []),
        ("", []),
        (json.dumps({"lang": "  "}) + "\n", []),
    ],
    ids=[
        "jsonl",
        "tsv",
        "bom",
        "tsv-crlf",
        "tsv-no-lang",
        "tsv-short-row",
        "lang-not-text",
        "no-lang",
        "not-an-object",
        "not-json",
        "empty",
        "blank-lang",
    ],
)
def test_the_first_line_s_language(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = tmp_path / "translations.jsonl"
    path.write_text(text, encoding="utf-8")
    assert _first_language(str(path)) == expected


def test_a_first_line_longer_than_the_readers_accept_is_read_only_in_part(tmp_path: Path) -> None:
    path = tmp_path / "translations.jsonl"
    longest = InputLimits().max_line_chars
    path.write_text(json.dumps({"lang": "DE", "translation": "x" * longest}) + "\n", encoding="utf-8")
    assert _first_language(str(path)) == []  # a piece of a line is no JSON: no hint


def test_an_unreadable_file_gives_no_language(tmp_path: Path) -> None:
    assert _first_language(str(tmp_path / "missing.jsonl")) == []
    assert _first_language(str(tmp_path)) == []  # a folder
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00{\x80")
    assert _first_language(str(binary)) == []


def test_a_pipe_is_not_read_ahead(tmp_path: Path) -> None:
    """A translations file given as a pipe (``<(…)``, a FIFO) is read once, by the run: no line is taken for a hint."""
    fifo = tmp_path / "translations.jsonl"
    os.mkfifo(fifo)
    line = json.dumps({"id": "a", "lang": "DE", "system": "s", "translation": "t"}) + "\n"
    both_ends = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer and a reader: opening it cannot block
    try:
        os.write(both_ends, line.encode())
        assert _first_language(str(fifo)) == []
        assert os.read(both_ends, 4096).decode() == line  # still all there for the run
    finally:
        os.close(both_ends)
