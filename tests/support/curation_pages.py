"""The Curate page through AppTest: start the app, log in, read an item-language back from the database."""

from __future__ import annotations

from pathlib import Path

from app_helpers import area_rows
from streamlit.testing.v1 import AppTest

from annotator.domain.model import ItemLanguage
from annotator.project import Project

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"


TRANSLATOR = ("translator", "demo-translator-pass")


ITEM, LANG = "shot-whiskey", "IT"


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


def candidate_rows(at: AppTest) -> list[dict[str, str]]:
    """Every GOOD/BAD row the work area shows (key, text, provenance line, tooltip), GOOD first."""
    return [*area_rows(at, "good"), *area_rows(at, "bad")]


def shown_candidates(at: AppTest) -> list[str]:
    return [row["text"] for row in candidate_rows(at)]
