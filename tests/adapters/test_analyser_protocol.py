"""The analyser interface names everything the evaluation calls (issue 32: ``prepare`` and ``with_stems`` were
looked up with ``getattr``, so a backend could miss one silently)."""

from __future__ import annotations

import ast
import inspect

import pytest

from annotator.analysis.base import Analyser, Analysis
from annotator.analysis.default import DefaultAnalyser
from annotator.analysis.stanza_analyser import StanzaAnalyser
from annotator.evaluation import run


@pytest.mark.parametrize("backend", [DefaultAnalyser, StanzaAnalyser])
def test_each_backend_implements_every_method_of_the_interface(backend: type) -> None:
    wanted = {name for name, value in vars(Analyser).items() if inspect.isfunction(value) and not name.startswith("_")}
    assert wanted == {"prepare", "analyse", "with_stems"}
    assert wanted <= set(vars(backend))  # its own, not the protocol's empty body


def test_the_evaluation_calls_the_interface_and_looks_nothing_up() -> None:
    calls = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(run)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"getattr", "hasattr"}
    ]
    assert not [ast.unparse(call) for call in calls if "analyser" in ast.unparse(call)]


def test_a_backend_without_stems_keeps_its_analyses() -> None:
    analysis = Analysis("x")
    assert StanzaAnalyser.with_stems(object.__new__(StanzaAnalyser), [analysis], "IT") == [analysis]


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("lemmas", ["a"], "words, lemmas, upos and word_token"),
        ("token_spans", [], "tokens and token_spans"),
        ("stems", ["a"], "stems"),
        ("settled", [True], "settled"),
    ],
)
def test_an_analysis_read_from_a_file_must_have_one_entry_per_word(field: str, value: list, named: str) -> None:
    good = Analysis(
        "il cane", ("il", "cane"), ((0, 2), (3, 7)), ("il", "cane"), ("il", "cane"), (None, None), (0, 1)
    ).to_dict()
    assert Analysis.from_dict("il cane", good).words == ("il", "cane")
    with pytest.raises(ValueError, match=named):
        Analysis.from_dict("il cane", {**good, field: value})
