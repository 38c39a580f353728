"""Settings changes run at once by two real processes, on both engines: every change is kept, and the settings and
the item-language rows agree afterwards.

Each settings change reads the settings inside its write transaction, under the write lock. The first process
(``paused_command.py``) is stopped right before its first write transaction — after everything it read outside
one — while the second commits; then the first goes on. A change that read the settings before its transaction
writes that stale copy back and undoes the second's (two removals left a removed language in the settings with no
rows, for ever "incomplete"); these tests fail then.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from annotator.data_import.limits import META_KEY as LIMITS_META_KEY
from annotator.data_import.limits import InputLimits
from annotator.project import Project
from annotator.services.importing import import_items
from annotator.services.languages import remove_language
from annotator.store import schema

pytestmark = pytest.mark.both_engines

PAUSED = Path(__file__).resolve().parents[1] / "support" / "paused_command.py"
TIMEOUT_S = 120


@pytest.fixture
def items_project(project: Project, write_jsonl) -> Project:  # type: ignore[no-untyped-def]
    from project_helpers import SAMPLE_ITEMS

    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    project.db.dispose()
    return project


class Paused:
    """An ``annotator`` command in its own process, paused before its first write transaction until ``go()``."""

    def __init__(self, folder: Path, name: str, *arguments: str) -> None:
        self.ready, self.go_file = folder / f"{name}.ready", folder / f"{name}.go"
        self.process = subprocess.Popen(
            [sys.executable, str(PAUSED), str(self.ready), str(self.go_file), *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(PAUSED.parents[2])},
        )

    def wait_ready(self) -> None:
        """Until the process is at its first write transaction (it has read whatever it reads before one)."""
        deadline = time.monotonic() + TIMEOUT_S
        while not self.ready.exists():
            if self.process.poll() is not None:
                out, err = self.process.communicate()
                pytest.fail(f"the paused command ended before its write: {out}{err}")
            assert time.monotonic() < deadline, "the paused command never reached its write"
            time.sleep(0.01)

    def go(self) -> None:
        self.go_file.touch()

    def finish(self) -> str:
        out, err = self.process.communicate(timeout=TIMEOUT_S)
        assert self.process.returncode == 0, out + err
        return out


def annotator(*arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "annotator.cli", *arguments],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, "PYTHONPATH": str(PAUSED.parents[2])},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def agree(project: Project, languages: tuple[str, ...]) -> None:
    """The settings hold exactly ``languages`` (in any order) and every item has a row in each of them only."""
    fresh = Project.open(project.data_dir)
    try:
        settings = fresh.settings()
        assert sorted(settings.languages) == sorted(languages)
        with fresh.db.read() as conn:
            rows = conn.execute(select(schema.item_languages.c.item_id, schema.item_languages.c.lang)).all()
            items = [row.id for row in conn.execute(select(schema.items.c.id))]
        assert sorted(rows) == sorted((item, lang) for item in items for lang in languages)
    finally:
        fresh.db.dispose()


def test_two_removals_at_once_both_kept(items_project: Project, tmp_path: Path) -> None:
    data = str(items_project.data_dir)
    first = Paused(tmp_path, "first", "languages", "remove", "IT", "--data", data)
    second = Paused(tmp_path, "second", "languages", "remove", "RU", "--data", data)
    first.wait_ready()
    second.wait_ready()  # both have read whatever they read before their transaction
    first.go()
    second.go()
    assert "Removed IT" in first.finish() and "Removed RU" in second.finish()
    agree(items_project, ("DE", "ES", "ZH"))


def test_a_removal_and_an_add_both_kept_whichever_waits(items_project: Project, tmp_path: Path) -> None:
    data = str(items_project.data_dir)
    removal = Paused(tmp_path, "removal", "languages", "remove", "IT", "--data", data)
    removal.wait_ready()
    assert "Added FR" in annotator("languages", "add", "FR", "--data", data)
    removal.go()
    removal.finish()
    agree(items_project, ("DE", "ES", "RU", "ZH", "FR"))

    adding = Paused(tmp_path, "adding", "languages", "add", "PT", "--data", data)
    adding.wait_ready()
    assert "Removed RU" in annotator("languages", "remove", "RU", "--data", data)
    adding.go()
    assert "Added PT" in adding.finish()
    agree(items_project, ("DE", "ES", "ZH", "FR", "PT"))


def test_a_removal_and_a_provider_switch_both_kept(items_project: Project, tmp_path: Path) -> None:
    data = str(items_project.data_dir)
    removal = Paused(tmp_path, "removal", "languages", "remove", "IT", "--data", data)
    removal.wait_ready()
    annotator("lexicon", "use-babelnet", "--url", "http://127.0.0.1:9/v9/", "--data", data)
    removal.go()
    removal.finish()
    agree(items_project, ("DE", "ES", "RU", "ZH"))
    fresh = Project.open(items_project.data_dir)
    lexicon = fresh.settings().lexicon
    fresh.db.dispose()
    assert (lexicon.provider, lexicon.base_url) == ("babelnet", "http://127.0.0.1:9/v9/")


def test_two_limit_changes_at_once_both_kept(items_project: Project, tmp_path: Path) -> None:
    data = str(items_project.data_dir)
    rows = Paused(tmp_path, "rows", "limits", "--set", "max_rows=1234", "--data", data)
    rows.wait_ready()
    annotator("limits", "--set", "max_file_mb=7", "--data", data)
    rows.go()
    rows.finish()
    fresh = Project.open(items_project.data_dir)
    with fresh.db.read() as conn:
        limits = InputLimits.from_json(fresh.repo.get_meta(conn, LIMITS_META_KEY))
    fresh.db.dispose()
    assert (limits.max_rows, limits.max_file_mb) == (1234, 7)


def test_a_removed_language_takes_its_kept_card_rows_with_it(items_project: Project) -> None:
    """The lexicon's records, the computed suggestions and the dismissed ones of the language go in the same
    transaction as its item-languages; the other languages' rows stay."""
    project = Project.open(items_project.data_dir)
    with project.db.write() as conn:
        for lang in ("IT", "DE"):
            conn.execute(insert(schema.lexicon_records).values(item_id="shot-whiskey", lang=lang, record="{}"))
            conn.execute(insert(schema.suggestion_cache).values(item_id="shot-whiskey", lang=lang))
            conn.execute(
                insert(schema.suggestion_dismissals).values(
                    item_id="shot-whiskey", lang=lang, user="lena", key="k", text="t", at="2026-01-01T00:00:00Z"
                )
            )
    remove_language(project, "IT")
    with project.db.read() as conn:
        for table in (schema.lexicon_records, schema.suggestion_cache, schema.suggestion_dismissals):
            assert sorted(conn.execute(select(table.c.lang)).scalars()) == ["DE"], table.name
    project.db.dispose()
