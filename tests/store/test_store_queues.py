"""``store/queues.py``: the Curate and Review lists in import order, filtered by status and text; progress counts
that leave out excluded items and rows of a running import."""

from __future__ import annotations

import pytest
from store_rows import add_items, begin_staging, item

from annotator.domain.model import DiscardReason, ItemLanguage, Status
from annotator.project import Project

pytestmark = pytest.mark.both_engines


def _set(project: Project, item_id: str, lang: str, status: Status, by: str = "ivo", **fields: object) -> None:
    with project.db.write() as conn:
        current = project.repo.get_item_language(conn, item_id, lang)
        assert current is not None
        new = ItemLanguage(item_id, lang, status, current.version, status_by=by, **fields)  # type: ignore[arg-type]
        project.repo.save_item_language(conn, new, current.version, by, status.value)


@pytest.fixture
def queued(project: Project) -> Project:
    """Five items in import order c, a, b, e, d over IT and DE; b excluded; some curated."""
    add_items(
        project,
        [
            item("c", "bank"),
            item("a", "Bark", sentence="The dog's BARK woke us."),
            item("b", "bank", excluded=True),
            item("e", "pitch"),
            item("d", "bat"),
        ],
        langs=("IT", "DE"),
    )
    _set(project, "a", "IT", Status.DONE)
    _set(project, "b", "IT", Status.DONE)
    _set(project, "e", "IT", Status.DISCUSS, by="ida", discuss_note="which pitch?")
    _set(project, "d", "DE", Status.DISCARDED, discard_reason=DiscardReason.IDIOM)
    return project


def test_the_queue_is_in_import_order_filtered_by_status_and_text(queued: Project) -> None:
    repo = queued.repo
    with queued.db.read() as conn:
        everything = repo.queue(conn, "IT")
        assert [e.item_id for e in everything] == ["c", "a", "e", "d"]  # b excluded
        assert [e.item_id for e in repo.queue(conn, "IT", include_excluded=True)] == ["c", "a", "b", "e", "d"]
        assert [e.item_id for e in repo.queue(conn, "IT", [Status.DONE])] == ["a"]
        assert [e.item_id for e in repo.queue(conn, "IT", [Status.PENDING, Status.DISCUSS])] == ["c", "e", "d"]
        assert [e.item_id for e in repo.queue(conn, "IT", search="  bark ")] == ["a"]  # lemma, any case
        assert [e.item_id for e in repo.queue(conn, "IT", search="dog's")] == ["a"]  # the sentence
        assert [e.item_id for e in repo.queue(conn, "IT", search="D")] == ["a", "d"]  # id "d", "dog"
        assert repo.queue(conn, "ZH") == []
        for statuses, search in ((None, ""), ([Status.PENDING], ""), (None, "bank")):
            ids = [e.item_id for e in repo.queue(conn, "IT", statuses, search)]
            assert repo.queue_ids(conn, "IT", statuses, search) == ids
    a = everything[1]
    assert (a.lang, a.status, a.lemma, a.target_text, a.version) == ("IT", Status.DONE, "Bark", "Bark", 1)
    assert (a.target_start, a.target_end, a.sentence) == (0, 4, "The dog's BARK woke us.")


def test_counts_leave_out_excluded_items_and_both_ways_of_counting_agree(queued: Project) -> None:
    with queued.db.read() as conn:
        counts = queued.repo.status_counts(conn)
        per_lang = {lang: queued.repo.lang_status_counts(conn, lang) for lang in ("IT", "DE", "ZH")}
        by_user = sorted(queued.repo.status_counts_by_user(conn))
    assert counts == {"IT": {"pending": 2, "done": 1, "discuss": 1}, "DE": {"pending": 3, "discarded": 1}}
    assert per_lang == {"IT": counts["IT"], "DE": counts["DE"], "ZH": {}}
    assert by_user == [("ida", "IT", "discuss", 1), ("ivo", "DE", "discarded", 1), ("ivo", "IT", "done", 2)]


def test_counts_and_queues_leave_out_a_running_import(queued: Project) -> None:
    with queued.db.read() as conn:
        before = queued.repo.status_counts(conn), queued.repo.queue_ids(conn, "IT")
    begin_staging(queued, [item("staged")])
    with queued.db.read() as conn:
        assert queued.repo.status_counts(conn) == before[0]
        assert queued.repo.lang_status_counts(conn, "IT") == before[0]["IT"]
        assert queued.repo.queue_ids(conn, "IT") == before[1]
        assert queued.repo.queue_with_states(conn, ["IT"], Status.PENDING)[-1][0].item_id == "d"


def test_review_lists_go_language_by_language_with_their_notes(queued: Project) -> None:
    _set(queued, "c", "DE", Status.DISCUSS, discuss_note="German too")
    with queued.db.read() as conn:
        pairs = queued.repo.queue_with_states(conn, ["DE", "IT"], Status.DISCUSS)
        done = queued.repo.queue_with_states(conn, ["IT"], Status.DONE)
        discarded = queued.repo.queue_with_states(conn, ["DE"], Status.DISCARDED)
    assert [(e.item_id, e.lang) for e, _s in pairs] == [("c", "DE"), ("e", "IT")]
    entry, state = pairs[1]
    assert (state.item_id, state.discuss_note, state.status_by, state.updated_by) == ("e", "which pitch?", "ida", "ida")
    assert entry.lemma == "pitch" and state.updated_at
    assert [e.item_id for e, _s in done] == ["a", "b"]  # excluded items too: the lead sees them in Review
    assert discarded[0][1].discard_reason is DiscardReason.IDIOM
