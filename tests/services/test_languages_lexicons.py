"""A language is what a project translates into, and one without a lexicon is said so.

On the command line: a country code (``CN``) names its language (``ZH``); the source language (``EN``) and codes that
are no language (``zxx``, ``mul``, ``und``, ``sgn``, ``qaa``…) are refused; a code is read as typed (Turkish ``ıt`` is
not ``IT``); a code given twice is refused. On a wordnet project, ``languages add FR`` without a French lexicon says
so, ``prepopulate`` counts per language the item-languages starting with an empty GOOD and BAD list and names the
language without a lexicon, the cards' reasons say so for both lists, and the Project page shows the project's own
lexicons, not BabelNet's defaults.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from wordnet_data import SHOT_DRINK, write_tiny_wordnet

from annotator.cli import main
from annotator.domain.languages import LanguageCodeError, check_language, parse_language_list
from annotator.domain.model import Role
from annotator.project import Project, project_exists
from annotator.services.accounts import add_user


@pytest.mark.parametrize(
    ("codes", "said"),
    [
        ("IT,CN", "'CN' is the country code of China, not a language code: China's language is ZH — Chinese"),
        ("IT,EN", "EN — English is the project's source language"),
        ("IT,zxx", "'ZXX' is not a language (no linguistic content)"),
        ("mul", "'MUL' is not a language (multiple languages)"),
        ("und,IT", "'UND' is not a language"),
        ("sgn", "'SGN' is not a language"),
        ("qab", "'QAB' is not a language (reserved for local use)"),
        ("ıt", "'ıt' holds 'ı' (U+0131 LATIN SMALL LETTER DOTLESS I), not a letter a–z"),
        ("IT,DE,IT", "IT — Italian is given 2 times in 'IT,DE,IT'"),
    ],
)
def test_init_refuses_what_is_not_a_target_language(
    codes: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "p"
    assert main(["init", "--data", str(data), "--languages", codes]) == 2
    error = capsys.readouterr().err
    assert said in error, error
    assert not project_exists(data)


def test_codes_are_read_as_typed_never_upper_cased_into_another() -> None:
    for typed in ("ıt", "İT", "ｉｔ"):  # dotless i, dotted capital I, full-width letters: none is IT
        with pytest.raises(LanguageCodeError) as refused:
            check_language(typed)
        assert "'IT'" not in str(refused.value) and "closest" not in str(refused.value), refused.value
    assert check_language(" it ") == "IT" and parse_language_list("it, de") == ("IT", "DE")
    with pytest.raises(LanguageCodeError, match="JA — Japanese"):
        check_language("JP")
    assert check_language("UK") == "UK"  # Ukrainian: a language code, not read as the United Kingdom


def test_languages_add_refuses_the_same_codes_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "p")
    assert main(["init", "--data", data, "--languages", "IT"]) == 0
    refusals = (("en", "source language"), ("ZXX", "no linguistic content"), ("MUL", "multiple languages"),
                ("CN", "ZH — Chinese"), ("ıt", "U+0131"), ("FR,fr", "FR — French is given 2 times"))  # fmt: skip
    for codes, said in refusals:
        assert main(["languages", "add", codes, "--data", data]) == 2
        assert said in capsys.readouterr().err, codes
        assert Project.open(data).settings().languages == ("IT",)


@pytest.fixture
def wordnet_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A wordnet project (IT) with English and Italian lexicons only, and one item (Figure 1's "shot")."""
    data = str(tmp_path / "data")
    english, italian, iwn, _chinese = write_tiny_wordnet(tmp_path / "lmf")
    assert main(["init", "--data", data, "--languages", "IT"]) == 0
    assert main(["lexicon", "use-wordnet", "--data", data, str(english), str(italian), str(iwn)]) == 0
    items = tmp_path / "items.jsonl"
    line = {"id": "fig1", "sentence": "He poured a shot of whiskey.", "target": "shot", "lemma": "shot",
            "pos": "NOUN", "synset": SHOT_DRINK}  # fmt: skip
    items.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["import", str(items), "--data", data]) == 0
    capsys.readouterr()
    return data


def test_a_language_without_a_lexicon_is_named_at_add_and_counted_empty_by_prepopulate(
    wordnet_project: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = wordnet_project
    assert main(["languages", "add", "FR", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "Added FR — French" in out
    assert "no lexicon for FR — French" in out and "every GOOD and BAD list of it empty" in out, out
    assert main(["languages", "add", "ZH", "--data", data]) == 0
    assert "no lexicon for ZH — Chinese" in capsys.readouterr().out
    assert main(["prepopulate", "--data", data]) == 0
    out = capsys.readouterr().out
    # per language: item-languages starting with an empty GOOD / BAD list, of those pre-populated
    assert "starting with an empty GOOD / BAD list: FR 1 / 1 of 1, IT 0 / 0 of 1, ZH 1 / 1 of 1" in out, out
    assert "NO LEXICON for FR, ZH: every list of it starts empty" in out, out
    # the cards' reasons say it too, for both lists, never "the lexicons consulted (none)"
    written = Path(data).parent / "suggestions.jsonl"
    assert main(["suggestions", "--data", data, "--lang", "FR", "--out", str(written)]) == 0
    (line,) = [json.loads(text) for text in written.read_text(encoding="utf-8").splitlines()]
    for reason in (line["good_empty_reason"], line["bad_empty_reason"]):
        assert reason.startswith("No French lexicon is installed or allowed") and "(none)" not in reason, line


def test_languages_add_on_a_language_with_a_lexicon_says_nothing_about_lexicons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    english, italian, _iwn, chinese = write_tiny_wordnet(tmp_path / "lmf")
    assert main(["init", "--data", data, "--languages", "IT"]) == 0
    assert main(["lexicon", "use-wordnet", "--data", data, str(english), str(italian), str(chinese)]) == 0
    capsys.readouterr()
    assert main(["languages", "add", "ZH", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "Added ZH — Chinese" in out and "no lexicon" not in out, out


def test_the_project_page_shows_a_wordnet_projects_own_sources_and_the_language_without_one(
    wordnet_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["languages", "add", "FR", "--data", wordnet_project]) == 0
    add_user(Project.open(wordnet_project), "lena", Role.LEAD, (), "lead-password-1")
    monkeypatch.setenv("ANNOTATOR_DATA", wordnet_project)
    at = logged_in("lena", "lead-password-1")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    sources = next(plain(c.value) for c in at.caption if "Sources" in c.value)
    assert "EN: tiny-en:3.0" in sources and "IT: tiny-it:" in sources and "tiny-iwn:" in sources, sources
    assert "FR: none" in sources and "IWN" not in sources and "OMWN" not in sources, sources  # not BabelNet's
    assert any("no lexicon for FR — French" in plain(w.value) for w in at.warning), [w.value for w in at.warning]
