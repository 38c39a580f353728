"""The Dataset page's Publish block (issue 35) through Streamlit's AppTest: the prepared zip holds the folder
``annotator publish`` writes; a licence the sources forbid is refused with the reason and nothing is offered."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from app_helpers import plain
from streamlit.testing.v1 import AppTest
from test_app_dataset import SCRIPT, build_curated_demo

from annotator.app.publish_panel import PREPARED
from annotator.app.state import USER_KEY
from annotator.project import LexiconSettings, Project
from annotator.services.accounts import Session

pytestmark = pytest.mark.both_engines


@pytest.fixture
def curated(copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:  # type: ignore[no-untyped-def]
    data = copy_project("curated-demo", build_curated_demo, tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.chdir(tmp_path)
    return Project.open(data)


def start() -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.session_state[USER_KEY] = Session("lead", 0)
    at.run()
    assert not at.exception, at.exception
    return at


def test_prepare_offers_the_published_folder_as_a_zip(curated: Project) -> None:
    at = start()
    assert not [b for b in at.get("download_button") if b.key == "publish_download"]
    at.text_input(key="publish_name").input("Curated demo")  # in a form: sent with its submit button
    at.button(key="publish_prepare").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    name, data, summary = at.session_state[PREPARED]
    assert name == "dataset.zip" and "Licence cc-by-4.0" in summary and "IT: 14" in summary
    assert [b.key for b in at.get("download_button") if b.key == "publish_download"] == ["publish_download"]
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        assert {"dataset/README.md", "dataset/croissant.json", "dataset/export/manifest.json"} <= names
        table = pq.read_table(io.BytesIO(archive.read("dataset/data/IT/test.parquet")))
        assert 'pretty_name: "Curated demo"' in archive.read("dataset/README.md").decode()
    assert table.num_rows == 14 and table.column("status").to_pylist() == ["done"] * 14


def test_a_licence_the_sources_forbid_is_refused_with_the_reason(curated: Project) -> None:
    settings = curated.settings()
    curated.save_settings(replace(settings, lexicon=LexiconSettings("babelnet")))
    at = start()
    at.selectbox(key="publish_licence").select("cc-by-4.0")
    at.button(key="publish_prepare").click().run()
    assert not at.exception, at.exception
    (error,) = [plain(e.value) for e in at.error]
    assert "BabelNet Non-Commercial License, which forbids commercial use" in error
    assert PREPARED not in at.session_state
    assert not [b for b in at.get("download_button") if b.key == "publish_download"]


def test_nothing_to_publish_says_what_to_tick_and_offers_nothing(curated: Project) -> None:
    with curated.db.write() as conn:
        ids = [item.id for item in curated.repo.list_items(conn)]
        curated.repo.set_excluded(conn, ids, True)
    at = start()
    at.button(key="publish_prepare").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    (warning,) = [plain(w.value) for w in at.warning]
    assert "Nothing to publish yet" in warning and "--" not in warning
    assert PREPARED not in at.session_state
