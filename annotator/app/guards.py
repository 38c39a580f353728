"""The session check for the ways into the app that bypass ``main``'s log-in gate: fragments and downloads.

A fragment reruns alone and a download's file is made on the click, outside any script run; each is wrapped here so
that it checks the session (``session.session_check``) itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import streamlit as st

from annotator.app.failures import failures_shown
from annotator.app.faults import database_faults_shown
from annotator.app.page_run import in_page_run
from annotator.app.project_cache import get_project
from annotator.app.session import current_user, login_session, session_check

_Params = ParamSpec("_Params")


def guarded(*, lead: bool = False) -> Callable[[Callable[_Params, None]], Callable[_Params, None]]:
    """For every fragment (under ``st.fragment``): each of its runs checks the session first (``current_user``).
    An ended session, or a lead page's fragment of someone no longer a lead, reruns the whole app instead: the
    log-in form then says why the session ended. A database not answering, even to that check, is said as the
    page says it (``database_faults_shown``); anything unexpected inside is shown as a plain message
    (``failures``)."""

    def wrap(run: Callable[_Params, None]) -> Callable[_Params, None]:
        @failures_shown  # anything unexpected: a message, not a traceback
        @database_faults_shown  # the check's own read too: an action's "not saved", the Try again button, kept text
        @functools.wraps(run)
        def checked(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
            user = current_user()  # in the app's own run: the user its gate has just checked
            if user is None or (lead and not user.is_lead):
                if in_page_run():
                    return  # the page itself refuses (``require_lead``); a rerun here would loop
                st.rerun(scope="app")
            run(*args, **kwargs)

        return checked

    return wrap


class SessionEnded(PermissionError):
    """A file asked for by a session that has ended: refused before any of it is made."""


def guarded_file(make: Callable[[], bytes | str], *, lead: bool = False) -> Callable[[], bytes | str]:
    """For every ``st.download_button`` whose ``data`` is made on the click: the login is taken now, while a
    checked run draws the button, and the click checks it again (``session_check``); an ended session gets no byte
    (Streamlit answers "Failed to generate file for download" and logs the refusal), and the page's own next run
    shows the ended-session message."""
    project = get_project()
    session = login_session()

    def checked() -> bytes | str:
        if session_check(project, session, lead=lead) is None:
            who = session.user if session is not None else "an anonymous visitor"
            raise SessionEnded(f"download refused: the session of {who} has ended (or lost the rights)")
        return make()

    return checked
