"""Issue 22: an evaluation the Evaluate page started is kept in the database (``services.job_files``) as the files
``write_results`` writes plus the scored items; read back, it is the same run: the same ``analysed.jsonl`` and
``metrics.json`` byte for byte, the same verdict hashes for the inspection queue. Files are stored in compressed
parts, and only the newest finished job's files and the ones being kept are held."""

from __future__ import annotations

from pathlib import Path

import pytest
from project_helpers import build_demo

from annotator.clock import utc_now
from annotator.domain.jobs import JobKind, JobState
from annotator.evaluation.inspection import content_hash
from annotator.evaluation.run import ANALYSED_FILE, METRICS_FILE, create_analyser, evaluate, write_results
from annotator.project import Project, builtin_path
from annotator.services import job_files
from annotator.services.evaluate_project import prepare_current
from annotator.services.evaluation_results import load_result, save_result
from annotator.store import schema
from annotator.store.job_files import JobFileRecords

pytestmark = pytest.mark.both_engines


@pytest.fixture
def demo(copy_project, tmp_path: Path) -> Project:
    return Project.open(copy_project("demo", build_demo, tmp_path / "data"))


def new_job(project: Project, kind: JobKind, done: bool = True) -> int:
    with project.db.write() as conn:
        job_id = project.repo.insert_job(conn, kind, "lead", {"page": True}, utc_now())
        if done:
            project.repo.update_job(conn, job_id, state=JobState.DONE)
    return job_id


def test_a_kept_run_reads_back_as_the_same_run(demo: Project, tmp_path: Path) -> None:
    dataset, translations = prepare_current(demo, builtin_path("demo/translations.jsonl"))
    result = evaluate(dataset, translations, create_analyser("default"))
    job_id = new_job(demo, JobKind.EVALUATE)
    assert save_result(demo, job_id, result) == ["analysed.jsonl", "items.jsonl", "metrics.json"]

    kept = load_result(demo, job_id)
    write_results(result, tmp_path / "run")
    write_results(kept, tmp_path / "kept")
    for name in (ANALYSED_FILE, METRICS_FILE):
        assert (tmp_path / "kept" / name).read_bytes() == (tmp_path / "run" / name).read_bytes(), name
    assert kept.metrics == result.metrics and kept.created == result.created and kept.skipped == result.skipped
    assert [content_hash(r) for r in kept.results] == [content_hash(r) for r in result.results]
    assert [r.item for r in kept.results] == [r.item for r in result.results]
    assert any(r.match.both_matched for r in kept.results) or len(kept.results) > 100


def test_a_file_is_kept_in_compressed_parts_and_read_back_whole(demo: Project, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(JobFileRecords, "job_file_part_bytes", 1000)  # many parts from a small file
    folder = tmp_path / "out"
    folder.mkdir()
    data = "".join(f"line {n} città 城市\n" for n in range(500)).encode("utf-8")
    (folder / "big.txt").write_bytes(data)
    (folder / "empty.txt").write_bytes(b"")
    job_id = new_job(demo, JobKind.EXPORT)
    assert job_files.keep_folder(demo, job_id, JobKind.EXPORT, folder) == ["big.txt", "empty.txt"]
    with demo.db.read() as conn:
        parts = conn.execute(schema.job_files.select().where(schema.job_files.c.name == "big.txt")).all()
    assert len(parts) == -(-len(data) // 1000) and all(len(row.data) < 1000 for row in parts)
    assert job_files.read_bytes(demo, job_id, "big.txt") == data
    assert list(job_files.lines(demo, job_id, "big.txt")) == data.split(b"\n")[:-1]
    assert job_files.read_bytes(demo, job_id, "empty.txt") == b""
    with pytest.raises(Exception, match="no longer kept"):
        job_files.read_bytes(demo, job_id, "missing.txt")


def test_only_the_newest_finished_job_s_files_are_held(demo: Project, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "f.txt").write_text("x")
    first, second = new_job(demo, JobKind.EXPORT), new_job(demo, JobKind.EXPORT)
    job_files.keep_folder(demo, first, JobKind.EXPORT, folder)
    job_files.keep_folder(demo, second, JobKind.EXPORT, folder)
    running = new_job(demo, JobKind.EXPORT, done=False)
    job_files.keep_folder(demo, running, JobKind.EXPORT, folder)  # the newest done one is shown meanwhile: kept
    assert [job_files.file_names(demo, job) for job in (first, second, running)] == [[], ["f.txt"], ["f.txt"]]
    evaluation = new_job(demo, JobKind.EVALUATE)
    job_files.keep_folder(demo, evaluation, JobKind.EVALUATE, folder)  # another kind: nothing of the exports goes
    assert job_files.file_names(demo, second) == ["f.txt"]


def test_a_kept_live_run_keeps_its_items_domains(demo: Project, tmp_path: Path) -> None:
    """The kept run's items carry their domain, so the Evaluate page's report of it breaks the scores down too."""
    with demo.db.write() as conn:
        conn.exec_driver_sql("UPDATE items SET domain = 'news' WHERE id = 'head-stream'")
    dataset, translations = prepare_current(demo, builtin_path("demo/translations.jsonl"))
    result = evaluate(dataset, translations, create_analyser("default"))
    job_id = new_job(demo, JobKind.EVALUATE)
    save_result(demo, job_id, result)

    kept = load_result(demo, job_id)
    assert {r.item.domain for r in kept.results} == {"news", None}
    assert [row.to_dict() for row in kept.by_domain] == [row.to_dict() for row in result.by_domain] != []
    write_results(kept, tmp_path / "kept")
    assert '"by_domain"' in (tmp_path / "kept" / METRICS_FILE).read_text(encoding="utf-8")
