"""The Project page's upload of WSD-framework XML (issue 23) through AppTest: a bad gold file is refused by
instance id with nothing written, then the XML and its gold keys import as a background job on a wordnet project."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from project_page import counts, finish_jobs, table_with
from wordnet_data import TINY_GOLD, TINY_WSD, write_tiny_wordnet

from annotator.domain.model import Role
from annotator.lexicon.wordnet import add_lexicons
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services import jobs
from annotator.services.accounts import add_user

pytestmark = pytest.mark.both_engines


@pytest.fixture
def wn_empty(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    project = Project.open(tmp_path / "data", create=True)
    add_lexicons(project.wordnet_folder, [str(p) for p in write_tiny_wordnet(tmp_path / "lmf")])
    project.save_settings(ProjectSettings(name="p", languages=("IT", "ZH"), lexicon=LexiconSettings("wordnet")))
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    return project


def test_wsd_xml_upload_with_its_gold_keys(wn_empty: Project) -> None:
    at = logged_in("lena", "lead-password")
    at.switch_page("pages/project.py").run()
    assert not at.exception, at.exception
    before = counts(wn_empty)
    xml = TINY_WSD.encode()
    at.file_uploader(key="project_import_file").set_value(("tiny.data.xml", xml, "text/xml")).run()
    assert not at.exception, at.exception
    bad_gold = TINY_GOLD.replace("shot%1:23:00::", "shot%1:99:99::").encode()
    at.file_uploader(key="project_import_gold").set_value(("tiny.gold.key.txt", bad_gold, "text/plain")).run()
    at.button(key="project_import").click().run()
    assert any("nothing was imported" in e.value for e in at.error)
    problems = table_with(at, "rule")
    assert list(problems["rule"]) == ["unknown_sense_key"]
    assert "tiny.d000.s000.t003" in " ".join(map(str, problems.to_numpy().ravel()))
    assert counts(wn_empty) == before

    at.file_uploader(key="project_import_gold").set_value(("tiny.gold.key.txt", TINY_GOLD.encode(), "text/plain"))
    at.run()
    at.button(key="project_import").click().run()
    assert not at.exception, at.exception
    finish_jobs(wn_empty)
    at.run()
    assert any("4 instances: 3 added" in plain(s.value) and "tiny.d001.s000.t004" in plain(s.value) for s in at.success)
    with wn_empty.db.read() as conn:
        items = {item.id: item for item in wn_empty.repo.list_items(conn)}
    assert set(items) == {"tiny.d000.s000.t003", "tiny.d000.s001.t004", "tiny.d000.s001.t006"}
    assert items["tiny.d000.s000.t003"].domain == "FOOD_AND_DRINK"
    assert not list(jobs.jobs_folder(wn_empty).glob("upload-*"))  # both kept uploads removed after the import
