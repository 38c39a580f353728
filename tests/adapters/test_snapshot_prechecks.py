"""The byte-level checks run on a snapshot before it is parsed, against what the parsed text says."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from annotator.data_import.limits import InputLimitError, InputLimits, json_too_deep
from annotator.lexicon.snapshot_bytes import check_string_runs


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _random_value(rng: random.Random, depth: int) -> Any:
    """Nested arrays and objects whose strings are full of brackets, quotes and backslashes."""
    if depth == 0 or rng.random() < 0.25:
        return "".join(rng.choice('[]{}"\\ab\n\u00e9') for _ in range(rng.randrange(6)))
    children = [_random_value(rng, depth - 1) for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.5:
        return children
    return {"".join(rng.choice('[{"\\k') for _ in range(3)) + str(i): child for i, child in enumerate(children)}


def test_nesting_depth_agrees_with_the_parsed_value_whatever_the_strings_hold() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(600):
        text = json.dumps(_random_value(rng, rng.randrange(1, 9)), ensure_ascii=rng.random() < 0.5)
        depth = _depth(json.loads(text))
        for limit in (depth - 1, depth):
            if limit >= 1 and text.count("[") + text.count("{") > limit:
                checked += 1
                assert json_too_deep(text, limit) == (depth > limit), (text, limit)
    assert checked > 500  # most cases went past the quick count


@pytest.mark.parametrize("seed", range(6))
def test_a_run_without_a_quote_is_refused_exactly_when_it_is_longer_than_the_limit(tmp_path: Path, seed: int) -> None:
    """The scan clears a file window by window and scans it exactly only when a window has no quote: the verdict is
    the exact one either way, wherever the longest run starts."""
    limits = InputLimits(max_cell_chars=10)
    most = 4 * limits.max_cell_chars + 1_024
    rng = random.Random(seed)
    for case in range(40):
        gaps = [rng.randrange(0, most // 3) for _ in range(rng.randrange(3, 30))]
        if case % 2:
            gaps[rng.randrange(len(gaps))] = most + rng.choice((-1, 0, 1, 2, most))  # around the limit
        data = b'"'.join(b"a" * gap for gap in gaps)
        path = tmp_path / f"s{case}.json"
        path.write_bytes(data)
        longest = max(map(len, data.split(b'"')))
        if longest > most:
            with pytest.raises(InputLimitError) as caught:
                check_string_runs(path, limits)
            assert caught.value.rule == "cell_too_long"
        else:
            check_string_runs(path, limits)
