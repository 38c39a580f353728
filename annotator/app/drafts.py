"""What a translator has typed but not saved, and their page filters, kept on the server per user.

A reload or a second tab is a new Streamlit session with an empty ``st.session_state``; keeping drafts (Add
boxes, DISCUSS / Discard notes, comments) and filters here, keyed by the logged-in user's name, brings them back.
The store lives in the server process (shared by its sessions, bounded per user); unsaved text is not worth a
database write on every keystroke, and a server restart only loses what was never saved. It is a plain module-level
object, not ``st.cache_resource``: any browser can send Streamlit's "clear cache" message, which empties those.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import streamlit as st

from annotator.domain.model import User
from annotator.project import Project

#: At most this many remembered keys per user (oldest dropped first) and this many characters per value.
MAX_KEYS_PER_USER = 300
MAX_VALUE_CHARS = 20_000


class DraftStore:
    """A thread-safe, bounded map user -> (widget key -> value)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_user: dict[str, OrderedDict[str, Any]] = {}

    def get(self, user: str, key: str) -> Any:
        with self._lock:
            entries = self._by_user.get(user)
            return None if entries is None else entries.get(key)

    def put(self, user: str, key: str, value: Any) -> None:
        """Remember ``value`` (None or "" forgets the key); values too long to be a draft are not kept."""
        with self._lock:
            drafts = self._by_user.setdefault(user, OrderedDict())
            if value in (None, "") or (isinstance(value, str) and len(value) > MAX_VALUE_CHARS):
                drafts.pop(key, None)
                return
            drafts[key] = value
            drafts.move_to_end(key)
            while len(drafts) > MAX_KEYS_PER_USER:
                drafts.popitem(last=False)


_STORE = DraftStore()


def store() -> DraftStore:
    """One store per server process, shared by every session (out of reach of Streamlit's cache clearing)."""
    return _STORE


def owner(project: Project, user: User) -> str:
    """Whose drafts: a user of one project (two projects served by one process keep theirs apart)."""
    return f"{project.data_dir}\x1f{user.name}"


def restore(user: str, keys: Iterable[str]) -> None:
    """Put remembered values into this session for the keys it does not have yet (call before the widgets)."""
    drafts = store()
    for key in keys:
        if key not in st.session_state:
            value = drafts.get(user, key)
            if value is not None:
                st.session_state[key] = value


def remember(user: str, keys: Iterable[str]) -> None:
    """Keep this session's current values of ``keys`` for the user's next session (call after the widgets)."""
    drafts = store()
    for key in keys:
        if key in st.session_state:
            drafts.put(user, key, st.session_state[key])
