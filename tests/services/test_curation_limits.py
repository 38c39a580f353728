"""Issue 14 items 3 and 8 at the service: notes, comments and candidate sets the spreadsheet round trip could not
carry are refused (database unchanged); only the flagger or a lead rewrites a DISCUSS note."""

from __future__ import annotations

import pytest
from project_helpers import SAMPLE_ITEMS, dump

from annotator.domain.limits import MAX_NOTE_LENGTH, MAX_SET_CHARS, LimitError
from annotator.domain.model import DiscardReason, Role, Side, Status, User
from annotator.errors import PermissionDenied
from annotator.project import Project
from annotator.services.accounts import add_user
from annotator.services.curation import CurationService
from annotator.services.importing import import_items


@pytest.fixture
def items(project: Project, write_jsonl) -> Project:
    import_items(project, write_jsonl("items.jsonl", SAMPLE_ITEMS))
    return project


def version(project: Project, item_id: str = "shot-whiskey", lang: str = "IT") -> int:
    with project.db.read() as conn:
        return project.repo.get_item_language(conn, item_id, lang).version


def test_a_49999_character_discuss_note_is_refused_and_nothing_changes(items: Project, translator_it: User) -> None:
    service = CurationService(items, translator_it)
    before = dump(items)
    with pytest.raises(LimitError) as caught:
        service.flag_discuss("shot-whiskey", "IT", "x" * 49_999, version(items))
    assert caught.value.rule == "note_too_long"
    assert "49,999" in str(caught.value) and f"{MAX_NOTE_LENGTH:,}" in str(caught.value)
    assert dump(items) == before


def test_a_5000000_character_comment_is_refused_and_nothing_changes(items: Project, translator_it: User) -> None:
    service = CurationService(items, translator_it)
    before = dump(items)
    with pytest.raises(LimitError, match="comment has 5,000,000 characters"):
        service.comment("shot-whiskey", "IT", "y" * 5_000_000)
    assert dump(items) == before


def test_resolution_comments_and_discard_notes_are_limited_too(items: Project, lead: User) -> None:
    service = CurationService(items, lead)
    state = service.add_candidate("shot-whiskey", "IT", Side.GOOD, "goccio", version(items))
    state = service.flag_discuss("shot-whiskey", "IT", "Which register?", state.version)
    before = dump(items)
    for attempt in (
        lambda: service.resolve("shot-whiskey", "IT", Status.DONE, "z" * (MAX_NOTE_LENGTH + 1), state.version),
        lambda: service.resolve(
            "shot-whiskey", "IT", Status.DISCARDED, "z" * (MAX_NOTE_LENGTH + 1), state.version, DiscardReason.OTHER
        ),
        lambda: service.discard("head-stream", "IT", "other", "n" * (MAX_NOTE_LENGTH + 1), 0),
        lambda: service.update_discuss_note("shot-whiskey", "IT", "u" * (MAX_NOTE_LENGTH + 1), state.version),
    ):
        with pytest.raises(LimitError):
            attempt()
    assert dump(items) == before
    # Exactly the limit is fine, and stored whole.
    saved = service.update_discuss_note("shot-whiskey", "IT", "w" * MAX_NOTE_LENGTH, state.version)
    assert saved.discuss_note == "w" * MAX_NOTE_LENGTH


def test_a_candidate_set_that_would_not_fit_a_cell_is_refused(items: Project, lead: User) -> None:
    service = CurationService(items, lead)
    lines = [f"candidato numero {n:04d} " + "x" * 70 for n in range(402)]  # 402 × 92 chars ≈ 37,000
    before = dump(items)
    with pytest.raises(LimitError) as caught:
        service.replace_candidates("shot-whiskey", "IT", lines, [], version(items))
    assert caught.value.rule == "set_too_long" and "GOOD" in str(caught.value)
    assert dump(items) == before
    # Filled to just under the limit, one more candidate is refused, a removal is not.
    fits = lines[: MAX_SET_CHARS // 93]
    state = service.replace_candidates("shot-whiskey", "IT", fits, [], version(items))
    assert [e.text for e in state.good] == fits
    before = dump(items)
    with pytest.raises(LimitError):
        service.add_candidate("shot-whiskey", "IT", Side.GOOD, "y" * 100, state.version)
    assert dump(items) == before
    state = service.remove_candidate("shot-whiskey", "IT", fits[0].casefold(), state.version)
    assert len(state.good) == len(fits) - 1


def test_only_the_flagger_or_a_lead_rewrites_a_discuss_note(items: Project, translator_it: User, lead: User) -> None:
    other = add_user(items, "olga", Role.TRANSLATOR, ("IT",), "other-password")
    flagged = CurationService(items, translator_it).flag_discuss("shot-whiskey", "IT", "Is goccio right?", 0)
    before = dump(items)
    with pytest.raises(PermissionDenied, match=r"flagged shot-whiskey \[IT\] \(ivo\) or a lead"):
        CurationService(items, other).update_discuss_note("shot-whiskey", "IT", "Rewritten by olga", flagged.version)
    assert dump(items) == before

    mine = CurationService(items, translator_it).update_discuss_note(
        "shot-whiskey", "IT", "Is goccio too informal?", flagged.version
    )
    assert (mine.discuss_note, mine.status_by) == ("Is goccio too informal?", "ivo")
    by_lead = CurationService(items, lead).update_discuss_note(
        "shot-whiskey", "IT", "Lead: check 'sorso'", mine.version
    )
    assert by_lead.discuss_note == "Lead: check 'sorso'" and by_lead.status is Status.DISCUSS
