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
from dataset_pages import SCRIPT, build_curated_demo
from streamlit.testing.v1 import AppTest

from annotator.app.publish_panel import PREPARED, UNUSABLE_LABEL
from annotator.app.session import USER_KEY
from annotator.commands.project import create_demo
from annotator.project import LexiconSettings, Project, builtin_path
from annotator.services.accounts import Session
from annotator.services.importing import import_items

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
    # the sentences' licence given again with an unchanged re-import: non-commercial; the lexicon configured now
    # (BabelNet, whose data no row came from) is no reason
    import_items(curated, builtin_path("demo/items.jsonl"), corpus_licence="cc-by-nc-4.0")
    settings = curated.settings()
    curated.save_settings(replace(settings, lexicon=LexiconSettings("babelnet")))
    at = start()
    at.selectbox(key="publish_licence").select("cc-by-4.0")
    at.button(key="publish_prepare").click().run()
    assert not at.exception, at.exception
    (error,) = [plain(e.value) for e in at.error]
    assert (
        "Demo project data (items.jsonl) is under the Creative Commons Attribution-NonCommercial 4.0 International, "
        "which forbids commercial use" in error
    )
    assert "BabelNet" not in error
    assert PREPARED not in at.session_state
    assert not [b for b in at.get("download_button") if b.key == "publish_download"]


def publish_warnings(at: AppTest) -> list[str]:
    """The Publish block's warnings, told from the Export block's by their words (each block speaks once)."""
    return [plain(w.value) for w in at.warning if "Nothing to publish" in plain(w.value)]


def test_nothing_to_publish_names_the_reason_and_offers_nothing(curated: Project) -> None:
    with curated.db.write() as conn:
        ids = [item.id for item in curated.repo.list_items(conn)]
        curated.repo.set_excluded(conn, ids, True)
    at = start()
    at.button(key="publish_prepare").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    (warning,) = publish_warnings(at)
    # every item is excluded: the reason says so, and ticking "not yet done" would not help, so it is not offered
    assert "left out: 18 excluded" in warning and "Tick" not in warning and "--" not in warning
    warnings = [plain(w.value) for w in at.warning]
    assert len(warnings) == 2 and sum("Nothing to export" in w for w in warnings) == 1  # one per block
    assert PREPARED not in at.session_state
    assert not [b for b in at.get("download_button") if b.key == "publish_download"]


def test_nothing_done_yet_says_what_to_tick(copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    data = copy_project("demo", lambda folder: create_demo(str(folder), quiet=True), tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    monkeypatch.chdir(tmp_path)
    at = start()
    at.button(key="publish_prepare").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    (warning,) = publish_warnings(at)
    assert "left out: 18 incomplete" in warning and "--" not in warning
    assert "Tick “Include items not yet done in every language” above to publish the usable rows of the 18" in warning
    assert PREPARED not in at.session_state
    at.checkbox(key="dataset_include_incomplete").check().run()
    at.button(key="publish_prepare").click().run()
    (warning,) = publish_warnings(at)  # pre-populated, nobody curated: no row is usable
    assert "left out: 18 unusable" in warning and f"Tick “{UNUSABLE_LABEL}”" in warning and "--" not in warning
    at.checkbox(key="publish_include_unusable").check()
    at.text_input(key="publish_hub_id").input("lab-x/demo-bench")
    at.text_area(key="publish_authors").input("Ada Lovelace\n\nAlan Turing\n")
    at.button(key="publish_prepare").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    _name, data, summary = at.session_state[PREPARED]
    assert "IT: 18" in summary and "placeholder(s) marked TO FILL" in summary
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        card = archive.read("dataset/README.md").decode()
        usable = pq.read_table(io.BytesIO(archive.read("dataset/data/IT/test.parquet"))).column("usable").to_pylist()
    assert 'load_dataset("lab-x/demo-bench"' in card and "author = {Ada Lovelace and Alan Turing}" in card
    assert usable == [False] * 18
