"""The app driven through Streamlit's AppTest: login, curation, review, conflicts — checked against the database.

Each test runs ``annotator/app/main.py`` on its own copy of the demo project, clicks like a user would, and
then reads the item-language back through the repository, so a page that only *looks* right fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_helpers import candidate_lists, click_row
from conftest import build_demo
from streamlit.testing.v1 import AppTest

from annotator.domain.model import DiscardReason, ItemLanguage, Origin, Status
from annotator.project import LexiconSettings, Project, ProjectSettings
from annotator.services.curation import LOCAL_USER, CurationService
from annotator.services.importing import import_items

pytestmark = pytest.mark.both_engines  # store, service and app flows on SQLite and PostgreSQL

MAIN = Path(__file__).resolve().parent.parent / "annotator" / "app" / "main.py"
TRANSLATOR = ("translator", "demo-translator-pass")
LEAD = ("lead", "demo-lead-pass")
ITEM, LANG = "shot-whiskey", "IT"
P = f"cur|{ITEM}|{LANG}|"  # widget-key prefix of the Curate page for this item-language


@pytest.fixture
def demo(copy_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the demo project, named by ANNOTATOR_DATA as ``annotator serve`` would."""
    data = copy_project("demo", build_demo, tmp_path / "data")
    monkeypatch.setenv("ANNOTATOR_DATA", str(data))
    return data


def read_state(data: Path, item: str = ITEM, lang: str = LANG) -> ItemLanguage:
    project = Project.open(data)
    with project.db.read() as conn:
        state = project.repo.get_item_language(conn, item, lang)
    assert state is not None
    return state


def history_actions(data: Path, item: str = ITEM, lang: str = LANG) -> list[tuple[str, str]]:
    project = Project.open(data)
    with project.db.read() as conn:
        return [(h.user, h.action) for h in project.repo.history(conn, item, lang)]


def start(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=30)
    if query:
        at.query_params.update(query)
    return at.run()


def login(at: AppTest, user: tuple[str, str]) -> AppTest:
    at.text_input(key="login_name").input(user[0])
    at.text_input(key="login_password").input(user[1])
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    return at


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    at.run()
    assert not at.exception, at.exception
    return at


def unescape(markdown: str) -> str:
    return markdown.replace("\\", "")


def open_expander(at: AppTest, key: str) -> AppTest:
    """Expanders build their content only while open; a user clicks them, a test sets their state."""
    at.session_state[key] = True
    at.run()
    assert not at.exception, at.exception
    return at


def errors(at: AppTest) -> list[str]:
    """Error messages as the user reads them (the page escapes Markdown in them)."""
    return [unescape(e.value) for e in at.error]


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def candidate_rows(at: AppTest) -> list[dict[str, str]]:
    """Every GOOD/BAD row the page sends to the browser (key, text, provenance line, tooltip), GOOD first."""
    return [row for rows in candidate_lists(at).values() for row in rows]


def shown_candidates(at: AppTest) -> list[str]:
    return [row["text"] for row in candidate_rows(at)]


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
    assert "Item **1** of **18**" in markdown_text(at)
    assert "Demo Translator" in "\n".join(c.value for c in at.sidebar.caption)
    # a translator sees only their own languages
    assert at.sidebar.selectbox(key="cur_lang").options == ["IT", "DE"]
    assert at.query_params == {"item": ITEM, "lang": LANG}


def test_translator_curates_an_item_and_the_database_holds_exactly_that(demo: Path) -> None:
    before = read_state(demo)
    assert [e.text for e in before.good] == ["goccio", "bicchierino"]
    at = login(start(), TRANSLATOR)

    # add a valid candidate (live validation says how it will be stored)
    at.text_input(key=P + "add|good").input("[bere un goccio]_v")
    at.run()
    assert any("will be saved as `[bere un goccio]_VERB`" in c.value for c in at.caption)
    click(at, P + "addbtn|good")
    assert not errors(at)
    assert at.text_input(key=P + "add|good").value == ""  # cleared after saving

    # an invalid one is refused with the rule's message, live and on Add, and nothing is saved
    at.text_input(key=P + "add|good").input("* goccio")
    at.run()
    live = errors(at)
    assert any("'*' may not be the first or the last token" in e and "wildcard_edge" in e for e in live)
    version = read_state(demo).version
    click(at, P + "addbtn|good")
    assert any("'*' may not be the first or the last token" in e for e in errors(at))
    assert read_state(demo).version == version

    click_row(at, P + "rows|bad", "move", "colpo")  # BAD -> GOOD, keeping its provenance
    click_row(at, P + "rows|bad", "remove", "foto")
    click(at, P + "done")
    assert any("Marked done" in unescape(s.value) for s in at.success)

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
    # the page shows the saved state: done, edits disabled, Reopen offered
    assert at.button(key=P + "reopen")
    assert at.button(key=P + "addbtn|good").disabled


def test_done_item_shows_after_a_new_session(demo: Path) -> None:
    """A reload is a new session: the URL opens the item and the saved candidates are there."""
    at = login(start(), TRANSLATOR)
    at.text_input(key=P + "add|good").input("sorso")
    click(at, P + "addbtn|good")
    click(at, P + "done")

    again = login(start(query={"item": ITEM, "lang": LANG}), TRANSLATOR)
    assert "sorso" in shown_candidates(again)
    assert ":green-badge[done]" in markdown_text(again)


def test_discuss_needs_a_note_and_reaches_the_leads_review_queue(demo: Path) -> None:
    at = open_expander(login(start(), TRANSLATOR), P + "exp_discuss")
    click(at, P + "discuss")
    assert any("DISCUSS needs a note" in e for e in errors(at))
    assert read_state(demo).status is Status.PENDING

    at.text_area(key=P + "discuss_note").input("Is 'cicchetto' too regional for GOOD?")
    click(at, P + "discuss")
    state = read_state(demo)
    assert state.status is Status.DISCUSS
    assert state.discuss_note == "Is 'cicchetto' too regional for GOOD?"
    # a translator cannot close it
    assert not [b for b in at.button if b.key == P + "done"]

    lead = login(start(), LEAD)
    lead.switch_page("pages/review.py").run()
    assert not lead.exception, lead.exception
    table = lead.dataframe[0].value
    assert list(table["item"]) == [ITEM] and list(table["lang"]) == [LANG]
    assert "cicchetto" in table["note"][0]
    r = f"rev|{ITEM}|{LANG}|"

    # the lead edits, then resolves as done with a comment (required)
    lead.text_input(key=r + "add|good").input("cicchetto")
    click(lead, r + "addbtn|good")
    click(lead, r + "resolve")
    assert any("needs a comment" in e for e in errors(lead))
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
    at = open_expander(login(start(), TRANSLATOR), P + "exp_discard")
    click(at, P + "discard")
    assert any("Discarding needs a reason" in e for e in errors(at))
    at.selectbox(key=P + "discard_reason").select(DiscardReason.OTHER)
    click(at, P + "discard")
    assert any("'other' needs a note" in e for e in errors(at))
    assert read_state(demo).status is Status.PENDING

    at.selectbox(key=P + "discard_reason").select(DiscardReason.INSUFFICIENT_CONTEXT)
    click(at, P + "discard")
    state = read_state(demo)
    assert (state.status, state.discard_reason, state.status_by) == (
        Status.DISCARDED,
        DiscardReason.INSUFFICIENT_CONTEXT,
        "translator",
    )

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

    first.text_input(key=P + "add|good").input("sorso")
    click(first, P + "addbtn|good")

    second.text_input(key=P + "add|good").input("cicchetto")
    click(second, P + "addbtn|good")
    message = " ".join(errors(second))
    assert "conflict" in message.lower() and "was changed by translator" in message
    assert "sorso" in shown_candidates(second)  # the current state, with the other session's candidate
    assert second.text_input(key=P + "add|good").value == "cicchetto"  # the user's input is kept to redo

    state = read_state(demo)
    assert [e.text for e in state.good] == ["goccio", "bicchierino", "sorso"]
    # redoing against the current state works
    click(second, P + "addbtn|good")
    assert [e.text for e in read_state(demo).good] == ["goccio", "bicchierino", "sorso", "cicchetto"]


def test_query_params_open_an_item_and_navigation_follows_the_queue(demo: Path) -> None:
    at = login(start(query={"item": "head-stream", "lang": "DE"}), TRANSLATOR)
    assert at.sidebar.selectbox(key="cur_lang").value == "DE"
    assert "**head\\-stream** · DE" in markdown_text(at)
    assert "Item **2** of **18**" in markdown_text(at)

    click(at, "cur_next")
    assert at.query_params == {"item": "take-off-thanksgiving", "lang": "DE"}
    click(at, "cur_prev")
    click(at, "cur_prev")
    assert at.query_params == {"item": "shot-whiskey", "lang": "DE"}
    assert at.button(key="cur_prev").disabled

    at.sidebar.text_input(key="cur_search").input("bank")
    at.run()
    assert "Item **1** of **1**" in markdown_text(at)
    assert at.query_params["item"] == "bank-river"

    # with "next item after Done" on, Done moves along the queue
    at.sidebar.text_input(key="cur_search").input("")
    at.sidebar.toggle(key="cur_advance").set_value(True)
    at.run()
    assert at.query_params["item"] == "bank-river"  # the current item stays when the filter widens
    click(at, "cur|bank-river|DE|done")
    assert read_state(demo, "bank-river", "DE").status is Status.DONE
    assert at.query_params["item"] == "spring-water"

    # the guidelines are one click away and cover the candidate syntax
    click(at, "cur_guidelines")
    guide = markdown_text(at)
    assert "Cross-PoS candidates: brackets and a tag" in guide and "Wildcards" in guide

    other = login(start(query={"item": "head-stream", "lang": "ES"}), TRANSLATOR)
    assert any("may not curate ES" in e for e in errors(other))


def test_item_card_shows_what_the_translator_needs(demo: Path) -> None:
    """Sentence with the target marked, λ, σ linked to BabelNet, δ and μ, every sense, provenance, overlaps."""
    at = login(start(query={"item": "plant-automobiles", "lang": "ES"}), LEAD)
    page = markdown_text(at)
    assert "<mark" in page and ">plant</mark>" in page
    assert "(https://babelnet.org/synset?id=bn:00100185n)" in page
    assert "δ(λ) = **3** · μ(σ) = **1**" in page
    overlaps = [w.value for w in at.warning]
    assert any("planta" in unescape(w) and "kept in GOOD" in unescape(w) for w in overlaps)
    rows = candidate_rows(at)
    assert "planta" in [row["text"] for row in rows]
    assert any(row["line"].startswith("lexicon · σ, sense 2") for row in rows)  # provenance: σ and the other sense
    assert all(row["title"].startswith(f"{row['text']}\n{row['line']}\n") for row in rows)  # all of it on hover
    open_expander(at, "senses|plant-automobiles")
    senses = unescape(markdown_text(at))
    assert "1. [bn:00100185n]" in senses and "← **this item (σ)**" in senses
    assert "bn:00037088n" in senses


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


def test_items_page_lists_every_item(demo: Path) -> None:
    at = login(start(), TRANSLATOR)
    at.switch_page("pages/items.py").run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 18 and "shot-whiskey" in list(table["id"])
    assert set(table.columns) >= {"id", "lemma", "POS", "synset", "δ", "IT", "DE", "ZH"}


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
    assert at.sidebar.selectbox(key="cur_lang").options == ["IT", "ES"]
    at.sidebar.selectbox(key="cur_lang").select("ES")
    at.run()
    prefix = "cur|bank-1|ES|"
    click(at, prefix + "done")
    with project.db.read() as conn:
        saved = project.repo.get_item_language(conn, "bank-1", "ES")
    assert saved is not None and saved.status is Status.DONE and saved.status_by == "local"
