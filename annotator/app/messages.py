"""One-shot messages: what an action says, queued in the session and drawn once at the top of the next render.

Widget callbacks run before the page is drawn, so they cannot draw a message themselves; they queue it here.
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from annotator.app.safe_text import md

#: Session key of the messages to show once, at the top of the next render.
FLASH_KEY = "flash_messages"


class Outcome(NamedTuple):
    """An action's result kept in the session for the next run to show: ``kind`` "error" or "success"."""

    kind: str
    message: str
    #: A one-time password to show once (People), else None.
    password: str | None = None


def flash(kind: str, message: str) -> None:
    """Queue a message for the next render."""
    st.session_state.setdefault(FLASH_KEY, []).append((kind, message))


def take_flashes() -> list[tuple[str, str]]:
    """Forget and return the queued messages (to draw them with ``show_flash_messages``)."""
    messages: list[tuple[str, str]] = st.session_state.pop(FLASH_KEY, [])
    return messages


def show_flash_messages(messages: list[tuple[str, str]]) -> str | None:
    """Draw errors, warnings and successes here (Markdown-escaped: they quote what users typed); the quiet
    confirmations ("toast") are returned as one Markdown line for the caller to show where it covers nothing."""
    quiet = []
    for kind, raw in messages:
        message = md(raw)
        if kind == "toast":
            quiet.append(message)
        else:
            {"error": st.error, "warning": st.warning, "success": st.success}.get(kind, st.info)(message)
    return " ".join(quiet) or None


def show_flashes() -> list[tuple[str, str]]:
    """Draw and forget the queued messages; the quiet confirmations go to the sidebar (a toast would cover Next
    and Guidelines). Returns the messages."""
    messages = take_flashes()
    quiet = show_flash_messages(messages)
    if quiet:
        st.sidebar.success(quiet, icon=":material/check_circle:")
    return messages
