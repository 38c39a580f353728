"""Background jobs: the pure rules, the service with real worker processes, the command line, and the Project page
(a job started in one browser session is seen finished in another; a SIGKILLed worker is shown failed and a rerun
finishes the work without doing any of it twice)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_helpers import logged_in, plain
from project_helpers import dump, rewind_schema

from annotator.commands.project import DEMO_ITEMS, DEMO_SNAPSHOT
from annotator.domain import jobs as rules
from annotator.domain.jobs import Job, JobKind, JobState
from annotator.domain.model import Role
from annotator.errors import PermissionDenied
from annotator.project import LexiconSettings, Project, ProjectSettings, builtin_path
from annotator.services import jobs
from annotator.services.accounts import add_user
from annotator.services.importing import import_items

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "benchmarks"))
from synthetic import LANGS, write_inputs  # noqa: E402  (the benchmarks' synthetic-project builder)


def demo_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: bool = True) -> Project:
    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(
        ProjectSettings(name="p", lexicon=LexiconSettings(provider="snapshot", snapshot=DEMO_SNAPSHOT))
    )
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    add_user(project, "ivo", Role.TRANSLATOR, ("IT",), "translator-password")
    if items:
        import_items(project, builtin_path(DEMO_ITEMS))
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return project


def prepopulation_history(project: Project) -> list[tuple[str, str]]:
    with project.db.read() as conn:
        rows = conn.exec_driver_sql("SELECT item_id, lang FROM history WHERE action = 'prepopulate'").all()
    return [tuple(r) for r in rows]


def prepopulated(project: Project) -> int:
    with project.db.read() as conn:
        return sum(s.prepopulated for s in project.repo.iter_item_languages(conn))


# --- pure rules ---------------------------------------------------------------------------------------------


def job(**values: object) -> Job:
    base = {"id": 1, "kind": JobKind.PREPOPULATE, "user": "lena", "params": {}, "state": JobState.RUNNING}
    return Job(**{**base, **values})  # type: ignore[arg-type]


def test_death_reasons() -> None:
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    fresh = (now - timedelta(seconds=5)).isoformat()
    old = (now - timedelta(seconds=600)).isoformat()
    here = job(worker_pid=42, worker_host="h", heartbeat_at=old)
    assert "process 42 died" in (rules.death_reason(here, now, "h", pid_alive=False) or "")
    assert rules.death_reason(here, now, "h", pid_alive=True) is None  # the process table wins on its own host
    elsewhere = job(worker_pid=42, worker_host="other", heartbeat_at=old)
    assert "no heartbeat" in (rules.death_reason(elsewhere, now, "h", pid_alive=None) or "")
    assert rules.death_reason(job(worker_pid=42, worker_host="other", heartbeat_at=fresh), now, "h", None) is None
    assert rules.death_reason(job(state=JobState.DONE, worker_pid=42, worker_host="h"), now, "h", False) is None


def test_a_worker_is_recognised_by_its_command_line_even_while_exec_fills_it_in() -> None:
    assert jobs.runs_job(b"python\0-m\0annotator.cli\0jobs\0work\x007\0", 7)
    assert not jobs.runs_job(b"python\0-m\0annotator.cli\0jobs\0work\x007\0", 8)  # a pid reused by another job
    assert not jobs.runs_job(b"vim\0notes.txt\0", 7)  # ... or by another program
    # Popen returns once exec has closed its pipe, before the kernel has set the new command line: a worker
    # checked at that moment used to look dead, and its job was failed before it started
    assert jobs.runs_job(b"", 7)
    script = "import time; print('running', flush=True); time.sleep(60)"
    with subprocess.Popen([sys.executable, "-c", script, "work", "7"], stdout=subprocess.PIPE, text=True) as child:
        try:
            assert jobs.pid_alive(child.pid, 7)  # at once, whether or not the kernel has filled its command line in
            # another job's number is told apart only by the command line: checked once the child runs its own
            # code, so the kernel has set it (checked at once, a busy machine still showed the empty one)
            assert child.stdout is not None and child.stdout.readline() == "running\n"
            assert jobs.pid_alive(child.pid, 7)
            assert not jobs.pid_alive(child.pid, 8)
        finally:
            child.kill()
    assert not jobs.pid_alive(child.pid, 7)


def test_progress_writes_are_throttled_but_the_last_one_is_kept() -> None:
    assert rules.due(float("-inf"), 0.0, 1, 100)
    assert not rules.due(10.0, 10.1, 2, 100)
    assert rules.due(10.0, 10.3, 3, 100)
    assert rules.due(10.0, 10.01, 100, 100)


def test_the_message_names_the_job_holding_the_slot() -> None:
    text = rules.already_running_message(job(id=7, done=3, total=10))
    assert "job 7" in text and "lena" in text and "3/10" in text and "cancel" in text


# --- service ----------------------------------------------------------------------------------------------


def test_one_job_per_kind_at_a_time_and_a_queued_one_can_be_cancelled(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    first = jobs.start(project, "prepopulate", launch=False)  # queued, no worker yet
    before = dump(project)
    with pytest.raises(jobs.JobRefused, match=f"already queued \\(job {first.id}, started by cli"):
        jobs.start(project, JobKind.PREPOPULATE, launch=False)
    assert dump(project) == before
    other = jobs.start(project, JobKind.FILTERS, launch=False)  # another kind is independent
    assert other.state is JobState.QUEUED
    cancelled = jobs.cancel(project, first.id)
    assert cancelled.state is JobState.CANCELLED and cancelled.finished_at
    assert jobs.work(project, first.id).state is JobState.CANCELLED  # a worker arriving late does nothing
    assert prepopulated(project) == 0
    with pytest.raises(jobs.JobRefused, match="already cancelled"):
        jobs.cancel(project, first.id)
    again = jobs.start(project, JobKind.PREPOPULATE, launch=False)
    assert again.id != first.id


def test_bad_parameters_and_translators_are_refused(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    before = dump(project)
    with pytest.raises(jobs.JobRefused, match="needs the item file"):
        jobs.start(project, "import", {}, launch=False)
    with pytest.raises(jobs.JobRefused, match=r"nope\.csv: no such file"):
        jobs.start(project, "import", {"file": str(tmp_path / "nope.csv")}, launch=False)
    with pytest.raises(jobs.JobRefused, match="Unknown job kind 'reindex'"):
        jobs.start(project, "reindex", launch=False)
    with pytest.raises(jobs.JobRefused, match="Not project languages: XX"):
        jobs.start(project, "prepopulate", {"languages": ["XX"]}, launch=False)
    with project.db.read() as conn:
        translator = project.repo.get_user(conn, "ivo")
    with pytest.raises(PermissionDenied):
        jobs.start(project, "prepopulate", user=translator, launch=False)
    assert dump(project) == before


def test_a_worker_runs_the_job_and_records_its_result(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    started = jobs.start(project, JobKind.PREPOPULATE)
    assert started.worker_pid and started.worker_host == jobs.host_name()
    finished = jobs.wait(project, started.id, timeout=120)
    assert finished.state is JobState.DONE, finished
    assert finished.result and finished.result["item_languages"] == 90 and finished.done == finished.total == 18
    assert finished.started_at and finished.finished_at and finished.heartbeat_at
    assert prepopulated(project) == 90
    with project.db.read() as conn:
        assert [e["action"] for e in project.repo.audit(conn)] == ["prepopulate", "import"]


def test_a_running_job_is_cancelled_at_its_next_progress_report(tmp_path, monkeypatch) -> None:
    # every progress update is a report, so the cancel is seen at the next item however fast the machine runs
    monkeypatch.setenv(jobs.PROGRESS_INTERVAL_ENV, "0")
    project = synthetic_project(tmp_path, monkeypatch, items=600)
    started = jobs.start(project, JobKind.PREPOPULATE)
    wait_for_progress(project, started.id, at_least=1)
    jobs.cancel(project, started.id)
    ended = jobs.wait(project, started.id, timeout=120)
    assert ended.state is JobState.CANCELLED and ended.message.startswith("cancelled at "), ended
    kept = prepopulated(project)
    assert kept < 600 * len(LANGS)
    assert len(prepopulation_history(project)) == kept  # the batches written before the stop are kept


def synthetic_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: int) -> Project:
    item_file, snapshot = write_inputs(tmp_path, items, lemmas=max(1, items // 5), senses=6)
    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(
        ProjectSettings(name="s", languages=LANGS, lexicon=LexiconSettings(provider="snapshot", snapshot=str(snapshot)))
    )
    add_user(project, "lena", Role.LEAD, (), "lead-password")
    import_items(project, item_file)
    monkeypatch.setenv("ANNOTATOR_DATA", str(project.data_dir))
    monkeypatch.delenv("ANNOTATOR_DATABASE_URL", raising=False)
    return project


def wait_for_progress(project: Project, job_id: int, at_least: int) -> Job:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        current = jobs.get(project, job_id)
        assert current.active, current
        if current.state is JobState.RUNNING and current.done >= at_least:
            return current
        time.sleep(0.02)
    raise AssertionError("the job made no progress")


def test_a_killed_worker_is_failed_and_a_rerun_finishes_without_duplicate_work(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(jobs.PROGRESS_INTERVAL_ENV, "0")  # progress seen at each item: the kill lands mid-run
    project = synthetic_project(tmp_path, monkeypatch, items=600)
    total = 600 * len(LANGS)
    started = jobs.start(project, JobKind.PREPOPULATE)
    wait_for_progress(project, started.id, at_least=250)  # past the first committed batch of 200 items
    os.kill(started.worker_pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while (listed := jobs.list_jobs(project)[0]).active and time.monotonic() < deadline:
        time.sleep(0.05)  # the reaper thread collects the dead process
    assert listed.id == started.id and listed.state is JobState.FAILED
    assert f"worker process {started.worker_pid} died" in (listed.error or "") and "run the job again" in listed.error
    kept = prepopulated(project)
    assert 0 < kept < total
    assert len(prepopulation_history(project)) == kept

    rerun = jobs.wait(project, jobs.start(project, JobKind.PREPOPULATE).id, timeout=180)
    assert rerun.state is JobState.DONE, rerun
    assert rerun.result and rerun.result["already_done"] == kept and rerun.result["item_languages"] == total - kept
    history = prepopulation_history(project)
    assert len(history) == total and len(set(history)) == total  # every item-language pre-populated exactly once
    assert prepopulated(project) == total


# --- command line -------------------------------------------------------------------------------------------


def cli(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ANNOTATOR_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "annotator.cli", "--data", str(data), "jobs", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def test_command_line_start_wait_list_and_refusals(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch, items=False)
    items = str(builtin_path(DEMO_ITEMS))
    done = cli("start", "import", "--file", items, "--wait", data=project.data_dir)
    assert done.returncode == 0, done.stderr
    assert "done: 18 added, 0 replaced, 0 unchanged" in done.stdout

    queued = jobs.start(project, JobKind.FILTERS, launch=False)
    before = dump(project)
    refused = cli("start", "filters", data=project.data_dir)
    assert refused.returncode == 2 and f"job {queued.id}" in refused.stderr and "Traceback" not in refused.stderr
    assert dump(project) == before
    assert cli("cancel", str(queued.id), data=project.data_dir).returncode == 0

    listing = cli("list", data=project.data_dir)
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    assert lines[0].split()[:3] == ["id", "kind", "state"]
    assert any(line.split()[:3] == [str(queued.id), "filters", "cancelled"] for line in lines)
    assert any("18 added" in line and " done " in line for line in lines)
    unknown = cli("cancel", "999", data=project.data_dir)
    assert unknown.returncode == 2 and "No job 999" in unknown.stderr


def test_an_old_project_gets_the_jobs_table(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    with project.db.write() as conn:
        rewind_schema(conn, "0004")
    project.db.dispose()
    reopened = Project.open(project.data_dir)
    assert reopened.db.schema_revision() >= "0005"
    assert jobs.list_jobs(reopened) == [] and reopened.repo is not None


# --- the app ------------------------------------------------------------------------------------------------


def test_a_job_started_in_one_session_is_seen_finished_in_another(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    first = logged_in("lena", "lead-password")
    first.switch_page("pages/project.py").run()
    first.button(key="project_prepopulate").click().run()
    assert not first.exception, first.exception
    assert any("started in the background" in i.value for i in first.info)
    running = jobs.list_jobs(project)
    assert [j.kind for j in running] == [JobKind.PREPOPULATE]
    del first  # the lead leaves: the browser session is gone, the worker is not

    finished = jobs.wait(project, running[0].id, timeout=120)
    assert finished.state is JobState.DONE and prepopulated(project) == 90

    second = logged_in("lena", "lead-password")
    second.switch_page("pages/project.py").run()
    assert not second.exception, second.exception
    lines = [plain(s.value) for s in second.success]
    assert any(f"Job {finished.id} · prepopulate · done · by lena: 90 item-languages pre-populated" in s for s in lines)


def test_export_and_evaluation_jobs_write_their_folders(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch)
    jobs.wait(project, jobs.start(project, JobKind.PREPOPULATE).id, timeout=120)
    exported = jobs.wait(
        project, jobs.start(project, "export", {"out": str(tmp_path / "exports"), "include_incomplete": True}).id, 120
    )
    assert exported.state is JobState.DONE, exported
    folder = Path(exported.result["path"])
    assert folder.parent == tmp_path / "exports" and (folder / "dataset.jsonl").is_file()
    assert jobs.latest_result_path(project, JobKind.EXPORT) == str(folder)
    assert len((folder / "dataset.jsonl").read_text(encoding="utf-8").splitlines()) == 18

    params = {
        "dataset": str(folder / "dataset.jsonl"),
        "translations": str(builtin_path("demo/translations.jsonl")),
        "out": str(tmp_path / "scored"),
    }
    scored = jobs.wait(project, jobs.start(project, JobKind.EVALUATE, params).id, timeout=180)
    assert scored.state is JobState.DONE, scored
    assert (tmp_path / "scored" / "metrics.json").is_file() and scored.result["summary"].startswith("Scored ")


def test_a_refused_import_job_fails_with_the_row_message_and_changes_no_data(tmp_path, monkeypatch) -> None:
    project = demo_project(tmp_path, monkeypatch, items=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence": "A bank.", "target": "bank", "lemma": "bank", "pos": "XX", "synset": "bn:1n"}\n')
    before = {name: rows for name, rows in dump(project).items() if name != "jobs"}
    done = cli("start", "import", "--file", str(bad), "--wait", data=project.data_dir)
    assert done.returncode == 1, done.stdout + done.stderr
    (failed,) = jobs.list_jobs(project)
    assert failed.state is JobState.FAILED and "bad.jsonl" in failed.error and "row 1" in failed.error
    assert "pos" in failed.error and f"job {failed.id} failed: " in done.stdout
    assert {name: rows for name, rows in dump(project).items() if name != "jobs"} == before


# --- progress of a running import (issue 10) -----------------------------------------------------------------


def record_job_updates(project: Project) -> None:
    """Every change of a ``jobs`` row, as the worker writes it, kept in order by a trigger: the job's history,
    independent of when (or whether) a poller happens to look."""
    with project.db.write() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE job_updates (n INTEGER PRIMARY KEY, job INTEGER, state TEXT, done INTEGER, total INTEGER, "
            "message TEXT)"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER job_updated AFTER UPDATE ON jobs BEGIN INSERT INTO job_updates (job, state, done, total, "
            "message) VALUES (new.id, new.state, new.done, new.total, new.message); END"
        )


def test_an_import_job_shows_its_progress_while_it_reads_and_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_jsonl
) -> None:
    """The worker writes its progress while the import runs (reading the file was seconds without a word): every
    step it reports is in the job's history, written while the job was still running. The throttle is set to 0
    so that what is checked is which steps are reported, not how fast this machine is."""
    from project_helpers import SAMPLE_ITEMS

    project = demo_project(tmp_path, monkeypatch, items=False)
    record_job_updates(project)
    monkeypatch.setenv(jobs.PROGRESS_INTERVAL_ENV, "0")
    rows = [dict(SAMPLE_ITEMS[n % 2], id=f"row-{n:05d}") for n in range(3000)]
    started = jobs.start(project, JobKind.IMPORT, {"file": str(write_jsonl("big.jsonl", rows))})
    finished = jobs.wait(project, started.id, timeout=300)
    assert finished.state is JobState.DONE, finished.error
    with project.db.read() as conn:
        updates = conn.exec_driver_sql(
            "SELECT state, done, total, message FROM job_updates WHERE job = ? ORDER BY n", (started.id,)
        ).all()
    running = [(done, total, message) for state, done, total, message in updates if state == "running"]
    assert ("reading the file" in {m for _d, _t, m in running}) and (1000, 3000, "reading") in running
    assert (2000, 3000, "checking") in running
    assert (500, 3000, "writing") in running and (2500, 3000, "writing") in running
    assert updates[-1][0] == "done" and [u for u in updates if u[0] == "done"] == updates[-1:]
