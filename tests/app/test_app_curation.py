"""The app driven through Streamlit's AppTest: login, curation, review, conflicts — checked against the database.

Each test runs ``annotator/app/main.py`` on its own copy of the demo project, clicks like a user would, and
then reads the item-language back through the repository, so a page that only *looks* right fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import area, feedback, row_key, send_area
from curation_pages import (
    ITEM,
    LANG,
    MAIN,
    TRANSLATOR,
    candidate_rows,
    history_actions,
    login,
    read_state,
    shown_candidates,
    start,
)
from streamlit.testing.v1 import AppTest

from annotator.domain.model import DiscardReason, Origin, Status
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.curation import LOCAL_USER, CurationService
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL

LEAD = ("lead", "demo-lead-pass")


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    at.run()
    assert not at.exception, at.exception
    return at


def unescape(markdown: str) -> str:
    return markdown.replace("\\", "")


def errors(at: AppTest) -> list[str]:
    """Error messages as the user reads them (the page escapes Markdown in them)."""
    return [unescape(e.value) for e in at.error]


def beside(at: AppTest, key: str, kind: str) -> str:
    """The value of the ``kind`` element that follows the widget ``key`` in its container (what is drawn under it)."""
    from streamlit.testing.v1.element_tree import Block

    def search(block: Block) -> str | None:
        children = list(block.children.values())
        for index, child in enumerate(children):
            if getattr(child, "key", None) == key:
                after = [c for c in children[index + 1 :] if getattr(c, "type", None) == kind]
                return str(after[0].value) if after else ""
            if isinstance(child, Block):
                found = search(child)
                if found is not None:
                    return found
        return None

    return search(at._tree) or ""


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_login_is_required_and_checks_the_password(demo: Path) -> None:
    at = start()
    assert [t.label for t in at.text_input] == ["User name", "Password"]
    assert "Item" not in markdown_text(at)

    at.text_input(key="login_name").input("translator")
    at.text_input(key="login_password").input("wrong-password")
    at.button[0].click()
    at.run()
    assert any("Wrong user name or password" in e for e in errors(at))
    assert "Item **1**" not in markdown_text(at)

    login(at, TRANSLATOR)
    assert area(at)["nav"]["position"].startswith("Item 1 of 18")
    assert "Demo Translator" in "\n".join(c.value for c in at.sidebar.caption)
    # a translator sees only their own languages, each with its name (issue 34)
    assert at.sidebar.selectbox(key="cur_lang").options == ["IT — Italian", "DE — German"]
    assert at.query_params == {"item": ITEM, "lang": LANG}


def test_translator_curates_an_item_and_the_database_holds_exactly_that(demo: Path) -> None:
    before = read_state(demo)
    assert [e.text for e in before.good] == ["goccio", "bicchierino"]
    at = login(start(), TRANSLATOR)

    # a valid candidate, checked while typing (the box's draft event): it says how it will be stored
    send_area(at, "check", side="good", text="[bere un goccio]_v")
    check = area(at)["check"]
    assert (check["side"], check["kind"], check["text"]) == ("good", "ok", "[bere un goccio]_v")
    assert "will be saved as [bere un goccio]_VERB" in check["message"]
    assert "[bere un goccio]_v" not in str(area(at)["scope"])  # the draft itself stays in the browser
    send_area(at, "add", side="good", text="[bere un goccio]_v")
    said = feedback(at)
    assert said is not None and said["kind"] == "success" and said["text"] == "Added [bere un goccio]_VERB to GOOD."
    assert (said["where"], said["focus"]) == ("good", "cursor")  # under the box; the cursor on the row added
    assert said["clear"] == {"field": "good", "text": "[bere un goccio]_v"}  # the element empties the box

    # an invalid one is refused with the rule's message (its id is for leads), live and on Add; nothing is saved
    send_area(at, "check", side="good", text="* goccio")
    live = area(at)["check"]
    assert live["kind"] == "error" and "'*' may not be the first or the last token" in live["message"]
    assert "wildcard_edge" not in live["message"] and "rule" not in live["message"]
    version = read_state(demo).version
    send_area(at, "add", side="good", text="* goccio")
    said = feedback(at)
    assert said is not None and said["kind"] == "error" and "'*' may not be the first or the last token" in said["text"]
    assert said["where"] == said["focus"] == "good" and "clear" not in said  # the text stays in the box to fix
    assert read_state(demo).version == version

    send_area(at, "move", key=row_key(at, "bad", "colpo"))  # BAD -> GOOD, keeping its provenance
    assert feedback(at)["text"] == "Moved colpo to GOOD."
    send_area(at, "remove", key=row_key(at, "bad", "foto"))
    assert (feedback(at)["text"], feedback(at)["focus"]) == ("Removed foto from BAD.", "cursor")
    send_area(at, "done")
    assert feedback(at)["text"] == "Marked shot-whiskey done. Undo (u) takes it back."
    assert feedback(at)["where"] == "card"

    after = read_state(demo)
    assert after.status is Status.DONE
    assert after.status_by == "translator"
    assert [e.format() for e in after.good] == ["goccio", "bicchierino", "[bere un goccio]_VERB", "colpo"]
    assert [e.format() for e in after.bad] == ["sparo", "tiro", "tiratore", "iniezione", "puntura", "istantanea"]
    added = after.good[2]
    assert (added.origin, added.synsets, added.pos) == (Origin.TRANSLATOR, (), "VERB")
    moved = after.good[3]
    assert moved.origin is Origin.LEXICON and moved.synsets == ("bn:00070966n", "bn:00056773n")
    assert history_actions(demo)[-4:] == [
        ("translator", "add"),
        ("translator", "move"),
        ("translator", "remove"),
        ("translator", "done"),
    ]
    assert after.version == before.version + 4
    # the page shows the saved state: done, edits disabled, Reopen offered (the translator's own done item)
    data = area(at)
    assert data["actions"]["reopen"] == {"shown": True, "enabled": True, "tip": data["actions"]["reopen"]["tip"]}
    assert not data["editable"] and not data["actions"]["done"]["shown"]
    assert (data["card"]["status"], data["card"]["status_label"]) == ("done", "done")


def test_done_item_shows_after_a_new_session(demo: Path) -> None:
    """A reload is a new session: the URL opens the item and the saved candidates are there."""
    at = login(start(), TRANSLATOR)
    send_area(at, "add", side="good", text="sorso")
    send_area(at, "done")

    again = login(start(query={"item": ITEM, "lang": LANG}), TRANSLATOR)
    assert "sorso" in shown_candidates(again)
    assert area(again)["card"]["status_label"] == "done"


def test_discuss_needs_a_note_and_reaches_the_leads_review_queue(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "discuss", text="  ")
    assert feedback(at)["kind"] == "error" and "DISCUSS needs a note" in feedback(at)["text"]
    assert feedback(at)["where"] == "discuss"  # under the note box
    assert read_state(demo).status is Status.PENDING

    send_area(at, "discuss", text="Is 'cicchetto' too regional for GOOD?")
    state = read_state(demo)
    assert state.status is Status.DISCUSS
    assert state.discuss_note == "Is 'cicchetto' too regional for GOOD?"
    # a translator cannot close it
    assert not area(at)["actions"]["done"]["shown"]

    lead = login(start(), LEAD)
    lead.switch_page("pages/review.py").run()
    assert not lead.exception, lead.exception
    table = lead.dataframe[0].value
    assert list(table["item"]) == [ITEM] and list(table["lang"]) == [LANG]
    assert "cicchetto" in table["note"][0]
    r = f"rev|{ITEM}|{LANG}|"

    # the lead edits in the same work area as Curate, then resolves as done with a comment (required)
    assert area(lead)["item"] == ITEM and area(lead)["editable"]
    send_area(lead, "add", side="good", text="cicchetto")
    assert feedback(lead)["text"] == "Added cicchetto to GOOD."
    notices = [n["text"] for n in area(lead)["card"]["notices"]]
    assert any("Is 'cicchetto' too regional" in n for n in notices)
    # the note is shown once: in the notice, not again in the thread (issue 34)
    assert all("too regional" not in c["text"] for c in area(lead)["comments"]["rows"])
    click(lead, r + "resolve")
    # the refusal is right under the Resolve button (issue 34: it showed far above, out of view)
    assert "needs a comment" in unescape(beside(lead, r + "resolve", "error"))
    lead.text_area(key=r + "resolve_comment").input("Fine in GOOD: common in the north, understood everywhere.")
    click(lead, r + "resolve")
    assert any("Resolved as done" in unescape(s.value) for s in lead.success)

    state = read_state(demo)
    assert state.status is Status.DONE and state.status_by == "lead"
    assert "cicchetto" in [e.text for e in state.good]
    project = Project.open(demo)
    with project.db.read() as conn:
        thread = [(c.user, c.text) for c in project.repo.comments(conn, ITEM, LANG)]
    assert thread == [
        ("translator", "Is 'cicchetto' too regional for GOOD?"),
        ("lead", "Fine in GOOD: common in the north, understood everywhere."),
    ]
    assert "Nothing waiting for discussion" in "\n".join(s.value for s in lead.success)


def test_discard_needs_a_reason_and_the_lead_can_reopen(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    send_area(at, "discard", reason="", text="")
    assert "Discarding needs a reason" in feedback(at)["text"] and feedback(at)["where"] == "card"
    send_area(at, "discard", reason=DiscardReason.OTHER.value, text="")
    assert "'other' needs a note" in feedback(at)["text"]
    assert read_state(demo).status is Status.PENDING

    send_area(at, "discard", reason=DiscardReason.INSUFFICIENT_CONTEXT.value, text="")
    assert feedback(at)["text"] == "Discarded shot-whiskey: insufficient context. Undo (u) takes it back."
    state = read_state(demo)
    assert (state.status, state.discard_reason, state.status_by) == (
        Status.DISCARDED,
        DiscardReason.INSUFFICIENT_CONTEXT,
        "translator",
    )
    # the card says it once and right: no Reopen for a translator (only leads reopen discarded items)
    data = area(at)
    assert not data["actions"]["reopen"]["shown"]
    notices = [n["text"] for n in data["card"]["notices"]]
    assert "Discarded by translator: insufficient context" in notices
    assert any("only a lead may reopen it" in n and "Undo (u)" in n for n in notices)

    lead = login(start(), LEAD)
    lead.switch_page("pages/review.py").run()
    lead.session_state["rev_tab"] = "Discarded"  # the tab a lead clicks
    lead.run()
    discarded = lead.dataframe[0].value
    assert list(discarded["item"]) == [ITEM] and list(discarded["reason"]) == ["insufficient context"]
    click(lead, "rev_reopen")
    assert read_state(demo).status is Status.IN_PROGRESS


def test_a_stale_save_is_refused_and_the_current_state_is_shown(demo: Path) -> None:
    """Two browsers on one item-language: the second save carries an old version and must not overwrite."""
    first = login(start(), TRANSLATOR)
    second = login(start(), TRANSLATOR)

    send_area(first, "add", side="good", text="sorso")
    send_area(second, "check", side="good", text="cicchetto")
    send_area(second, "add", side="good", text="cicchetto", version=area(first)["version"] - 1)
    said = feedback(second)
    assert said["kind"] == "error" and said["where"] == "good"
    message = said["text"]
    assert "conflict" in message.lower() and "was changed by translator on 20" in message and " UTC " in message
    assert "+00:00" not in message  # a human time, not the stored ISO text
    assert "sorso" in shown_candidates(second)  # the current state, with the other session's candidate
    assert "clear" not in said  # the element keeps the user's input in its box to redo

    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino", "sorso"]
    # redoing against the current state works
    send_area(second, "add", side="good", text="cicchetto")
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "sorso", "cicchetto"]


def test_query_params_open_an_item_and_navigation_follows_the_queue(demo: Path) -> None:
    at = login(start(query={"item": "head-stream", "lang": "DE"}), TRANSLATOR)
    assert at.sidebar.selectbox(key="cur_lang").value == "DE"
    assert area(at)["card"]["title"].startswith("head-stream · DE")
    assert area(at)["nav"]["position"].startswith("Item 2 of 18")

    send_area(at, "next")
    assert at.query_params == {"item": "take-off-thanksgiving", "lang": "DE"}
    send_area(at, "previous")
    send_area(at, "previous")
    assert at.query_params == {"item": "shot-whiskey", "lang": "DE"}
    assert not area(at)["nav"]["previous"]
    send_area(at, "previous")  # at the start of the queue: stays
    assert at.query_params == {"item": "shot-whiskey", "lang": "DE"}

    at.sidebar.text_input(key="cur_search").input("bank")
    at.run()
    assert area(at)["nav"]["position"].startswith("Item 1 of 1")
    assert at.query_params["item"] == "bank-river"

    # with "next item after Done" on, Done moves along the queue
    at.sidebar.text_input(key="cur_search").input("")
    at.run()
    send_area(at, "advance", on=True)
    assert area(at)["advance"] is True
    assert at.query_params["item"] == "bank-river"  # the current item stays when the filter widens
    send_area(at, "done")
    assert read_state(demo, "bank-river", "DE").status is Status.DONE
    assert at.query_params["item"] == "spring-water"
    assert feedback(at)["text"].startswith("Marked bank-river done.") and feedback(at)["focus"] == "first"

    # the guidelines are one click away and cover the candidate syntax
    click(at, "cur_guidelines")
    guide = markdown_text(at)
    assert "Cross-PoS candidates: brackets and a tag" in guide and "Wildcards" in guide

    other = login(start(query={"item": "head-stream", "lang": "ES"}), TRANSLATOR)
    assert any("may not curate ES" in e for e in errors(other))


def test_item_card_shows_what_the_translator_needs(demo: Path) -> None:
    """Sentence with the target marked, λ, σ linked to BabelNet, δ and μ, every sense, provenance, overlaps."""
    at = login(start(query={"item": "plant-automobiles", "lang": "ES"}), LEAD)
    card = area(at)["card"]
    assert card["sentence"][card["start"] : card["end"]] == "plant"
    assert {"text": "bn:00100185n", "link": "https://babelnet.org/synset?id=bn:00100185n"} in card["sense"]
    assert "δ(λ) = 3 · μ(σ) = 1" in "".join(part["text"] for part in card["sense"])
    overlaps = [n["text"] for n in card["notices"] if n["kind"] == "warning"]
    assert any("planta" in w and "kept in GOOD" in w for w in overlaps)
    rows = candidate_rows(at)
    assert "planta" in [row["text"] for row in rows]
    assert any(row["line"].startswith("lexicon · σ, sense 2") for row in rows)  # provenance: σ and the other sense
    assert all(row["title"].startswith(f"{row['text']}\n{row['line']}\n") for row in rows)  # all of it on hover
    senses = card["senses"]
    first = senses[0]
    assert first["text"].startswith("1. bn:00100185n") and first["text"].endswith("← this item (σ)") and first["sigma"]
    assert any("bn:00037088n" in s["text"] for s in senses)
    placeholders = area(at)["placeholders"]  # examples in the item's language; BAD's box a BAD example (issue 34)
    assert placeholders["good"] == "trago · tomarse * libre · [disparar]_VERB"
    assert placeholders["bad"] != placeholders["good"]


def test_review_is_for_leads_only(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    with pytest.raises(ValueError):
        at.switch_page("pages/review.py")
    lead = login(start(), LEAD)
    lead.switch_page("pages/review.py").run()
    assert not lead.exception
    lead.session_state["rev_tab"] = "Progress"
    lead.run()
    progress = next(d.value for d in lead.dataframe if "total" in d.value.columns)
    assert list(progress["lang"]) == ["DE", "ES", "IT", "RU", "ZH"]
    assert list(progress["total"]) == [18] * 5


def test_the_dataset_page_is_in_the_leads_navigation_like_every_page(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    with pytest.raises(ValueError):
        at.switch_page("pages/dataset.py")
    lead = login(start(), LEAD)
    lead.switch_page("pages/dataset.py").run()
    assert not lead.exception, lead.exception
    assert [h.value for h in lead.header] == ["Dataset"]


def test_items_page_lists_every_item(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    at.switch_page("pages/items.py").run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 18 and "shot-whiskey" in list(table["id"])
    assert set(table.columns) >= {"id", "lemma", "POS", "synset", "δ", "IT", "DE"}
    assert not {"ES", "RU", "ZH", "excluded"} & set(table.columns)  # a translator sees their languages (issue 34)


def test_project_without_accounts_runs_as_the_local_user(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Single-user local use: no login, the local user is a lead for every language."""
    data = tmp_path / "data"
    project = Project.open(data, create=True)
    project.save_settings(ProjectSettings(name="local", languages=("IT", "ES"), lexicon=LexiconSettings()))
    rows = [
        {"id": "bank-1", "sentence": "They sat on the bank of the river.", "word": "bank", "lemma": "bank",
         "pos": "NOUN", "synset": "bn:00008364n"},
        {"id": "bank-2", "sentence": "She works at a bank.", "word": "bank", "lemma": "bank", "pos": "NOUN",
         "synset": "bn:00008363n"},
    ]  # fmt: skip
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_items(project, items)
    CurationService(project, LOCAL_USER).replace_candidates("bank-1", "ES", ["orilla"], ["banco"], 0)
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))

    at = AppTest.from_file(str(MAIN), default_timeout=30).run()
    assert not at.exception, at.exception
    assert not [t for t in at.text_input if t.key == "login_name"]
    assert at.sidebar.selectbox(key="cur_lang").options == ["IT — Italian", "ES — Spanish"]
    at.sidebar.selectbox(key="cur_lang").select("ES")
    at.run()
    send_area(at, "done")
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "bank-1", "ES")
    assert saved is not None and saved.status is Status.DONE and saved.status_by == "local"


def test_filter_notices_are_in_a_translators_words_and_only_for_their_language(demo: Path) -> None:
    """Issue 34, point 7: a translator saw lead jargon about another language ("target_language: ES 'planta' …")."""
    translator = login(start(query={"item": "plant-automobiles", "lang": LANG}), TRANSLATOR)
    notices = [n["text"] for n in area(translator)["card"]["notices"]]
    assert not any("target_language" in n or "planta" in n for n in notices), notices
    cricket = login(start(query={"item": "cricket-porch", "lang": LANG}), TRANSLATOR)
    assert not any("polysemy" in n["text"] for n in area(cricket)["card"]["notices"])
    lead = login(start(query={"item": "plant-automobiles", "lang": "ES"}), LEAD)
    notices = [n["text"] for n in area(lead)["card"]["notices"]]
    assert any(n.startswith("Selection filters: target_language: ES 'planta'") for n in notices), notices


def test_a_good_word_of_another_sense_gets_one_banner_not_two(demo: Path) -> None:
    """The Overlap banner names the word; the selection filter's "Careful: …" about the same word is not said again."""
    from annotator.domain.model import Role
    from annotator.services.accounts import add_user

    add_user(Project.open(demo), "esme", Role.TRANSLATOR, ("ES",), "esme-password-1")
    esme = login(start(query={"item": "plant-automobiles", "lang": "ES"}), ("esme", "esme-password-1"))
    notices = [n["text"] for n in area(esme)["card"]["notices"]]
    about_planta = [n for n in notices if "planta" in n]
    assert len(about_planta) == 1 and about_planta[0].startswith("Overlap: planta"), notices
    assert not any(n.startswith("Careful") for n in notices), notices


def test_review_shows_a_discuss_item_in_the_work_area_and_steps_through_the_queue(demo: Path) -> None:
    """Issue 32: Review is the same work area as Curate, for a lead's view of the DISCUSS items (Next / Previous)."""
    at = login(start(), TRANSLATOR)
    send_area(at, "discuss", text="first question")
    second = login(start(query={"item": "head-stream", "lang": LANG}), TRANSLATOR)
    send_area(second, "discuss", text="second question")
    lead = login(start(), LEAD)
    lead.switch_page("pages/review.py").run()
    first = area(lead)
    assert first["nav"]["position"].startswith("DISCUSS 1 of 2") and first["nav"]["next"]
    assert first["editable"] and not first["actions"]["done"]["shown"]  # a lead edits; resolving is below
    send_area(lead, "next")
    assert area(lead)["item"] != first["item"] and area(lead)["nav"]["position"].startswith("DISCUSS 2 of 2")
    shown = area(lead)["item"]
    send_area(lead, "discard", reason="idiom", text="")  # not on a DISCUSS item: said, nothing changed
    assert feedback(lead)["kind"] == "error" and "DISCUSS" in feedback(lead)["text"]
    assert read_state(demo, shown).status is Status.DISCUSS and read_state(demo).status is Status.DISCUSS
