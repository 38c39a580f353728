"""Pre-population through the real BabelNet client against a local fake server (issue 2, acceptance 2 and 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_babelnet import DEFAULT_KEY, FakeBabelNet
from prepopulate_data import ROWS, SNAPSHOT

from annotator.cli import main
from annotator.lexicon.babelnet import BabelNetLexicon
from annotator.lexicon.http_cache import HttpCache
from annotator.project import Project
from annotator.services.importing import import_items
from annotator.services.prepopulate import prepopulate

LEMMAS = 2  # (shot, NOUN) and (shot, VERB)
SYNSETS = 5  # 4 noun synsets (one without a WordNet sense of "shot") + 1 verb synset


@pytest.fixture
def server():
    with FakeBabelNet(SNAPSHOT) as running:
        yield running


def client(server: FakeBabelNet, cache_path: Path) -> BabelNetLexicon:
    return BabelNetLexicon(DEFAULT_KEY, HttpCache(cache_path), base_url=server.base_url, backoff_base=0.001)


def new_project(tmp_path: Path, name: str, write_jsonl) -> Project:
    project = Project.open(tmp_path / name, create=True)
    import_items(project, write_jsonl(f"{name}.jsonl", ROWS))
    return project


def il_count(project: Project) -> int:
    with project.db.read() as conn:
        return sum(1 for s in project.repo.iter_item_languages(conn) if s.prepopulated)


def test_exactly_L_getSynsetIds_and_2S_getSynset_then_zero(server, tmp_path: Path, write_jsonl) -> None:
    cache = tmp_path / "cache.sqlite"
    project = new_project(tmp_path, "one", write_jsonl)
    report = prepopulate(project, lexicon=client(server, cache))
    assert report.item_languages == 4 * 5
    assert server.count("getSynsetIds") == LEMMAS
    assert server.count("getSynset") == 2 * SYNSETS
    assert report.requests["getSynset requests"] == 2 * SYNSETS
    with project.db.read() as conn:
        drink = project.repo.get_item(conn, "drink")
        it = project.repo.get_item_language(conn, "drink", "IT")
    assert [s.rank for s in drink.senses] == [1, 2, 3] and drink.sense_rank == 3  # from wordNetSenseNumber
    assert [c.text for c in it.good] == ["goccio", "colpo", "bicchierino"]

    again = new_project(tmp_path, "two", write_jsonl)  # a second run over the same cache: zero requests
    server.clear_log()
    second = prepopulate(again, lexicon=client(server, cache))
    assert second.item_languages == 20 and server.count() == 0
    assert second.requests["getSynset from cache"] == 2 * SYNSETS


def test_quota_stops_cleanly_and_a_rerun_finishes(server, tmp_path: Path, write_jsonl) -> None:
    cache = tmp_path / "cache.sqlite"
    project = new_project(tmp_path, "p", write_jsonl)
    server.exhaust_quota_after(1 + 2 * 4)  # enough for (shot, NOUN); (shot, VERB) is refused
    report = prepopulate(project, lexicon=client(server, cache))
    assert report.stopped and "daily requests limit" in report.stopped
    assert il_count(project) == 15  # the three noun items are saved
    with project.db.read() as conn:
        audit = project.repo.audit(conn, limit=1)[0]["detail"]
    assert (audit["outcome"], audit["item_languages"], audit["stopped"]) == ("stopped", 15, report.stopped)
    server.lift_quota()
    server.clear_log()
    rerun = prepopulate(project, lexicon=client(server, cache))
    assert rerun.stopped is None and rerun.already_done == 15 and rerun.item_languages == 5
    assert il_count(project) == 20
    assert server.count("getSynsetIds") == 1 and server.count("getSynset") == 2  # nothing fetched twice


def test_transient_errors_are_retried(server, tmp_path: Path, write_jsonl) -> None:
    project = new_project(tmp_path, "p", write_jsonl)
    server.fail_next(2, 500)
    server.fail_next(1, 429)
    report = prepopulate(project, lexicon=client(server, tmp_path / "cache.sqlite"))
    assert report.item_languages == 20 and report.stopped is None


def test_cli_reports_the_quota_message_and_resumes(server, tmp_path: Path, write_jsonl, monkeypatch, capsys) -> None:
    data = tmp_path / "cli"
    monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--data", str(data), "--babelnet", "--babelnet-url", server.base_url]) == 0
    assert main(["import", str(write_jsonl("items.jsonl", ROWS)), "--data", str(data)]) == 0
    server.exhaust_quota_after(3)
    assert main(["prepopulate", "--data", str(data)]) == 3
    out = capsys.readouterr().out
    assert "daily requests limit" in out and "run 'annotator prepopulate' again" in out
    assert DEFAULT_KEY not in out
    server.lift_quota()
    assert main(["prepopulate", "--data", str(data)]) == 0
    assert il_count(Project.open(data)) == 20
    assert DEFAULT_KEY.encode() not in (data / "babelnet-cache.sqlite").read_bytes()


def test_cache_frozen_as_snapshot_reproduces_the_prepopulation(
    server, tmp_path: Path, write_jsonl, monkeypatch
) -> None:
    """`lexicon export-snapshot` freezes the BabelNet answers; a project on that snapshot gets the same sets."""
    monkeypatch.setenv("BABELNET_API_KEY", DEFAULT_KEY)
    monkeypatch.chdir(tmp_path)
    online, offline = tmp_path / "online", tmp_path / "offline"
    items = str(write_jsonl("items.jsonl", ROWS))
    assert main(["init", "--data", str(online), "--babelnet", "--babelnet-url", server.base_url]) == 0
    assert main(["import", items, "--data", str(online)]) == 0
    assert main(["prepopulate", "--data", str(online)]) == 0
    frozen = tmp_path / "frozen.jsonl"
    assert main(["lexicon", "export-snapshot", str(frozen), "--data", str(online)]) == 0
    server.exhaust_quota_after(0)  # BabelNet is now unreachable for this project
    assert main(["init", "--data", str(offline), "--snapshot", str(frozen)]) == 0
    assert main(["import", items, "--data", str(offline)]) == 0
    assert main(["prepopulate", "--data", str(offline)]) == 0

    def sets(data: Path) -> dict:
        project = Project.open(data)
        with project.db.read() as conn:
            return {
                (s.item_id, s.lang): ([c.format() for c in s.good], [c.format() for c in s.bad], s.overlaps)
                for s in project.repo.iter_item_languages(conn)
            }

    assert sets(offline) == sets(online)
    assert len(sets(offline)) == 20


def test_an_unreachable_server_stops_the_run_and_the_audit_says_so(server, tmp_path: Path, write_jsonl) -> None:
    project = new_project(tmp_path, "p", write_jsonl)
    server.fail_next(5, 503)  # the client tries 5 times, then gives up: no point trying every other item
    report = prepopulate(project, lexicon=client(server, tmp_path / "cache.sqlite"))
    assert report.outcome == "stopped" and "failed after 5 attempts: HTTP 503" in report.stopped
    assert (report.item_languages, report.skipped, il_count(project)) == (0, [], 0)
    assert server.count() == 5
    with project.db.read() as conn:
        audit = project.repo.audit(conn, limit=1)[0]["detail"]
    assert (audit["outcome"], audit["stopped"]) == ("stopped", report.stopped)
    rerun = prepopulate(project, lexicon=client(server, tmp_path / "cache.sqlite"))
    assert (rerun.outcome, rerun.item_languages) == ("clean", 20)


def test_a_synset_babelnet_does_not_know_is_skipped_and_named(server, tmp_path: Path, write_jsonl) -> None:
    from prepopulate_data import GHOST

    project = Project.open(tmp_path / "p", create=True)
    import_items(project, write_jsonl("items.jsonl", [GHOST, *ROWS]))
    report = prepopulate(project, lexicon=client(server, tmp_path / "cache.sqlite"))
    assert (report.outcome, report.item_languages, len(report.skipped)) == ("partial", 20, 5)
    assert {s.item_id for s in report.skipped} == {"ghost"}
    assert "bn:00000077n" in report.skipped[0].reason and report.warnings[0].startswith("ghost [DE ES IT RU ZH]")
