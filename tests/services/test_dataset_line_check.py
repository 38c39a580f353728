"""The compiled dataset-line check (fastjsonschema) gives the verdicts of the full JSON Schema (jsonschema, the
reference): on valid lines and on many lines broken one field at a time. The evaluation trusts the compiled check's
"valid" and asks the reference only about the lines it refuses."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from fastjsonschema import JsonSchemaException

from annotator.evaluation.inputs import EvaluationInputError, Problem, line_checker, parse_dataset
from annotator.evaluation.inputs.line_check import _line_validator, _schema_problems


def candidate(text: str, pos: str | None = None, origin: str = "translator", synsets: list[str] | None = None):
    return {"text": text, "pos": pos, "origin": origin, "synsets": synsets or []}


def valid_records() -> list[dict[str, Any]]:
    base = {
        "id": "it-1",
        "sentence": "He fired two shots.",
        "target": {"text": "shots", "start": 13, "end": 18, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:00071314n",
        "gloss": "the act of firing",
        "source": "test",
        "polysemy_degree": 3,
        "sense_rank": 1,
        "senses": [{"synset": "bn:00071314n", "rank": 1}, {"synset": "bn:00071315n", "rank": 2}],
        "languages": {
            "IT": {
                "good": [candidate("sparo", synsets=["bn:00071314n"]), candidate("[sparare]_VERB", "VERB")],
                "bad": [candidate("goccio", origin="lexicon", synsets=["bn:1n", "bn:2n"]), candidate("prendersi * lo")],
            },
            "DE": {"good": [], "bad": []},
        },
    }
    optional = copy.deepcopy(base)
    optional["domain"] = "news"
    optional["polysemy_degree"] = None
    optional["sense_rank"] = None
    optional["languages"]["IT"]["status"] = "in_progress"
    optional["languages"]["IT"]["annotators"] = [
        {"id": "A1", "status": "done", "good": [candidate("sparo")], "bad": []},
        {"id": "A2", "status": "discuss", "good": [], "bad": [candidate("colpo")]},
    ]
    minimal = {**copy.deepcopy(base), "senses": [], "languages": {}}
    return [base, optional, minimal]


#: Values of other types and edge values put in place of each field in turn.
REPLACEMENTS: list[Any] = [
    None, True, 0, -1, 1, 1.0, 2.5, "", " ", "x", "a b", "bn:1n\n", "[x]_VERB", "[x", "NOUN", "PROPN",
    [], ["x"], [1], {}, {"x": 1},
]  # fmt: skip


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, (*prefix, index))


def set_at(record: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(record)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


def delete_at(record: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(record)
    target = out
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return out


def broken_records() -> Iterator[Any]:
    for record in valid_records():
        for path in paths(record):
            if not path:
                continue
            for value in REPLACEMENTS:
                yield set_at(record, path, value)
            yield delete_at(record, path)
            parent = record
            for part in path[:-1]:
                parent = parent[part]
            if isinstance(parent, dict):
                yield set_at(record, (*path[:-1], "unexpected"), 1)  # an extra field beside it
    base = valid_records()[0]
    yield set_at(base, ("languages", "it"), {"good": [], "bad": []})  # a lower-case language code
    yield set_at(base, ("languages", "IT", "good", 0, "synsets"), ["bn:1n", "bn:1n"])  # repeated synsets
    yield set_at(base, ("languages", "IT", "good", 1, "pos"), None)  # a tagged text without its tag
    yield set_at(base, ("languages", "IT", "annotators"), [{"id": "A1", "status": "done", "good": [], "bad": []}])
    yield from ([], "text", 1, None)


def full_verdict(record: Any) -> bool:
    return bool(_line_validator().is_valid(record))


def compiled_verdict(record: Any) -> bool:
    try:
        line_checker()(record)
    except JsonSchemaException:
        return False
    return True


def test_valid_lines_pass_both_checks() -> None:
    for record in valid_records():
        assert full_verdict(record) and compiled_verdict(record), record


def holds_a_trailing_newline(value: Any) -> bool:
    if isinstance(value, dict):
        return any(holds_a_trailing_newline(child) for child in value.values())
    if isinstance(value, list):
        return any(holds_a_trailing_newline(child) for child in value)
    return isinstance(value, str) and value.endswith("\n")


def test_the_compiled_check_agrees_with_the_full_schema_on_broken_lines() -> None:
    records = list(broken_records())
    assert len(records) > 1000
    verdicts = [(full_verdict(record), compiled_verdict(record)) for record in records]
    invalid = sum(not full for full, _ in verdicts)
    assert invalid > 800  # most of them really are broken: the agreement is not only on valid lines
    # never more lenient: a line the compiled check passes is one the full schema passes
    assert [r for r, (full, fast) in zip(records, verdicts, strict=True) if fast and not full] == []
    # the one difference: a pattern's ``$`` also matches before a final newline in jsonschema (``re.search``), not
    # in fastjsonschema (``\Z``); such a line goes on to the full schema, whose verdict stands
    stricter = [r for r, (full, fast) in zip(records, verdicts, strict=True) if full and not fast]
    assert stricter and all(holds_a_trailing_newline(r) for r in stricter)
    # and so the evaluation's check (compiled, then the full schema on refusal) gives the full schema's verdict
    for record, (full, _) in zip(records, verdicts, strict=True):
        problems: list[Problem] = []
        assert _schema_problems(record, "dataset.jsonl", 1, problems) is (not full)
        assert bool(problems) is (not full)


@pytest.mark.parametrize("record", itertools.islice((r for r in broken_records() if not full_verdict(r)), 0, None, 97))
def test_a_refused_line_still_gets_the_full_schema_s_message(record: Any) -> None:
    import json

    with pytest.raises(EvaluationInputError) as refused:
        parse_dataset([json.dumps(record)], "dataset.jsonl")
    assert "dataset.jsonl" in str(refused.value) and "line 1" in str(refused.value)


def test_the_checked_schema_is_the_file_the_exporter_ships() -> None:
    import json

    from annotator.data_export.dataset import schema_path
    from annotator.evaluation.inputs.line_check import _line_schema

    assert _line_schema() == json.loads(schema_path().read_text(encoding="utf-8"))
