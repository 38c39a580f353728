"""Issue 34, point 1: languages as data — ISO 639 codes checked (the closest valid one named), shown with their
names, and a language nobody has curated removed (browser, command line, service); one with curation refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in, plain

from annotator.cli import main
from annotator.domain.languages import LanguageCodeError, check_in_project, check_language, language_label
from annotator.domain.model import Role
from annotator.project import Project, project_exists
from annotator.services.accounts import add_user, authenticate
from annotator.services.administration import add_languages
from annotator.services.curation import CurationService
from annotator.services.languages import LanguageInUseError, curated_count, remove_language

pytestmark = pytest.mark.both_engines


def test_codes_are_checked_against_iso_639_naming_the_closest_valid_one() -> None:
    assert check_language(" it ") == "IT" and check_language("yue") == "YUE"  # no two-letter form: kept
    with pytest.raises(LanguageCodeError, match=r"'ZZ' is not an ISO 639 language code.*ZH — Chinese"):
        check_language("ZZ")
    with pytest.raises(LanguageCodeError, match=r"'ITA' also names Italian.*use IT"):
        check_language("ITA")
    with pytest.raises(LanguageCodeError, match=r"'IW' also names Hebrew.*use HE"):
        check_language("iw")  # the retired code
    with pytest.raises(LanguageCodeError, match=r"closest valid code is IT — Italian"):
        check_language("Italian")
    assert language_label("it") == "IT — Italian" and language_label("DE") == "DE — German"
    with pytest.raises(LanguageCodeError, match=r"ES — Spanish is not one of this project's languages \(IT, DE\)"):
        check_in_project(["ES"], ("IT", "DE"))


@pytest.mark.parametrize(("codes", "named"), [("IT,ZZ", "'ZZ'"), ("ITA,DE", "'ITA'")])
def test_init_refuses_a_bad_code_naming_it_and_creates_nothing(
    codes: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "p"
    assert main(["init", "--data", str(data), "--languages", codes]) == 2
    error = capsys.readouterr().err
    assert named in error and ("ZH — Chinese" in error if "ZZ" in codes else "use IT" in error)
    assert not project_exists(data)


def test_users_add_refuses_a_language_outside_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANNOTATOR_PASSWORD", "maria-password-1")
    data = str(tmp_path / "p")
    assert main(["init", "--data", data, "--languages", "IT,DE"]) == 0
    add_user(Project.open(data), "lena", Role.LEAD, (), "lead-password-1")  # the first account is a lead
    command = ["users", "add", "maria", "--data", data, "--role", "translator"]
    assert main([*command, "--languages", "ES"]) == 2
    assert "ES — Spanish is not one of this project's languages (IT, DE)" in capsys.readouterr().err
    assert main([*command, "--languages", "XY"]) == 2
    assert "'XY' is not an ISO 639 language code" in capsys.readouterr().err
    with Project.open(data).db.read() as conn:
        assert Project.open(data).repo.get_user(conn, "maria") is None
    assert main([*command, "--languages", "it"]) == 0


def test_a_language_nobody_curated_is_removed_one_with_curation_is_refused(app_demo: Path) -> None:
    project = Project.open(app_demo)
    lead = authenticate(project, "lead", "demo-lead-pass")
    translator = authenticate(project, "translator", "demo-translator-pass")
    assert lead is not None and translator is not None
    add_languages(project, ["FR"], lead)
    with project.db.read() as conn:
        assert sum(1 for _ in project.repo.iter_item_languages(conn, "FR")) == 18
    with pytest.raises(LanguageCodeError, match="'ITA'"):
        add_languages(project, ["ITA"], lead)

    removal = remove_language(project, "FR", lead)
    assert removal.item_languages == 18 and "FR" not in project.settings().languages
    with project.db.read() as conn:
        assert not list(project.repo.iter_item_languages(conn, "FR"))
        assert project.repo.audit(conn)[0]["action"] == "language_removed"

    service = CurationService(project, translator)
    service.mark_done("head-stream", "IT", service.view("head-stream", "IT").state.version)
    service.comment("run-relief", "IT", "Not sure about this one.")
    assert curated_count(project, "IT") == 2
    with pytest.raises(LanguageInUseError, match=r"IT — Italian cannot be removed: 2 of its item-language"):
        remove_language(project, "IT", lead)
    assert "IT" in project.settings().languages
    with pytest.raises(Exception, match="lead"):
        remove_language(project, "DE", translator)

    remove_language(project, "DE", lead)  # uncurated: gone from the project and from the translator's account
    with project.db.read() as conn:
        account = project.repo.get_user(conn, "translator")
    assert account is not None and account.languages == ("IT",)


def test_languages_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "p")
    assert main(["init", "--data", data, "--languages", "IT,DE"]) == 0
    assert main(["languages", "add", "FR,zz", "--data", data]) == 2
    assert "'ZZ'" in capsys.readouterr().err and Project.open(data).settings().languages == ("IT", "DE")
    assert main(["languages", "add", "fr", "--data", data]) == 0
    assert main(["languages", "list", "--data", data]) == 0
    assert "FR    French" in capsys.readouterr().out
    assert main(["languages", "remove", "FR", "--data", data]) == 0
    assert "Removed FR — French" in capsys.readouterr().out
    assert Project.open(data).settings().languages == ("IT", "DE")
    add_user(Project.open(data), "lena", Role.LEAD, (), "lead-password-1")  # the first account is a lead
    add_user(Project.open(data), "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    assert main(["languages", "remove", "IT", "--data", data]) == 0  # no items yet: nothing curated
    assert "taken off the account(s) ivo" in capsys.readouterr().out


def test_the_project_page_adds_and_removes_languages(app_demo: Path) -> None:
    project = Project.open(app_demo)
    at = logged_in("lead", "demo-lead-pass")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    assert any("IT — Italian" in plain(m.value) for m in at.markdown)

    add = next(t for t in at.text_input if t.label == "Add a language")
    add.input("ZZ")
    next(b for b in at.button if b.label == "Add language").click().run()
    assert any("closest valid code is ZH — Chinese" in plain(e.value) for e in at.error)
    assert "ZZ" not in project.settings().languages

    next(t for t in at.text_input if t.label == "Add a language").input("fr")
    next(b for b in at.button if b.label == "Add language").click().run()
    assert "FR" in project.settings().languages
    assert any("Added FR — French" in plain(s.value) for s in at.success)

    remove = next(s for s in at.selectbox if s.label == "Remove a language")
    remove.set_value("FR")
    next(c for c in at.checkbox if c.label.startswith("Yes, remove it")).check()
    next(b for b in at.button if b.label == "Remove language").click().run()
    assert not at.exception, at.exception
    assert "FR" not in project.settings().languages
    assert any("Removed FR — French (18 uncurated" in plain(s.value) for s in at.success)

    translator = authenticate(project, "translator", "demo-translator-pass")
    assert translator is not None
    service = CurationService(project, translator)
    service.mark_done("head-stream", "IT", service.view("head-stream", "IT").state.version)
    next(s for s in at.selectbox if s.label == "Remove a language").set_value("IT")
    next(c for c in at.checkbox if c.label.startswith("Yes, remove it")).check()
    next(b for b in at.button if b.label == "Remove language").click().run()
    assert any("IT — Italian cannot be removed: 1 of its" in plain(e.value) for e in at.error)
    assert "IT" in project.settings().languages


def test_the_project_page_of_a_wordnet_project_names_the_wordnets_not_a_babelnet_url(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotator.project import LexiconSettings, ProjectSettings

    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(ProjectSettings(name="wn", languages=("IT",), lexicon=LexiconSettings("wordnet")))
    add_user(project, "lena", Role.LEAD, (), "lead-password-1")
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    at = logged_in("lena", "lead-password-1")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    settings = next(plain(m.value) for m in at.markdown if "lexicon" in m.value)
    assert "open wordnets" in settings and "babelnet.io" not in settings
