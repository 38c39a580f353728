"""The page run in progress in this thread: whom ``main`` checked, where the page's sidebar controls go, and what
the parts of one run share.

Each session's script runs in its own thread, so a thread-local holds it; widget callbacks mark the user they have
just checked the same way (one session check per callback, as per script run).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from annotator.domain.model import User

_page_run = threading.local()


@contextmanager
def running_page(user: User, controls: DeltaGenerator | None = None) -> Iterator[None]:
    """Mark that ``main`` is running a page for ``user``, with the place at the top of the sidebar it keeps for
    the page's own controls."""
    _page_run.active, _page_run.user, _page_run.controls, _page_run.shared = True, user, controls, {}
    try:
        yield
    finally:
        _page_run.active, _page_run.user, _page_run.controls, _page_run.shared = False, None, None, {}


@contextmanager
def callback_checked(user: User) -> Iterator[None]:
    """Mark that a widget callback has just checked the session for ``user``: what it calls (the action runner)
    takes that user instead of checking again."""
    _page_run.callback_user = user
    try:
        yield
    finally:
        _page_run.callback_user = None


def in_page_run() -> bool:
    return bool(getattr(_page_run, "active", False))


def checked_user() -> User | None:
    """The user this thread's page run or widget callback has already checked; None when neither has."""
    if in_page_run():
        user: User | None = _page_run.user
        return user
    callback_user: User | None = getattr(_page_run, "callback_user", None)
    return callback_user


def run_shared() -> dict[str, Any]:
    """What the parts of one page run read once and share (the jobs panels' one read); outside a page run — a
    fragment rerunning on its own — an empty dict each time, so that rerun reads afresh."""
    shared: dict[str, Any] | None = getattr(_page_run, "shared", None)
    return shared if shared is not None and in_page_run() else {}


def sidebar_controls() -> DeltaGenerator:
    """Where a page draws its sidebar controls: first under the navigation, above the account lines, so that a
    lead's long navigation does not push them below the fold on a small screen."""
    controls = getattr(_page_run, "controls", None)
    return controls if controls is not None else st.sidebar
