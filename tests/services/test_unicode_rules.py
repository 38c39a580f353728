"""Issue 14 item 10: zero-width, soft-hyphen, BOM, bidi and tag characters (Unicode Cf) are refused in candidates
(browser/service, spreadsheet) and in item text at import, with the rule ``invisible_character`` and the code point
named; refusals change nothing."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from project_helpers import SAMPLE_ITEMS, dump
from sheet_helpers import Sheet, states, user

from annotator.commands.project import create_demo
from annotator.data_export.spreadsheet import export_sheet
from annotator.data_import.items import ItemImportError
from annotator.domain.candidates import CandidateError, parse_candidate
from annotator.domain.edits import CandidateSetError
from annotator.domain.model import Side, User
from annotator.domain.unicode_rules import INVISIBLE_RANGES, INVISIBLE_RULE, find_invisible
from annotator.project import Project
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.sheet_import import SheetImportError, import_sheet

INVISIBLE = {
    0x200B: "ZERO WIDTH SPACE",
    0x200C: "ZERO WIDTH NON-JOINER",
    0x200D: "ZERO WIDTH JOINER",
    0x2060: "WORD JOINER",
    0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
    0x00AD: "SOFT HYPHEN",
    0x200E: "LEFT-TO-RIGHT MARK",
    0x200F: "RIGHT-TO-LEFT MARK",
    0x061C: "ARABIC LETTER MARK",
    0x202A: "LEFT-TO-RIGHT EMBEDDING",
    0x202B: "RIGHT-TO-LEFT EMBEDDING",
    0x202C: "POP DIRECTIONAL FORMATTING",
    0x202D: "LEFT-TO-RIGHT OVERRIDE",
    0x202E: "RIGHT-TO-LEFT OVERRIDE",
    0x2066: "LEFT-TO-RIGHT ISOLATE",
    0x2067: "RIGHT-TO-LEFT ISOLATE",
    0x2068: "FIRST STRONG ISOLATE",
    0x2069: "POP DIRECTIONAL ISOLATE",
    0xE0001: "LANGUAGE TAG",
    0xE0041: "TAG LATIN CAPITAL LETTER A",
    0xE007F: "CANCEL TAG",
    0x180E: "MONGOLIAN VOWEL SEPARATOR",  # any other Cf too
}


@pytest.mark.parametrize("code", sorted(INVISIBLE), ids=lambda code: f"U+{code:04X}")
@pytest.mark.parametrize("where", ["inside", "start", "end", "in cross-PoS"])
def test_every_invisible_character_is_refused_in_a_candidate(code: int, where: str) -> None:
    char = chr(code)
    raw = {
        "inside": f"goc{char}cio",
        "start": f"{char}goccio",
        "end": f"goccio{char}",
        "in cross-PoS": f"[spa{char}rare]_VERB",
    }[where]
    with pytest.raises(CandidateError) as caught:
        parse_candidate(raw, "NOUN")
    assert caught.value.rule == INVISIBLE_RULE
    assert f"U+{code:04X} {INVISIBLE[code]}" in caught.value.message


@pytest.mark.parametrize(
    "text", ["goccio", "Schlückchen", "小杯", "держит пекарню", "bate de béisbol", "prendersi * permesso", "naïve café"]
)
def test_ordinary_text_in_every_project_language_passes(text: str) -> None:
    assert parse_candidate(text).text == text
    assert find_invisible(text) is None


@pytest.fixture
def items(project: Project, write_jsonl) -> Project:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    return project


def test_four_look_alikes_of_goccio_are_refused_by_the_service(items: Project, translator_it: User) -> None:
    service = CurationService(items, translator_it)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", 0)
    before = dump(items)
    for look_alike in ("goc\u200bcio", "gocc\u00adio", "\ufeffgoccio", "goccio\u200d"):
        with pytest.raises(CandidateError) as caught:
            service.add_candidate("shot-whiskey", "IT", Side.GOOD, look_alike, state.version)
        assert caught.value.rule == INVISIBLE_RULE
        with pytest.raises(CandidateSetError, match=INVISIBLE_RULE):
            service.replace_candidates("shot-whiskey", "IT", ["goccio", look_alike], [], state.version)
    assert dump(items) == before


def test_a_bidi_override_in_a_sentence_is_refused_at_import_with_row_and_column(project: Project, write_jsonl) -> None:
    rows = [
        dict(SAMPLE_ITEMS[0], sentence="He poured a shot of \u202eyeksihw."),
        dict(SAMPLE_ITEMS[1], lemma="he\u200bad"),
        dict(SAMPLE_ITEMS[1], id="head-\u2066stream"),
    ]
    path = write_jsonl("hostile.jsonl", rows)
    before = dump(project)
    with pytest.raises(ItemImportError) as caught:
        import_items(project, path)
    found = {(p.row, p.column, p.rule) for p in caught.value.problems}
    # The id has its own rules (issue 12): an invisible character in it is `id_not_printable`.
    assert {(1, "sentence", INVISIBLE_RULE), (2, "lemma", INVISIBLE_RULE), (3, "id", "id_not_printable")} <= found
    assert "U+202E RIGHT-TO-LEFT OVERRIDE (a bidirectional control) at character 21" in str(caught.value)
    assert dump(project) == before


def test_the_sheet_import_refuses_an_invisible_candidate(tmp_path: Path) -> None:
    data = tmp_path / "data"
    create_demo(str(data), quiet=True)
    demo = Project.open(data)
    sheet = Sheet.open(export_sheet(demo, "IT", tmp_path / "out"))
    sheet.set("shot-whiskey", "GOOD", "goccio\ngoc\u200bcio")
    before = dump(demo)
    with pytest.raises(SheetImportError) as caught:
        import_sheet(CurationService(demo, user(demo, "translator")), sheet.save("zwsp.xlsx"))
    assert [(p.row, p.column, p.rule) for p in caught.value.problems] == [
        (sheet.rows["shot-whiskey"], "GOOD", INVISIBLE_RULE)
    ]
    assert "U+200B ZERO WIDTH SPACE" in str(caught.value)
    assert dump(demo) == before
    assert [e.text for e in states(demo, "IT")["shot-whiskey"].good] == ["goccio", "bicchierino"]


def test_the_fixed_list_covers_every_format_character_of_this_python() -> None:
    """The refusal is one regex over a fixed list (speed on 100k-row files); it must still cover all of Cf."""
    covered = {code for low, high in INVISIBLE_RANGES for code in range(low, high + 1)}
    format_characters = {code for code in range(0x110000) if unicodedata.category(chr(code)) == "Cf"}
    assert format_characters - covered == set()
    assert all(find_invisible(f"a{chr(code)}b") == (1, chr(code)) for code in sorted(covered))
    assert all(find_invisible(chr(code)) == (0, chr(code)) for code in sorted(format_characters))
