"""Lexicon administration (issues 31, 32): the provider switched through a service with an audit row, wordnet
lexicons added and removed all or nothing and audited, the English one kept while the wordnet is the provider,
a translator refused, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_helpers import dump
from wordnet_data import SHOT_DRINK, english_lmf, write_tiny_wordnet

from annotator.cli import main
from annotator.domain.model import User
from annotator.errors import PermissionDenied
from annotator.lexicon.base import LexiconError
from annotator.lexicon.wordnet import lexicon_specifiers, using_folder
from annotator.lexicon.wordnet_index import index_path
from annotator.project import Project
from annotator.services.importing import import_items
from annotator.services.lexicon_admin import remove_wordnet, use_babelnet, use_snapshot, use_wordnet
from annotator.services.prepopulate import Redo, prepopulate

pytestmark = pytest.mark.both_engines


def audit(project: Project) -> list[tuple[str, dict]]:
    with project.db.read() as conn:
        return [(row["action"], row["detail"]) for row in project.repo.audit(conn)]


def folder_files(project: Project) -> dict[str, bytes]:
    folder = project.wordnet_folder
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.suffix != ".lock"}


@pytest.fixture
def wn_project(project: Project, tmp_path: Path) -> Project:
    files = write_tiny_wordnet(tmp_path / "lmf")
    result = use_wordnet(project, [str(p) for p in files])
    assert result.lexicon is not None
    return project


def test_use_wordnet_switches_the_provider_in_one_audited_change(project: Project, tmp_path: Path) -> None:
    english, italian, _iwn, _chinese = write_tiny_wordnet(tmp_path / "lmf")
    first = use_wordnet(project, [str(italian)])  # no English yet: added, audited, not switched
    assert first.lexicon is None and "exactly one English" in first.not_switched
    assert project.settings().lexicon.provider == "snapshot"
    assert audit(project)[0] == ("wordnet_add", {"added": ["tiny-it:1.0"], "sources": [str(italian)]})
    second = use_wordnet(project, [str(english), str(italian)])
    assert [(info.specifier, info.added) for info in second.lexicons] == [("tiny-en:3.0", True), ("tiny-it:1.0", False)]
    assert project.settings().lexicon.provider == "wordnet"
    action, detail = audit(project)[0]
    assert action == "wordnet_add" and detail["added"] == ["tiny-en:3.0"] and detail["provider"] == "wordnet"
    assert detail["version"] == "tiny-en:3.0+tiny-it:1.0"


def test_the_provider_switches_are_audited(wn_project: Project) -> None:
    use_babelnet(wn_project, "http://127.0.0.1:9/v9/")
    assert wn_project.settings().lexicon.provider == "babelnet"
    assert audit(wn_project)[0] == ("lexicon", {"provider": "babelnet", "base_url": "http://127.0.0.1:9/v9/"})
    snapshot = wn_project.resolve_path("builtin:demo/snapshot.json")
    label = use_snapshot(wn_project, snapshot)
    assert label and wn_project.settings().lexicon.snapshot == str(snapshot)
    assert audit(wn_project)[0] == ("lexicon", {"provider": "snapshot", "snapshot": str(snapshot)})


def test_a_translator_cannot_change_the_lexicon(wn_project: Project, translator_it: User, tmp_path: Path) -> None:
    before, files = dump(wn_project), folder_files(wn_project)
    with pytest.raises(PermissionDenied, match="Only a lead"):
        use_babelnet(wn_project, "http://127.0.0.1:9/v9/", user=translator_it)
    with pytest.raises(PermissionDenied, match="Only a lead"):
        remove_wordnet(wn_project, "tiny-iwn", user=translator_it)
    with pytest.raises(PermissionDenied, match="Only a lead"):
        use_wordnet(wn_project, [str(tmp_path / "lmf" / "tiny-iwn.xml")], user=translator_it)
    assert dump(wn_project) == before and folder_files(wn_project) == files


def _prepopulated_bad(project: Project) -> set[str]:
    items = project.data_dir.parent / "items.jsonl"
    line = {"id": "fig1", "sentence": "He poured a shot of whiskey.", "target": "shot", "lemma": "shot",
            "pos": "NOUN", "synset": SHOT_DRINK}  # fmt: skip
    items.write_text(json.dumps(line) + "\n", encoding="utf-8")
    import_items(project, items)
    prepopulate(project, redo=Redo(force=True))
    with project.db.read() as conn:
        return {c.text for c in project.repo.item_languages_of(conn, "fig1")["IT"].initial_bad}


def test_remove_wordnet_removes_a_lexicon_and_its_index_audited(wn_project: Project, lead: User) -> None:
    folder = wn_project.wordnet_folder
    assert "tiratore" in _prepopulated_bad(wn_project)  # only tiny-iwn has it
    removed = remove_wordnet(wn_project, "tiny-iwn", user=lead)
    assert removed.specifier == "tiny-iwn:1.0"
    assert lexicon_specifiers(folder) == ["tiny-cmn:1.0", "tiny-en:3.0", "tiny-it:1.0"]
    assert not index_path(folder, "tiny-iwn", "1.0").exists()
    assert audit(wn_project)[0] == ("wordnet_remove", {"lexicon": "tiny-iwn:1.0"})
    with wn_project.db.read() as conn:
        assert wn_project.repo.audit(conn)[0]["user"] == lead.name
    assert "tiratore" not in _prepopulated_bad(wn_project) and "colpo" in _prepopulated_bad(wn_project)
    assert not [p for p in folder.iterdir() if p.name.startswith("build-")]


def test_the_english_lexicon_stays_while_the_wordnet_is_the_provider(wn_project: Project) -> None:
    before, files = dump(wn_project), folder_files(wn_project)
    with pytest.raises(LexiconError, match=r"tiny-en:3\.0 is the project's English lexicon") as refused:
        remove_wordnet(wn_project, "tiny-en")
    assert "use-babelnet" in str(refused.value)
    with pytest.raises(LexiconError, match=r"No wordnet lexicon 'oewn'.*tiny-cmn:1\.0, tiny-en:3\.0"):
        remove_wordnet(wn_project, "oewn")
    assert dump(wn_project) == before and folder_files(wn_project) == files
    use_babelnet(wn_project, "http://127.0.0.1:9/v9/")  # another provider: now it may go
    assert remove_wordnet(wn_project, "tiny-en:3.0").specifier == "tiny-en:3.0"
    assert "tiny-en:3.0" not in lexicon_specifiers(wn_project.wordnet_folder)


def test_a_second_english_lexicon_left_by_an_older_version_can_be_removed(wn_project: Project, tmp_path: Path) -> None:
    """Older versions accepted a second English lexicon, which stops pre-population; removing it mends the project."""
    second = tmp_path / "second-en.xml"
    second.write_text(english_lmf("tiny-en2"), encoding="utf-8")
    with using_folder(wn_project.wordnet_folder) as wn:  # what 0.x did: straight into the database
        wn.add(second, progress_handler=None)
    with pytest.raises(LexiconError, match="exactly one English"):
        wn_project.lexicon()
    assert remove_wordnet(wn_project, "tiny-en2").specifier == "tiny-en2:3.0"
    assert wn_project.lexicon().synset_ids("shot", "NOUN")[-1] == SHOT_DRINK
    with pytest.raises(LexiconError, match="English lexicon"):
        remove_wordnet(wn_project, "tiny-en")


def test_remove_wordnet_on_the_command_line(wn_project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(wn_project.data_dir)
    assert main(["lexicon", "remove-wordnet", "--data", data, "tiny-en"]) == 2
    err = capsys.readouterr().err
    assert "English lexicon" in err and "Traceback" not in err
    assert main(["lexicon", "remove-wordnet", "--data", data, "tiny-cmn:1.0"]) == 0
    assert "Removed the wordnet lexicon tiny-cmn:1.0 (cmn-Hans)." in capsys.readouterr().out
    assert audit(wn_project)[0][0] == "wordnet_remove" and audit(wn_project)[0][1] == {"lexicon": "tiny-cmn:1.0"}
    assert "ZH" not in wn_project.lexicon().languages()  # type: ignore[attr-defined]


def test_a_new_project_says_it_has_no_lexicon_and_names_the_three_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34: ``info`` said "Lexicon: snapshot None" and ``prepopulate`` named only use-snapshot."""
    data = str(tmp_path / "p")
    assert main(["init", "--data", data, "--languages", "IT"]) == 0
    capsys.readouterr()
    assert main(["info", "--data", data]) == 0
    out = capsys.readouterr().out
    assert "Lexicon: none set yet" in out and "None" not in out
    assert main(["prepopulate", "--data", data]) == 2
    err = capsys.readouterr().err
    for text in (out, err):
        assert all(f"annotator lexicon {way}" in text for way in ("use-wordnet", "use-babelnet", "use-snapshot"))
