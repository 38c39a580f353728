"""Issue 20 point 10: every file and folder the app creates is owner-only (files 0600, folders 0700) — the data
folder (and any folder made above it), the database and its -wal/-shm, ``jobs/`` with uploads, worker logs and
evaluation results, the BabelNet response cache and its -wal/-shm, the evaluation item cache and the analysers'
dictionary cache. Real jobs run in real worker processes; nothing is created by the test itself."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from annotator.analysis.dictionary_cache import jieba_tokenizer
from annotator.commands.project import DEMO_ITEMS, DEMO_SNAPSHOT
from annotator.domain.jobs import JobKind, JobState
from annotator.domain.model import Role
from annotator.lexicon.http_cache import HttpCache
from annotator.private_files import open_private
from annotator.project import LexiconSettings, Project, ProjectSettings, builtin_path
from annotator.services import jobs
from annotator.services.accounts import add_user
from annotator.services.importing import import_items


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes_under(root: Path) -> dict[str, int]:
    """Every entry under ``root`` (and ``root`` itself) with its permission bits, by path relative to ``root``."""
    found = {".": mode(root)}
    for folder, folders, files in os.walk(root):
        for name in [*folders, *files]:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = mode(path)
    return found


def test_everything_the_project_keeps_in_its_data_folder_is_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    previous = os.umask(0o022)  # the usual umask, which made these 0644/0755 before
    try:
        data = tmp_path / "new" / "data"  # "new" does not exist either: made by the app, so 0700 too
        project = Project.open(data, create=True)
        project.save_settings(
            ProjectSettings(name="p", lexicon=LexiconSettings(provider="snapshot", snapshot=DEMO_SNAPSHOT))
        )
        add_user(project, "lena", Role.LEAD, (), "lead-password")
        import_items(project, builtin_path(DEMO_ITEMS))
        monkeypatch.setenv("ANNOTATOR_DATA", str(data))

        prepopulated = jobs.wait(project, jobs.start(project, JobKind.PREPOPULATE).id, timeout=120)
        assert prepopulated.state is JobState.DONE, prepopulated
        translations = builtin_path("demo/translations.jsonl").read_bytes()
        upload = jobs.save_upload(project, "my translations.jsonl", translations)
        params = {"current": True, "page": True, "translations": str(upload), "translations_name": upload.name}
        scored = jobs.wait(project, jobs.start(project, JobKind.EVALUATE, params).id, timeout=180)
        assert scored.state is JobState.DONE, scored

        cache = HttpCache(project.babelnet_cache_path)
        cache.put("k", "getSynset", {"id": "bn:00000001n"}, "{}")
        entries = modes_under(data)  # while the caches and the database are open: their -wal and -shm exist
        cache.close()
    finally:
        os.umask(previous)

    assert mode(tmp_path / "new") == 0o700
    expected = {
        "annotator.sqlite",
        "annotator.sqlite-wal",
        "annotator.sqlite-shm",
        "babelnet-cache.sqlite",
        "babelnet-cache.sqlite-wal",
        "babelnet-cache.sqlite-shm",
        "jobs",
        f"jobs/{upload.name}",
        f"jobs/job-{prepopulated.id}.log",
        f"jobs/job-{scored.id}.log",
    }  # an evaluation's results are kept in the database now (issue 22), not in the data folder
    assert expected <= set(entries), sorted(set(expected) - set(entries))
    wrong = {name: oct(bits) for name, bits in entries.items() if bits != (0o700 if (data / name).is_dir() else 0o600)}
    assert wrong == {}


def test_a_job_log_or_upload_left_with_a_wider_mode_is_narrowed_when_written_again(tmp_path: Path) -> None:
    log = tmp_path / "job-1.log"
    log.write_text("started\n")
    log.chmod(0o644)
    with open_private(log, "ab") as out:
        out.write(b"again\n")
    assert mode(log) == 0o600 and log.read_text() == "started\nagain\n"


def test_the_dictionary_cache_is_owner_only(tmp_path: Path) -> None:
    root = tmp_path / "home" / "cache" / "annotator"  # none of it exists yet
    jieba_tokenizer(root)
    written = modes_under(tmp_path / "home")
    assert any(name.endswith(".bin") for name in written), written
    wrong = {
        name: oct(bits)
        for name, bits in written.items()
        if bits != (0o700 if (tmp_path / "home" / name).is_dir() else 0o600)
    }
    assert wrong == {}
