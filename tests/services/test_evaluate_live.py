"""Issue 22: scoring the current curation builds the items straight from the stored rows, and gives exactly the
dataset (and the results, byte for byte) of exporting ``dataset.jsonl`` with ``--include-incomplete
--keep-partially-discarded`` and evaluating that file; a row edited by hand is refused with the file's own words."""

from __future__ import annotations

import codecs
import json
import random
from pathlib import Path
from typing import Any

import pytest
from project_helpers import build_demo
from sqlalchemy import text

from annotator.data_export.dataset import DATASET_FILE, ExportOptions, export_dataset
from annotator.domain.model import Side
from annotator.evaluation.inputs import (
    EvaluationInputError,
    dataset_from_records,
    load_dataset,
    load_translations,
    parse_dataset,
)
from annotator.evaluation.run import ANALYSED_FILE, create_analyser, evaluate, run_evaluation, write_results
from annotator.project import Project, builtin_path
from annotator.services.accounts import authenticate
from annotator.services.curation import CurationService
from annotator.services.evaluate_project import build_dataset, dataset_from_project, prepare_current
from annotator.store.repository import EvaluationRow

pytestmark = pytest.mark.both_engines

BOTH = ExportOptions(include_incomplete=True, keep_partially_discarded=True)


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    """The demo project with a cross-PoS candidate, a discarded item-language and an excluded item."""
    project = Project.open(copy_project("demo", build_demo, tmp_path / "data"))
    service = CurationService(project, authenticate(project, "lead", "demo-lead-pass"))
    version = service.view("head-stream", "IT").state.version
    service.add_candidate("head-stream", "IT", Side.BAD, "[dirigere]_VERB", version)
    service.discard("shot-whiskey", "DE", "other", "test", service.view("shot-whiskey", "DE").state.version)
    with project.db.write() as conn:
        project.repo.set_excluded(conn, ["take-off-thanksgiving"], True)
    return project


def test_the_live_dataset_and_results_equal_those_of_the_exported_file(demo: Project, tmp_path: Path) -> None:
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    from_file = load_dataset(exported.path / DATASET_FILE)
    live = dataset_from_project(demo)

    assert live.items == from_file.items  # every field, candidate specs and line numbers included
    assert list(live.items) == list(from_file.items)
    assert "take-off-thanksgiving" not in live.items and "DE" not in live.items["shot-whiskey"].languages
    assert any(spec.candidate.pos == "VERB" for spec in live.items["head-stream"].languages["IT"])

    translations = builtin_path("demo/translations.jsonl")
    analyser = create_analyser("default")
    results = []
    for dataset in (live, from_file):
        scored = evaluate(dataset, load_translations(translations, dataset), analyser)
        results.append(([r.to_dict() for r in scored.results], scored.metrics, scored.skipped))
    assert results[0] == results[1]
    assert len(results[0][0]) > 100 and results[0][2]  # scored, and the discarded DE translations were skipped


def refused_like_in_the_file(demo: Project, tmp_path: Path) -> EvaluationInputError:
    """Store a candidate without a tag but written like a cross-PoS one (an edit by hand), check that the live set-up
    and the exported file name the same problems, and give the live set-up's error."""
    with demo.db.write() as conn:
        conn.exec_driver_sql(
            'UPDATE item_languages SET good = \'[{"origin":"translator","pos":null,"synsets":[],'
            "\"text\":\"[gun]_VERB\"}]' WHERE item_id = 'head-stream' AND lang = 'IT'"
        )
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    with pytest.raises(EvaluationInputError) as from_file:
        load_dataset(exported.path / DATASET_FILE)
    with pytest.raises(EvaluationInputError) as live:
        dataset_from_project(demo)
    assert [(p.line, p.rule, p.message) for p in live.value.problems] == [
        (p.line, p.rule, p.message) for p in from_file.value.problems
    ]
    return live.value


def test_a_bad_stored_candidate_is_refused_like_in_the_file(demo: Project, tmp_path: Path) -> None:
    """A candidate stored without a tag but written like a cross-PoS one: both paths name the same problems."""
    live = refused_like_in_the_file(demo, tmp_path)
    assert live.problems and live.problems[0].rule.startswith("schema_")


def test_the_live_analysed_jsonl_is_byte_identical_with_the_exported_file_s(demo: Project, tmp_path: Path) -> None:
    """The whole pipeline, as the Evaluate page's job and ``annotator evaluate`` run it, on one curation."""
    translations = builtin_path("demo/translations.jsonl")
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    run_evaluation(exported.path / DATASET_FILE, translations, out_dir=tmp_path / "from-file")
    dataset, loaded = prepare_current(demo, translations)
    write_results(evaluate(dataset, loaded, create_analyser("default")), tmp_path / "live")
    live = (tmp_path / "live" / ANALYSED_FILE).read_bytes()
    assert live == (tmp_path / "from-file" / ANALYSED_FILE).read_bytes()
    assert live.count(b"\n") > 100 and b'"result": "BAD"' in live and b'"result": "MISS"' in live


#: Edits by hand of one item-language's stored GOOD list (SQL text), each refused by the file reader.
REFUSED_LISTS = {
    "a tagged text without a tag": '[{"origin":"translator","pos":null,"synsets":[],"text":"[gun]_VERB"}]',
    "an unknown origin": '[{"origin":"human","pos":null,"synsets":[],"text":"colpo"}]',
    "an unknown tag": '[{"origin":"lexicon","pos":"X","synsets":[],"text":"colpo"}]',
    "a synset with a space": '[{"origin":"lexicon","pos":null,"synsets":["bn 1"],"text":"colpo"}]',
    "an empty text": '[{"origin":"lexicon","pos":null,"synsets":[],"text":""}]',
    "a lone surrogate": '[{"origin":"lexicon","pos":null,"synsets":[],"text":"x\\ud800y"}]',
    "a text that is a number": '[{"origin":"lexicon","pos":null,"synsets":[],"text":7}]',
    "a missing key": '[{"origin":"lexicon","synsets":[],"text":"colpo"}]',
    "a list that is an object": '{"text":"colpo"}',
    "a wildcard at the edge": '[{"origin":"translator","pos":null,"synsets":[],"text":"* colpo"}]',
    "a control character": '[{"origin":"translator","pos":null,"synsets":[],"text":"col\\u0007po"}]',
}


@pytest.mark.parametrize("edit", sorted(REFUSED_LISTS))
def test_a_hand_edited_candidate_list_is_refused_like_in_the_file(demo: Project, tmp_path: Path, edit: str) -> None:
    with demo.db.write() as conn:
        conn.execute(
            text("UPDATE item_languages SET good = :good WHERE item_id = 'head-stream' AND lang = 'IT'"),
            {"good": REFUSED_LISTS[edit]},
        )
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    with pytest.raises(EvaluationInputError) as from_file:
        load_dataset(exported.path / DATASET_FILE)
    with pytest.raises(EvaluationInputError) as live:
        dataset_from_project(demo)
    assert [(p.line, p.rule, p.message) for p in live.value.problems] == [
        (p.line, p.rule, p.message) for p in from_file.value.problems
    ]


#: Edits by hand of one item's stored columns (SQL assignments), each refused by the file reader.
REFUSED_ITEMS = {
    "an empty sentence": "sentence = ''",
    "an unknown part of speech": "pos = 'PROPN'",
    "a synset with a space": "synset = 'bn 1'",
    "a negative start": "target_start = -1",
    "a sense rank of zero": """senses = '[{"synset":"bn:00043474n","rank":0}]'""",
}


@pytest.mark.parametrize("edit", sorted(REFUSED_ITEMS))
def test_a_hand_edited_item_is_refused_like_in_the_file(demo: Project, tmp_path: Path, edit: str) -> None:
    with demo.db.write() as conn:
        conn.exec_driver_sql(f"UPDATE items SET {REFUSED_ITEMS[edit]} WHERE id = 'head-stream'")
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    with pytest.raises(EvaluationInputError) as from_file:
        load_dataset(exported.path / DATASET_FILE)
    with pytest.raises(EvaluationInputError) as live:
        dataset_from_project(demo)
    problems = [(p.line, p.rule, p.message) for p in live.value.problems]
    assert problems == [(p.line, p.rule, p.message) for p in from_file.value.problems]
    assert problems and all(line > 0 for line, _rule, _message in problems)


def test_hand_edits_the_file_reader_accepts_give_its_items(demo: Project, tmp_path: Path) -> None:
    """Values the app does not store but the file reader accepts (a doubled space, a candidate stored with its
    keys in another order, an escaped letter) are doubted, read as the file reads them, and kept."""
    with demo.db.write() as conn:
        conn.execute(
            text("UPDATE item_languages SET good = :good WHERE item_id = 'head-stream' AND lang = 'IT'"),
            {
                "good": '[{"text":"sorgente  del fiume","synsets":[],"pos":null,"origin":"translator"},'
                '{"origin":"lexicon","pos":null,"synsets":[],"text":"fo\\u006ete"}]'
            },
        )
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    live = dataset_from_project(demo)
    assert live.items == load_dataset(exported.path / DATASET_FILE).items
    assert [spec.candidate.text for spec in live.items["head-stream"].languages["IT"]][:2] == [
        "sorgente del fiume",
        "fonte",
    ]


#: Hand edits holding numbers orjson reads otherwise than the standard library (it refuses NaN and 1e999, and reads
#: an integer past 64 bits as a float): the live path doubts them and reads them as the file reader does.
NUMBER_EDITS = {
    "a sense rank past 64 bits": (
        "items",
        "senses",
        '[{"synset":"bn:00043474n","rank":1},{"synset":"bn:1x","rank":123456789012345678901234567890}]',
    ),
    "a NaN synset": ("item_languages", "good", '[{"origin":"lexicon","pos":null,"synsets":[NaN],"text":"fonte"}]'),
    "an infinite synset": (
        "item_languages",
        "good",
        '[{"origin":"lexicon","pos":null,"synsets":[1e999],"text":"fonte"}]',
    ),
}


@pytest.mark.parametrize("edit", sorted(NUMBER_EDITS))
def test_hand_edited_numbers_give_what_the_file_reader_gives(demo: Project, tmp_path: Path, edit: str) -> None:
    table, column, value = NUMBER_EDITS[edit]
    where = "id = 'head-stream'" if table == "items" else "item_id = 'head-stream' AND lang = 'IT'"
    with demo.db.write() as conn:
        conn.execute(text(f"UPDATE {table} SET {column} = :value WHERE {where}"), {"value": value})
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    try:
        from_file: Any = load_dataset(exported.path / DATASET_FILE).items
    except EvaluationInputError as error:
        from_file = [(p.line, p.rule, p.message) for p in error.problems]
    try:
        live: Any = dataset_from_project(demo).items
    except EvaluationInputError as error:
        live = [(p.line, p.rule, p.message) for p in error.problems]
    assert live == from_file


def test_the_rows_in_any_order_give_the_same_dataset(demo: Project) -> None:
    """The query has no ORDER BY: an item-language's row may come before its item's; the dataset is the same."""
    languages = tuple(sorted(demo.settings().languages))
    with demo.db.read() as conn:
        rows = list(demo.repo.evaluation_rows(conn, languages))
    assert not [row for row in rows if row[0] == "take-off-thanksgiving"]  # excluded: not read at all
    assert any(row[EvaluationRow._fields.index("lang")] is None for row in rows)
    expected = dataset_from_project(demo)
    shuffled = list(rows)
    random.Random(10).shuffle(shuffled)
    for order in (rows[::-1], shuffled):
        built = build_dataset(order, languages, "x")
        assert built.items == expected.items and list(built.items) == list(expected.items)


def test_records_get_the_file_problems() -> None:
    good = {
        "id": "x",
        "sentence": "A shot.",
        "target": {"text": "shot", "start": 2, "end": 6, "lemma": "shot", "pos": "NOUN"},
        "synset": "bn:1",
        "gloss": "",
        "source": "",
        "polysemy_degree": 2,
        "sense_rank": 1,
        "senses": [{"synset": "bn:1", "rank": 1}, {"synset": "bn:2", "rank": 2}],
        "languages": {
            "IT": {
                "good": [{"text": "sorso", "pos": None, "origin": "lexicon", "synsets": ["bn:1"]}],
                "bad": [],
                "status": "pending",
            }
        },
    }
    bad = json.loads(json.dumps(good))
    bad["languages"]["IT"]["good"][0]["origin"] = "human"
    records = [good, bad, dict(good)]
    with pytest.raises(EvaluationInputError) as live:
        dataset_from_records(records, "live")
    with pytest.raises(EvaluationInputError) as from_file:
        parse_dataset([json.dumps(r) for r in records], "live")
    assert [(p.line, p.rule, p.message) for p in live.value.problems] == [
        (p.line, p.rule, p.message) for p in from_file.value.problems
    ]
    assert {p.rule for p in live.value.problems} == {"schema_enum", "duplicate_item"}


def test_a_plain_utf8_file_is_read_whole_as_the_line_reader_reads_it(tmp_path: Path, monkeypatch) -> None:
    """``_plain_utf8_text`` gives exactly the line reader's text, blocks ending anywhere (inside a character too),
    and gives up (None) on anything the line reader might refuse or read otherwise."""
    from annotator.data_import.limits import InputLimits
    from annotator.evaluation.inputs import files as inputs

    monkeypatch.setattr(inputs, "_BLOCK_BYTES", 7)  # blocks end inside lines and inside characters
    limits = InputLimits()

    def line_reader(path: Path) -> str:
        with monkeypatch.context() as patched:
            patched.setattr(inputs, "_plain_utf8_text", lambda *_: None)
            return inputs.read_text(path, limits)

    texts_read = {
        "plain": "".join(f'{{"id": "i{n}", "translation": "città {n} — 城市 😀"}}\n' for n in range(300)),
        "no final newline": '{"a": 1}\n{"b": "ü"}',
        "empty": "",
        "crlf": '{"a": 1}\r\n\r\n{"b": 2}\r\n',
        "u2028 inside": '{"a": "x\u2028y"}\n',
    }
    for name, content in texts_read.items():
        path = tmp_path / "read.jsonl"
        path.write_bytes(content.encode("utf-8"))
        assert inputs._plain_utf8_text(path, limits) == line_reader(path) == content, name
    left = {
        "bom": codecs.BOM_UTF8 + b'{"a": 1}\n',
        "utf-16": codecs.BOM_UTF16_LE + '{"a": 1}\n'.encode("utf-16-le"),
        "bad byte": b'{"a": "\xff"}\n',
        "binary": b"\x00\x01\x02",
        "a long line": b'{"a": "' + b"x" * limits.max_line_chars + b'"}\n',
    }
    for name, content in left.items():
        path = tmp_path / "left.jsonl"
        path.write_bytes(content)
        assert inputs._plain_utf8_text(path, limits) is None, name
    rows = tmp_path / "rows.jsonl"
    rows.write_text("{}\n" * 3)
    assert inputs._plain_utf8_text(rows, InputLimits(max_rows=3)) == "{}\n" * 3
    assert inputs._plain_utf8_text(rows, InputLimits(max_rows=2)) is None


def test_the_live_items_carry_their_domain_like_the_exported_file(demo: Project, tmp_path: Path) -> None:
    """An item's optional domain reaches the live evaluation as it reaches the file's: the breakdown by domain is
    in both runs' metrics, and the Evaluate page's kept run gives it back."""
    with demo.db.write() as conn:
        conn.execute(text("UPDATE items SET domain = 'news' WHERE id IN ('head-stream', 'shot-whiskey')"))
    exported = export_dataset(demo, tmp_path / "exports", BOTH)
    from_file = load_dataset(exported.path / DATASET_FILE)
    live = dataset_from_project(demo)
    assert live.items == from_file.items
    assert live.items["head-stream"].domain == "news" and live.items["shot-flu"].domain is None

    translations = builtin_path("demo/translations.jsonl")
    analyser = create_analyser("default")
    live_result = evaluate(live, load_translations(translations, live), analyser)
    file_result = evaluate(from_file, load_translations(translations, from_file), analyser)
    live_rows = [row.to_dict() for row in live_result.by_domain]
    assert live_rows == [row.to_dict() for row in file_result.by_domain]
    assert {row["domain"] for row in live_rows} == {"news", "(no domain)"}
    assert live_result.by_domain is live_result.by_domain  # computed once per result
    assert live_result.metrics_document()["by_domain"] == live_rows
