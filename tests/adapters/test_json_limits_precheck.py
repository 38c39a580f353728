"""The C-speed pre-check that lets a whole snapshot document skip the walk over its parsed value
(``limits.may_hold_long_string``): it may say "maybe" wrongly, never "no" wrongly — a long or surrogate string in a
``.json`` snapshot is still refused by record and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.data_import.limits import InputLimits, may_hold_long_string
from annotator.lexicon.base import LexiconError
from annotator.lexicon.snapshot import SnapshotLexicon

#: Characters that stress the escapes: quotes, backslashes, controls, non-ASCII, astral.
TEXT = st.text(alphabet=st.sampled_from(['"', "\\", "x", "\n", "é", "\x00", "😀", "/", "u"]), max_size=40)
VALUES = st.recursive(
    TEXT | st.integers(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _longest(value: object) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *(max(len(k), _longest(v)) for k, v in value.items())])
    if isinstance(value, list):
        return max([0, *(_longest(v) for v in value)])
    return 0


@settings(max_examples=400, deadline=None)
@given(VALUES, st.integers(min_value=1, max_value=30), st.booleans())
def test_the_pre_check_never_misses_a_long_string(value: object, limit: int, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only)
    if _longest(value) > limit:
        assert may_hold_long_string(raw, limit)


def test_quotes_outside_strings_do_not_hide_a_run_and_short_texts_pass() -> None:
    assert not may_hold_long_string(json.dumps({"a": "b" * 10, "c": ["d" * 10]}), 40)
    assert may_hold_long_string(json.dumps({"a": '"' * 50}), 40)  # 50 escaped quotes: one 50-character string
    assert may_hold_long_string(json.dumps({"a": "\\" * 50}), 40)


def _snapshot_document(path: Path, gloss: str, lemma: str = "shot") -> Path:
    header = {"format": "annotator-lexicon-snapshot", "format_version": 1, "label": "t", "version": "1"}
    senses = [{"lemma": lemma, "lang": "EN", "source": "WN", "wordnet_sense_number": 1}]
    synset = {"id": "bn:00057755n", "pos": "NOUN", "glosses": {"EN": gloss}, "senses": senses}
    lemmas = [{"lemma": "shot", "lang": "EN", "pos": "NOUN", "synsets": ["bn:00057755n"]}]
    path.write_text(json.dumps({**header, "lemmas": lemmas, "synsets": [synset]}), encoding="utf-8")
    return path


def test_a_json_snapshot_with_a_long_gloss_of_escaped_quotes_is_refused_by_field(tmp_path: Path) -> None:
    """40,000 characters, every other one an escaped quote: below the byte scan's bound, over the cell limit."""
    path = _snapshot_document(tmp_path / "quotes.json", 'a"' * 20_000)
    with pytest.raises(LexiconError) as caught:
        SnapshotLexicon.load(path, InputLimits(max_cell_chars=32_767))
    assert "quotes.json" in str(caught.value) and "glosses.EN" in str(caught.value)
    assert "max_cell_chars" in str(caught.value)


def test_a_json_snapshot_with_a_lone_surrogate_is_refused_by_field(tmp_path: Path) -> None:
    path = _snapshot_document(tmp_path / "surrogate.json", "fine")
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            '"lemma": "shot", "lang": "EN", "source"', '"lemma": "sh\\udc00ot", "lang": "EN", "source"'
        )
    )
    with pytest.raises(LexiconError, match=r"surrogate\.json.*senses\[0\]\.lemma.*U\+DC00"):
        SnapshotLexicon.load(path)


def test_a_clean_json_snapshot_loads(tmp_path: Path) -> None:
    path = _snapshot_document(tmp_path / "fine.json", "x" * 30_000)
    assert SnapshotLexicon.load(path).synset_ids("shot", "NOUN") == ["bn:00057755n"]
