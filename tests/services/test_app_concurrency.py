"""Permissions and concurrency where changes are made (the service), not only in the page (issue 3, 3–4).

A translator's request for another language is refused with no change, whatever page or request sent it; two
writers on one item-language never lose an update: the stale one gets the conflict message.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from annotator.domain.model import DiscardReason, Role, Side, Status, User
from annotator.errors import ConflictError, PermissionDenied
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.accounts import add_user
from annotator.services.curation import LOCAL_USER, CurationService
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL
ITEM = "bank-river"


@pytest.fixture
def project(engine: str, tmp_path: Path) -> Project:
    project = Project.open(tmp_path / "data", create=True)
    project.save_settings(ProjectSettings(name="t", languages=("IT", "DE"), lexicon=LexiconSettings()))
    row = {"id": ITEM, "sentence": "They sat on the bank of the river.", "word": "bank", "lemma": "bank",
           "pos": "NOUN", "synset": "bn:00008364n"}  # fmt: skip
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    import_items(project, items)
    setup = CurationService(project, LOCAL_USER)
    setup.replace_candidates(ITEM, "IT", ["riva", "sponda"], ["banca"], 0)
    setup.replace_candidates(ITEM, "DE", ["Ufer"], ["Bank"], 0)
    add_user(project, "lena", Role.LEAD, (), "lead-password")  # a project's first account is a lead
    return project


def translator(project: Project) -> User:
    return add_user(project, "maria", Role.TRANSLATOR, ("IT",), "maria-password")


def test_a_translator_cannot_change_another_language_by_any_request(project: Project) -> None:
    service = CurationService(project, translator(project))
    with project.db.read() as conn:
        before = project.repo.table_counts(conn), project.repo.get_item_language(conn, ITEM, "DE")
    assert before[1] is not None
    version = before[1].version
    attempts = [
        lambda: service.add_candidate(ITEM, "DE", Side.GOOD, "Strand", version),
        lambda: service.remove_candidate(ITEM, "DE", "ufer", version),
        lambda: service.move_candidate(ITEM, "DE", "bank", Side.GOOD, version),
        lambda: service.replace_candidates(ITEM, "DE", ["Strand"], [], version),
        lambda: service.mark_done(ITEM, "DE", version),
        lambda: service.flag_discuss(ITEM, "DE", "why?", version),
        lambda: service.discard(ITEM, "DE", DiscardReason.IDIOM, "", version),
        lambda: service.reopen(ITEM, "DE", version),
        lambda: service.resolve(ITEM, "DE", Status.DONE, "ok", version),
        lambda: service.comment(ITEM, "DE", "hello"),
    ]
    for attempt in attempts:
        with pytest.raises(PermissionDenied, match="may not change DE"):
            attempt()
    with project.db.read() as conn:
        after = project.repo.table_counts(conn), project.repo.get_item_language(conn, ITEM, "DE")
    assert after == before
    # and their own language works
    service.add_candidate(ITEM, "IT", Side.GOOD, "argine", 1)


def test_two_concurrent_writers_one_wins_the_other_gets_the_conflict(project: Project) -> None:
    users = [translator(project), add_user(project, "luca", Role.TRANSLATOR, ("IT",), "luca-password")]
    barrier = threading.Barrier(2)
    outcome: dict[str, object] = {}

    def write(user: User, text: str) -> None:
        barrier.wait()
        try:
            outcome[user.name] = CurationService(project, user).add_candidate(ITEM, "IT", Side.GOOD, text, 1)
        except ConflictError as error:
            outcome[user.name] = error

    threads = [threading.Thread(target=write, args=(u, t)) for u, t in zip(users, ("argine", "proda"), strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    conflicts = [o for o in outcome.values() if isinstance(o, ConflictError)]
    assert len(outcome) == 2 and len(conflicts) == 1
    assert "was changed by" in str(conflicts[0]) and "not saved" in str(conflicts[0])
    winner = next(name for name, o in outcome.items() if not isinstance(o, ConflictError))
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, ITEM, "IT")
        history = project.repo.history(conn, ITEM, "IT")
    assert state is not None and state.version == 2 and state.updated_by == winner
    assert [e.text for e in state.good] == ["riva", "sponda", {"maria": "argine", "luca": "proda"}[winner]]
    assert conflicts[0].current is not None and conflicts[0].current.version in (1, 2)
    assert [(h.user, h.action) for h in history] == [("local", "edit"), (winner, "add")]


def test_writers_that_retry_after_a_conflict_lose_nothing(project: Project) -> None:
    """Eight threads each add one candidate, re-reading the version after a refusal: all eight end up saved."""
    user = translator(project)
    words = [f"riva{i}" for i in range(8)]
    refused: list[int] = []
    lock = threading.Lock()

    def write(word: str) -> None:
        service = CurationService(project, user)
        while True:
            version = service.view(ITEM, "IT").state.version
            try:
                service.add_candidate(ITEM, "IT", Side.GOOD, word, version)
                return
            except ConflictError:
                with lock:
                    refused.append(1)

    threads = [threading.Thread(target=write, args=(w,)) for w in words]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    state = CurationService(project, user).view(ITEM, "IT").state
    assert sorted(e.text for e in state.good) == sorted(["riva", "sponda", *words])
    assert state.version == 1 + len(words)
