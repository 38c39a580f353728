"""Contrastive test-suite export on the demo with its bundled references (ContraWSD layout)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from annotator.cli import main
from annotator.commands.project import create_demo
from annotator.data_export.contrastive import build_suite
from annotator.data_export.dataset import ExportOptions, export_dataset
from annotator.project import Project, builtin_path

SCHEMA = Path(__file__).resolve().parents[2] / "annotator" / "schema" / "contrastive.schema.json"


@pytest.fixture(scope="module")
def reference_evaluation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("contrastive")
    create_demo(str(root / "data"), quiet=True)
    export = export_dataset(Project.open(root / "data"), root / "exports", ExportOptions(include_incomplete=True))
    out = root / "evaluation"
    references = str(builtin_path("demo/references.jsonl"))
    assert main(["evaluate", str(export.path / "dataset.jsonl"), references, "--out", str(out)]) == 0
    return out


def test_every_variant_differs_from_its_reference_only_in_the_matched_span(
    reference_evaluation: Path, tmp_path: Path
) -> None:
    assert main(["contrastive", str(reference_evaluation), "--out", str(tmp_path)]) == 0
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    files = sorted(tmp_path.glob("contrastive-??.json"))
    assert [path.name for path in files] == [f"contrastive-{lang}.json" for lang in ("DE", "ES", "IT", "RU", "ZH")]
    variants = 0
    for path in files:
        entries = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(entries, schema)
        for entry in entries:
            reference, (start, end) = entry["reference"], entry["span"]
            assert reference[start:end] == entry["original translation"]
            for error in entry["errors"]:
                variant = error["contrastive"]
                tail = len(reference) - end
                assert variant[:start] == reference[:start]
                assert variant[len(variant) - tail :] == reference[end:]
                assert variant[start : len(variant) - tail] == error["replacement"] != error["replaced"]
                variants += 1
    assert variants > 100


def test_references_without_a_matched_good_candidate_are_listed(reference_evaluation: Path, tmp_path: Path) -> None:
    assert main(["contrastive", str(reference_evaluation), "--out", str(tmp_path)]) == 0
    analysed = [json.loads(line) for line in (reference_evaluation / "analysed.jsonl").read_text("utf-8").splitlines()]
    not_good = {(r["id"], r["lang"]) for r in analysed if r["result"] != "GOOD"}
    assert not_good  # the demo has references that match no GOOD candidate
    skipped = [json.loads(line) for line in (tmp_path / "contrastive-skipped.jsonl").read_text("utf-8").splitlines()]
    listed = {(s["id"], s["lang"]) for s in skipped if s["reason"].startswith("no matched GOOD candidate")}
    assert listed == not_good
    exported = {
        (entry["id"], entry["lang"])
        for path in tmp_path.glob("contrastive-??.json")
        for entry in json.loads(path.read_text(encoding="utf-8"))
    }
    assert exported | {(s["id"], s["lang"]) for s in skipped} == {(r["id"], r["lang"]) for r in analysed}


def test_wildcards_inflection_and_cross_pos_worked_by_hand() -> None:
    dataset = {
        "i1": {
            "sentence": "He poured a shot of whiskey.",
            "synset": "bn:00057755n",
            "target": {"text": "shot", "lemma": "shot", "pos": "NOUN"},
            "languages": {
                "IT": {
                    "bad": [
                        {"text": "sparo", "synsets": ["bn:00070966n"]},
                        {"text": "[sparare]_VERB", "synsets": []},
                        {"text": "colpo * pistola", "synsets": []},
                    ]
                }
            },
        }
    }
    analysed = [
        # The reference says "bicchierini" (plural): matched through the lemma "bicchierino".
        {"system": "reference", "id": "i1", "lang": "IT", "translation": "Versò due bicchierini di whisky.",
         "result": "GOOD", "omega": "bicchierino", "omega_side": "good", "span": [10, 21]},
        {"system": "other", "id": "i1", "lang": "IT", "translation": "x", "result": "GOOD", "omega": "x",
         "omega_side": "good", "span": [0, 1]},
    ]  # fmt: skip
    suite = build_suite(dataset, analysed)
    [entry] = suite.entries["IT"]
    assert [e["contrastive"] for e in entry["errors"]] == [
        "Versò due sparo di whisky.",
        "Versò due sparare di whisky.",
    ]
    assert [e["may_need_inflection"] for e in entry["errors"]] == [True, True]  # plural reference; cross-PoS
    assert [(s.candidate, s.reason) for s in suite.skipped] == [
        ("colpo * pistola", "a wildcard candidate cannot stand in a sentence as it is")
    ]


def test_an_evaluation_without_references_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dataset.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "analysed.jsonl").write_text(
        json.dumps({"system": "deepl", "id": "i1", "lang": "IT", "result": "GOOD"}) + "\n", encoding="utf-8"
    )
    before = sorted(path.name for path in tmp_path.iterdir())
    assert main(["contrastive", str(tmp_path), "--dataset", str(tmp_path / "dataset.jsonl")]) == 2
    assert "no translation of the system 'reference'" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == before
