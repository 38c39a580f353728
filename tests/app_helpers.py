"""Helpers for AppTest flows over the whole app (``annotator/app/main.py``)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

MAIN = Path(__file__).resolve().parent.parent / "annotator" / "app" / "main.py"


def logged_in(name: str, password: str) -> AppTest:
    """A fresh browser session of the app, logged in through the login form."""
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    return at


def plain(markdown: str) -> str:
    """What a reader sees of Markdown escaped by ``annotator.app.safe_text.md``: the backslash escapes removed."""
    import re
    import string

    unescaped = re.sub(r"\\([" + re.escape(string.punctuation) + r"])", r"\1", markdown)
    return unescaped.replace("  \n", "\n").replace("\u2060", "")  # the word joiners that stop GFM autolinks
