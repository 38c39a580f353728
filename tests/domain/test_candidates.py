"""Candidate syntax (SPEC §3): every rule refused with its name and the text; format∘parse is stable."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.domain.candidates import (
    Candidate,
    CandidateError,
    key_string,
    parse_candidate,
)


@pytest.mark.parametrize(
    ("raw", "text", "pos"),
    [
        ("goccio", "goccio", None),
        ("  prendersi   un  permesso ", "prendersi un permesso", None),
        ("prendersi * permesso", "prendersi * permesso", None),
        ("[sparare]_VERB", "sparare", "VERB"),
        ("[sparare]_v", "sparare", "VERB"),
        ("[ sparare ]_verb", "sparare", "VERB"),
        ("[fare * fuoco]_n", "fare * fuoco", "NOUN"),
        ("[veloce]_a", "veloce", "ADJ"),
        ("[velocemente]_R", "velocemente", "ADV"),
        ("Quelle", "Quelle", None),
        ("请假", "请假", None),
        ("caffe\u0300", "caffè", None),  # NFC: e + combining grave -> è
    ],
)
def test_valid_candidates_are_normalised(raw: str, text: str, pos: str | None) -> None:
    candidate = parse_candidate(raw, target_pos="NOUN" if pos != "NOUN" else "VERB")
    assert (candidate.text, candidate.pos) == (text, pos)


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("tab\there", "control_character"),
        ("new\nline", "control_character"),
        ("bell\x07", "control_character"),
        ("x" * 101, "too_long"),
        ("prend*", "wildcard_token"),
        ("* permesso", "wildcard_edge"),
        ("prendersi *", "wildcard_edge"),
        ("prendersi * * permesso", "wildcard_adjacent"),
        ("[sparare", "brackets"),
        ("sparare]_VERB", "brackets"),
        ("[[sparare]]_VERB", "brackets"),
        ("[sparare]", "brackets"),
        ("[spa[ra]re]_VERB", "brackets"),
        ("[sparare]_", "pos_tag"),
        ("[sparare]_XYZ", "pos_tag"),
        ("[]_VERB", "empty"),
        ("[goccio]_NOUN", "not_cross_pos"),
        ("[goccio]_n", "not_cross_pos"),
    ],
)
def test_each_rule_is_refused_with_its_name_and_text(raw: str, rule: str) -> None:
    with pytest.raises(CandidateError) as caught:
        parse_candidate(raw, target_pos="NOUN")
    assert caught.value.rule == rule
    assert caught.value.text == raw
    assert caught.value.message


def test_unusual_tags_are_accepted_with_a_warning() -> None:
    candidate = parse_candidate("[lui]_PRON", target_pos="NOUN")
    assert candidate.pos == "PRON"
    assert candidate.warnings and "PRON" in candidate.warnings[0]
    assert parse_candidate("[sparare]_VERB", "NOUN").warnings == ()


def test_identity_is_casefolded_text_plus_tag() -> None:
    assert parse_candidate("Quelle").key == parse_candidate("quelle").key
    assert parse_candidate("Quelle").text == "Quelle"  # stored as typed
    assert parse_candidate("[sparo]_VERB", "NOUN").key != parse_candidate("sparo").key
    assert key_string("Straße", None) == key_string("STRASSE", None)


def test_format_is_canonical() -> None:
    assert parse_candidate("[sparare]_v", "NOUN").format() == "[sparare]_VERB"
    assert str(Candidate("goccio")) == "goccio"


_token = st.text(
    alphabet=st.characters(categories=("L", "M", "N", "Pd", "Po"), exclude_characters="[]*"),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_no_input_crashes_the_parser(raw: str) -> None:
    try:
        candidate = parse_candidate(raw, target_pos="NOUN")
    except CandidateError as error:
        assert error.rule and error.message
    else:
        assert candidate.text and len(candidate.format()) <= 100 + 10


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_token, st.just("*")), min_size=1, max_size=6),
    st.sampled_from([None, "VERB", "ADJ", "ADV", "v", "a", "r"]),
)
def test_format_parse_is_stable(tokens: list[str], tag: str | None) -> None:
    raw = " ".join(tokens)
    if tag:
        raw = f"[{raw}]_{tag}"
    try:
        first = parse_candidate(raw, target_pos="NOUN")
    except CandidateError:
        return
    again = parse_candidate(first.format(), target_pos="NOUN")
    assert again == first
    assert again.format() == first.format()
