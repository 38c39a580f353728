"""Item import (issue 2, acceptance 4): all-or-nothing, every bad row reported, re-import is a no-op."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from openpyxl import Workbook
from project_helpers import SAMPLE_ITEMS, dump

from annotator.data_import.items import ItemImportError, derived_id, parse_item_file
from annotator.data_import.table_rows import FileFormatError
from annotator.domain.model import Side
from annotator.errors import UserError
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.importing import INSERT_CHUNK, CuratedWorkError, import_items
from annotator.store.database import Database

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL


def test_jsonl_import_creates_items_and_item_languages(project: Project, write_jsonl) -> None:
    report = import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    assert (report.added, report.unchanged) == (2, 0)
    with project.db.read() as conn:
        item = project.repo.get_item(conn, "shot-whiskey")
        states = project.repo.item_languages_of(conn, "shot-whiskey")
    assert item is not None and item.target.start == 12 and item.target.end == 16
    assert sorted(states) == ["DE", "ES", "IT", "RU", "ZH"]
    assert all(s.status.value == "pending" for s in states.values())


def test_reimporting_the_same_file_is_a_no_op(project: Project, write_jsonl) -> None:
    path = write_jsonl("items.jsonl", SAMPLE_ITEMS)
    import_items(project, path)
    before = dump(project)
    report = import_items(project, path)
    assert (report.added, report.unchanged, report.replaced) == (0, 2, 0)
    assert dump(project) == before


def test_csv_tsv_and_xlsx_with_offsets_and_letters(project: Project, tmp_path: Path) -> None:
    header = ["sentence", "start", "end", "lemma", "pos", "synset", "source"]
    row = ["If you take off for Thanksgiving you must work.", "7", "15", "take off", "v", "bn:00094769v", "fig1"]
    with (tmp_path / "a.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, row])
    other = ["You can take off early today.", "8", "16", "take off", "V", "bn:00094769v", "other"]
    (tmp_path / "b.tsv").write_text("\t".join(header) + "\n" + "\t".join(other) + "\n")
    workbook = Workbook()
    workbook.active.append(["id", "sentence", "word", "lemma", "pos", "synset"])
    workbook.active.append(["x1", "The bank of the river flooded.", "bank", "bank", "NOUN", "bn:00008364n"])
    workbook.save(tmp_path / "c.xlsx")
    assert import_items(project, tmp_path / "a.csv").added == 1
    assert import_items(project, tmp_path / "b.tsv").added == 1
    assert import_items(project, tmp_path / "c.xlsx").added == 1
    with project.db.read() as conn:
        items = {i.id: i for i in project.repo.list_items(conn)}
    derived = derived_id(row[0], 7, 15, "take off", "VERB", "bn:00094769v")
    assert items[derived].target.text == "take off" and items[derived].target.pos == "VERB"
    assert items["x1"].target.start == 4


def test_every_bad_row_is_reported_and_nothing_changes(project: Project, write_jsonl) -> None:
    import_items(project, write_jsonl("good.jsonl", SAMPLE_ITEMS))
    before = dump(project)
    bad_rows = [
        {
            "id": "ok",
            "sentence": "A fine sentence with bank.",
            "target": "bank",
            "lemma": "bank",
            "pos": "NOUN",
            "synset": "bn:00008364n",
        },
        {"id": "no-lemma", "sentence": "A bank.", "target": "bank", "pos": "NOUN", "synset": "bn:00008364n"},
        {
            "id": "bad-pos",
            "sentence": "A bank.",
            "target": "bank",
            "lemma": "bank",
            "pos": "NOUNISH",
            "synset": "bn:00008364n",
        },
        {
            "id": "missing-target",
            "sentence": "A river.",
            "target": "bank",
            "lemma": "bank",
            "pos": "NOUN",
            "synset": "bn:00008364n",
        },
        {
            "id": "ok",
            "sentence": "Another bank.",
            "target": "bank",
            "lemma": "bank",
            "pos": "NOUN",
            "synset": "bn:00008364n",
        },
        {
            "id": "bad-synset",
            "sentence": "A bank.",
            "target": "bank",
            "lemma": "bank",
            "pos": "VERB",
            "synset": "bn:00008364n",
        },
    ]
    with pytest.raises(ItemImportError) as caught:
        import_items(project, write_jsonl("bad.jsonl", bad_rows))
    rules = {(p.row, p.rule) for p in caught.value.problems}
    assert rules == {
        (2, "missing_value"),
        (3, "bad_pos"),
        (4, "target_not_in_sentence"),
        (5, "duplicate_id"),
        (6, "pos_mismatch"),
    }
    message = str(caught.value)
    assert "bad.jsonl" in message and "row 3" in message and "nothing was imported" in message
    assert dump(project) == before


def test_missing_column_is_reported_for_the_header(project: Project, tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("sentence,target,pos,synset\nA bank.,bank,NOUN,bn:00008364n\n")
    with pytest.raises(ItemImportError) as caught:
        import_items(project, tmp_path / "x.csv")
    assert caught.value.problems[0].rule == "missing_column" and "lemma" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "latin1.csv",
            "sentence,target,lemma,pos,synset\nUn caffè.,caffè,caffè,NOUN,bn:00014214n\n".encode("latin-1"),
            "not UTF-8",
        ),
        ("empty.csv", b"", "empty"),
        ("header-only.tsv", b"sentence\ttarget\tlemma\tpos\tsynset\n", "no data rows"),
        ("binary.xlsx", bytes(range(256)) * 4, "not a valid .xlsx"),
        ("fake.xlsx", b"sentence,target\n", "not a valid .xlsx"),
        ("items.txt", b"x", "unknown file type"),
    ],
)
def test_malformed_files_change_nothing(
    project: Project, tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    before = dump(project)
    (tmp_path / name).write_bytes(content)
    with pytest.raises(FileFormatError) as caught:
        import_items(project, tmp_path / name)
    assert expected in str(caught.value) and name in str(caught.value)
    assert dump(project) == before


def test_target_occurring_twice_warns_and_takes_the_first(tmp_path: Path, write_jsonl) -> None:
    path = write_jsonl(
        "twice.jsonl",
        [
            {
                "sentence": "The head of the head office.",
                "target": "head",
                "lemma": "head",
                "pos": "n",
                "synset": "bn:00036083n",
            }
        ],
    )
    parsed = parse_item_file(path)
    assert parsed.items[0].target.start == 4
    assert [w.rule for w in parsed.warnings] == ["ambiguous_target"]


def test_an_import_that_fails_halfway_leaves_every_table_unchanged(project: Project, write_jsonl) -> None:
    rows = [dict(SAMPLE_ITEMS[0], id=f"item-{n}") for n in range(2500)]
    before = dump(project)
    seen: list[tuple[int, int]] = []
    other_connection = Database(project.db.url)  # another process's view: sees only committed data

    def explode(done: int, total: int, message: str) -> None:
        if message == "writing":
            with other_connection.read() as conn:  # (what readers see, rows committed to the file so far)
                staged = conn.exec_driver_sql("SELECT count(*) FROM items").scalar()
                seen.append((project.repo.count_items(conn), staged))
            if done >= 2000:
                raise RuntimeError("simulated crash mid-import, after 2000 rows were written")

    with pytest.raises(RuntimeError):
        import_items(project, write_jsonl("many.jsonl", rows), progress=explode)
    # Each batch was its own committed transaction, yet no reader ever saw a half import.
    assert seen == [(0, n) for n in range(INSERT_CHUNK, 2001, INSERT_CHUNK)] and len(seen) >= 2
    assert dump(project) == before
    assert import_items(project, write_jsonl("many.jsonl", rows)).added == 2500


def test_changed_item_with_curated_work_is_refused_unless_forced(project: Project, write_jsonl, lead) -> None:
    import_items(project, write_jsonl("v1.jsonl", SAMPLE_ITEMS))
    CurationService(project, lead).add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    changed = [dict(SAMPLE_ITEMS[0], sentence="She poured a shot of whiskey."), SAMPLE_ITEMS[1]]
    path = write_jsonl("v2.jsonl", changed)
    before = dump(project)
    with pytest.raises(CuratedWorkError) as caught:
        import_items(project, path)
    assert "shot-whiskey" in str(caught.value) and "--force" in str(caught.value)
    assert dump(project) == before
    report = import_items(project, path, force=True)
    assert report.replaced == 1
    with project.db.read() as conn:
        assert project.repo.get_item(conn, "shot-whiskey").sentence.startswith("She")
        assert [c.text for c in project.repo.get_item_language(conn, "shot-whiskey", "IT").good] == ["goccio"]


def test_user_error_is_the_base_of_import_errors() -> None:
    assert issubclass(ItemImportError, UserError) and issubclass(FileFormatError, UserError)


def test_offsets_name_the_sentence_as_given(tmp_path: Path, write_jsonl) -> None:
    """Offsets point into the text the user wrote, even when the stored sentence is normalised (spaces, NFC)."""
    rows = [
        {
            "id": "spaces",
            "sentence": "He  poured a shot of whiskey.",
            "start": 13,
            "end": 17,
            "lemma": "shot",
            "pos": "NOUN",
            "synset": "bn:00057755n",
        },
        {
            "id": "nfc",
            "sentence": "Un cafe\u0301 e un cafe\u0301 lungo.",
            "start": 14,
            "end": 19,
            "lemma": "caffè",
            "pos": "NOUN",
            "synset": "bn:00014214n",
        },
    ]
    items = {item.id: item for item in parse_item_file(write_jsonl("offsets.jsonl", rows)).items}
    spaces = items["spaces"]
    assert spaces.sentence == "He poured a shot of whiskey."
    assert spaces.sentence[spaces.target.start : spaces.target.end] == "shot" == spaces.target.text
    nfc = items["nfc"]
    assert nfc.target.text == "café" and nfc.target.start == 13  # the second "café", in the NFC sentence
    assert nfc.sentence.find("café") == 3 and nfc.sentence[13:17] == "café"


def test_the_whole_word_search_finds_what_the_word_pattern_finds() -> None:
    """ASCII text is searched without a compiled pattern per word (issue 32): the same offsets as the pattern,
    case, word boundaries (letters, digits, ``_``), non-overlapping matches and non-ASCII text alike."""
    from annotator.data_import.items import _find_word, _word_pattern

    cases = [
        ("The Bank, by the bank; banks and a_bank, bank_1 or 1bank.", "bank"),
        ("aaa aa aaaa aa", "aa"),
        ("a.a.a", "a.a"),
        ("re-do, re-do!", "re-do"),
        ("x _y y_ y", "y"),
        ("Die Straße und die STRASSE", "straße"),
        ("ſun and Sun and sun", "sun"),
        ("İstanbul istanbul", "istanbul"),
    ]
    for sentence, word in cases:
        assert _find_word(sentence, word) == [m.start() for m in _word_pattern(word).finditer(sentence)], sentence
    assert _find_word("The Bank, by the bank; banks", "bank") == [4, 17]
