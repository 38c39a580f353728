"""Pre-population against a broken or hostile BabelNet (issue 20, point 7): exit codes, jobs, nothing recorded or
cached for what failed, no key stored, and ``prepopulate --redo`` (audited, never silently over curated work).

The server is the real local HTTP fake; the command line runs in-process (``annotator.cli.main``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_babelnet import DEFAULT_KEY, FakeBabelNet
from prepopulate_data import ROWS, SNAPSHOT, sense
from project_helpers import dump

from annotator.cli import main
from annotator.domain.jobs import JobState
from annotator.domain.model import Side, Status
from annotator.errors import UserError
from annotator.lexicon.babelnet import DEADLINE_ENV, MAX_ANSWER_ENV, SYNSET_ENDPOINT, BabelNetLexicon
from annotator.lexicon.http_cache import HttpCache
from annotator.project import Project
from annotator.services import jobs
from annotator.services.curation import CurationService
from annotator.services.importing import import_items
from annotator.services.prepopulate import REDO_ACTION, Redo, prepopulate

ALL_ITEMS = "drink, drink-2, fire, verb"


@pytest.fixture
def server() -> Iterator[FakeBabelNet]:
    with FakeBabelNet(SNAPSHOT) as running:
        yield running


@pytest.fixture
def cli_project(tmp_path: Path, server: FakeBabelNet, write_jsonl, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project on SQLite using the fake BabelNet, with the four test items imported; returns its data folder."""
    for name in ("ANNOTATOR_DATABASE_URL", DEADLINE_ENV, MAX_ANSWER_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    assert main(["init", "--data", str(data), "--babelnet", "--babelnet-url", server.base_url]) == 0
    assert main(["import", str(write_jsonl("items.jsonl", ROWS)), "--data", str(data)]) == 0
    return data


def without_audit(project: Project) -> dict[str, list[tuple]]:
    """Every table but the audit trail (which records the failed run, as it should)."""
    return {table: rows for table, rows in dump(project).items() if table not in ("audit", "jobs")}


def last_audit(project: Project) -> dict:
    with project.db.read() as conn:
        return project.repo.audit(conn, limit=1)[0]


def cached(data: Path, endpoint: str) -> int:
    with HttpCache(data / "babelnet-cache.sqlite") as cache:
        return cache.count(endpoint)


def prepopulated(project: Project) -> int:
    with project.db.read() as conn:
        return sum(1 for s in project.repo.iter_item_languages(conn) if s.prepopulated)


def prepopulate_cli(data: Path, *extra: str) -> int:
    return main(["prepopulate", "--data", str(data), *extra])


# --- a run where requests fail ---------------------------------------------------------------------------------


def test_a_run_where_every_request_fails_exits_non_zero_naming_the_items(
    server: FakeBabelNet, cli_project: Path, capsys
) -> None:
    """The fault: every request answered "Wrong parameters." skipped every item, yet the run exited 0."""
    project = Project.open(cli_project)
    before = without_audit(project)
    server.answer_next(None, {"message": "Wrong parameters."}, status=400)
    assert prepopulate_cli(cli_project) == 4
    out = capsys.readouterr().out
    assert f"Finished with errors: 20 item-language(s) of 4 item(s) failed: {ALL_ITEMS}." in out
    assert "run 'annotator prepopulate' again to retry them" in out
    assert without_audit(project) == before
    assert last_audit(project)["detail"]["outcome"] == "partial"
    server.clear_faults()
    assert prepopulate_cli(cli_project) == 0 and prepopulated(project) == 20


def test_empty_getsynset_answers_record_nothing_cache_nothing_and_exit_non_zero(
    server: FakeBabelNet, cli_project: Path, capsys
) -> None:
    """The fault: `{}` answers were recorded as a clean run (empty GOOD/BAD, gloss and senses wiped) and cached."""
    project = Project.open(cli_project)
    before = without_audit(project)
    server.answer_next(None, {}, endpoint=SYNSET_ENDPOINT)
    assert prepopulate_cli(cli_project) == 4
    out = capsys.readouterr().out
    assert "answered no senses; taken as an error" in out and ALL_ITEMS in out
    assert without_audit(project) == before  # gloss, senses, GOOD/BAD, history: untouched
    assert cached(cli_project, SYNSET_ENDPOINT) == 0
    server.clear_faults()
    assert prepopulate_cli(cli_project) == 0 and prepopulated(project) == 20
    with project.db.read() as conn:
        drink = project.repo.get_item(conn, "drink")
        it = project.repo.get_item_language(conn, "drink", "IT")
    assert drink.gloss == "a small drink of liquor" and len(drink.senses) == 3
    assert [c.text for c in it.good] == ["goccio", "colpo", "bicchierino"]


def test_a_dripping_server_stops_the_run_within_the_deadline(
    server: FakeBabelNet, cli_project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    project = Project.open(cli_project)
    before = without_audit(project)
    monkeypatch.setenv(DEADLINE_ENV, "2")
    server.drip_next(None, 0.5)
    started = time.monotonic()
    assert prepopulate_cli(cli_project) == 3
    assert time.monotonic() - started < 8  # one request's deadline, then the run stops (it used to hang for ever)
    assert "no complete answer within its 2 s deadline" in capsys.readouterr().out
    assert without_audit(project) == before and cached(cli_project, "getSynsetIds") == 0
    assert last_audit(project)["detail"]["outcome"] == "stopped"


def test_a_400_mb_answer_is_refused_and_nothing_is_cached(
    server: FakeBabelNet, cli_project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    project = Project.open(cli_project)
    before = without_audit(project)
    monkeypatch.setenv(MAX_ANSWER_ENV, "1")
    server.huge_next(None, 400_000_000, content_length=False, endpoint=SYNSET_ENDPOINT)
    assert prepopulate_cli(cli_project) == 4
    assert "answered more than 1 MB" in capsys.readouterr().out
    assert without_audit(project) == before and cached(cli_project, SYNSET_ENDPOINT) == 0
    assert server.streamed_bytes < 400_000_000


def test_a_key_echoed_by_the_server_is_stored_nowhere(server: FakeBabelNet, cli_project: Path, capsys) -> None:
    """The fault: a key echoed in a gloss or lemma went into the database."""
    server.echo_key_next(None)
    assert prepopulate_cli(cli_project) == 0
    assert DEFAULT_KEY not in capsys.readouterr().out
    project = Project.open(cli_project)
    with project.db.read() as conn:
        drink = project.repo.get_item(conn, "drink")
    assert drink.gloss == "a small drink of liquor (key <redacted>)"
    project.db.engine.dispose()
    stored = b"".join(path.read_bytes() for path in cli_project.iterdir() if path.is_file())
    assert DEFAULT_KEY.lower().encode() not in stored.lower() and b"<redacted>" in stored


# --- the same faults as a background job ----------------------------------------------------------------------


def test_a_job_with_failed_items_ends_failed_with_errors_not_done(server: FakeBabelNet, cli_project: Path) -> None:
    project = Project.open(cli_project)
    server.answer_next(None, {}, endpoint=SYNSET_ENDPOINT)
    job = jobs.work(project, jobs.start(project, "prepopulate", launch=False).id)
    assert job.state is JobState.FAILED
    assert job.error == f"finished with errors: 20 item-language(s) of 4 item(s) failed: {ALL_ITEMS}"


def test_a_job_against_a_dripping_server_ends_failed_within_the_deadline(
    server: FakeBabelNet, cli_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fault: the job stayed "running" for ever, with fresh heartbeats."""
    monkeypatch.setenv(DEADLINE_ENV, "2")
    project = Project.open(cli_project)
    server.drip_next(None, 0.5)
    started = time.monotonic()
    job = jobs.work(project, jobs.start(project, "prepopulate", launch=False).id)
    assert time.monotonic() - started < 8
    assert job.state is JobState.FAILED and "no complete answer within its 2 s deadline" in job.error


# --- redo ------------------------------------------------------------------------------------------------------

#: BabelNet's data changed: Italian gained "cicchetto" for the drink sense.
CHANGED = {
    **SNAPSHOT,
    "synsets": [
        {**record, "senses": [*record["senses"], sense("cicchetto", "IT", "IWN")]}
        if record["id"] == "bn:00000003n"
        else record
        for record in SNAPSHOT["synsets"]
    ],
}


@pytest.mark.both_engines
def test_redo_takes_the_new_answers_and_leaves_curated_work_unless_forced(
    server: FakeBabelNet, project: Project, lead, write_jsonl, tmp_path: Path
) -> None:
    import_items(project, write_jsonl("items.jsonl", ROWS))
    lexicon = BabelNetLexicon(DEFAULT_KEY, HttpCache(tmp_path / "cache.sqlite"), server.base_url, environ={})
    assert prepopulate(project, lexicon=lexicon).item_languages == 20
    with project.db.read() as conn:
        it = project.repo.get_item_language(conn, "drink", "IT")
    CurationService(project, lead).add_candidate("drink", "IT", Side.GOOD, "grappino", it.version)  # curated

    server.set_data(CHANGED)
    assert prepopulate(project, lexicon=lexicon).item_languages == 0  # a normal run: all done already
    server.clear_log()
    report = prepopulate(project, languages=("IT",), lexicon=lexicon, redo=Redo())
    assert server.count() > 0  # asked BabelNet again, not the cache
    assert (report.item_languages, report.reopened, report.outcome) == (3, 0, "clean")
    assert report.curated_kept == [("drink", "IT", "in_progress")]
    with project.db.read() as conn:
        drink_it = project.repo.get_item_language(conn, "drink", "IT")
        drink2_it = project.repo.get_item_language(conn, "drink-2", "IT")
        drink2_de = project.repo.get_item_language(conn, "drink-2", "DE")
        history = project.repo.history(conn, "drink-2", "IT")
    assert [c.text for c in drink_it.good] == ["goccio", "colpo", "bicchierino", "grappino"]  # left as it was
    assert "cicchetto" in [c.text for c in drink2_it.good] and drink2_it.good == drink2_it.initial_good
    assert drink2_de.version == 1  # another language: not redone
    assert history[-1].detail["redo"] and history[-1].detail["previous_good"] == ["goccio", "colpo", "bicchierino"]
    audit = last_audit(project)
    assert audit["action"] == REDO_ACTION
    assert {k: audit["detail"][k] for k in ("items", "languages", "force", "curated_kept", "reopened")} == {
        "items": None,
        "languages": ["IT"],
        "force": False,
        "curated_kept": 1,
        "reopened": 0,
    }

    forced = prepopulate(project, languages=("IT",), lexicon=lexicon, redo=Redo(items=("drink",), force=True))
    assert (forced.item_languages, forced.reopened, forced.curated_kept) == (1, 1, [])
    with project.db.read() as conn:
        drink_it = project.repo.get_item_language(conn, "drink", "IT")
        last = project.repo.history(conn, "drink", "IT")[-1]
    assert drink_it.status is Status.PENDING and "grappino" not in [c.text for c in drink_it.good]
    assert "cicchetto" in [c.text for c in drink_it.good]
    assert last.detail["reopened_from"] == "in_progress" and "grappino" in last.detail["previous_good"]
    assert last_audit(project)["detail"]["items"] == ["drink"] and last_audit(project)["detail"]["force"]


@pytest.mark.both_engines
def test_a_redo_that_fails_keeps_the_previous_sets_and_refuses_unknown_items(
    server: FakeBabelNet, project: Project, write_jsonl, tmp_path: Path
) -> None:
    import_items(project, write_jsonl("items.jsonl", ROWS))
    lexicon = BabelNetLexicon(DEFAULT_KEY, HttpCache(tmp_path / "cache.sqlite"), server.base_url, environ={})
    prepopulate(project, lexicon=lexicon)
    before = without_audit(project)
    server.answer_next(None, {}, endpoint=SYNSET_ENDPOINT)
    report = prepopulate(project, lexicon=lexicon, redo=Redo(items=("drink", "fire")))
    assert report.outcome == "partial" and report.failed_items() == ["drink", "fire"]
    assert without_audit(project) == before  # the good sets from before are kept
    server.clear_faults()
    audits = len(dump(project)["audit"])
    with pytest.raises(UserError, match=r"No such item\(s\) in this project: nope, gone\. Nothing was changed"):
        prepopulate(project, lexicon=lexicon, redo=Redo(items=("drink", "nope", "gone")))
    with pytest.raises(UserError, match="Not languages of this project: FR"):
        prepopulate(project, languages=("FR",), lexicon=lexicon, redo=Redo())
    assert without_audit(project) == before and len(dump(project)["audit"]) == audits


def test_redo_damage_left_by_an_older_version_from_the_command_line(
    server: FakeBabelNet, cli_project: Path, capsys
) -> None:
    """Items an older version pre-populated from `{}` answers (empty sets, gloss and senses wiped) are redone."""
    assert prepopulate_cli(cli_project) == 0
    project = Project.open(cli_project)
    with project.db.write() as conn:  # what the old client recorded for `{}` answers
        project.repo.update_items_lexicon(conn, [("drink", "", []), ("fire", "", [])])
        for item_id in ("drink", "fire"):
            for state in project.repo.item_languages_of(conn, item_id).values():
                empty = state.__class__(**{**vars(state), "good": (), "bad": (), "initial_good": (), "initial_bad": ()})
                project.repo.save_item_language(conn, empty, state.version, "system:prepopulate", "prepopulate")
    capsys.readouterr()

    assert prepopulate_cli(cli_project, "--items", "drink") == 2  # --items needs --redo
    assert "--items, --force and --changed-only go with --redo" in capsys.readouterr().err
    assert prepopulate_cli(cli_project, "--redo", "--items", "drink,nope") == 2
    assert "No such item(s) in this project: nope" in capsys.readouterr().err

    assert prepopulate_cli(cli_project, "--redo", "--items", "drink, fire", "--lang", "IT,DE") == 0
    out = capsys.readouterr().out
    assert "4 item-languages pre-populated over 2 items" in out and "Curated" not in out
    with project.db.read() as conn:
        drink = project.repo.get_item(conn, "drink")
        it = project.repo.get_item_language(conn, "drink", "IT")
        es = project.repo.get_item_language(conn, "drink", "ES")
    assert drink.gloss == "a small drink of liquor" and len(drink.senses) == 3
    assert [c.text for c in it.good] == ["goccio", "colpo", "bicchierino"] and es.good == ()  # ES not chosen
    detail = last_audit(project)["detail"]
    assert (detail["items"], detail["languages"], detail["force"]) == (["drink", "fire"], ["IT", "DE"], False)
