"""A database that stops answering, said as one message with a "Try again" button, never a traceback.

Wraps the app's whole run and each fragment; what the user typed in the inputs the failed run could not draw is
kept and set again, so it is there to redo.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import streamlit as st

from annotator.app.messages import flash, show_flash_messages, take_flashes
from annotator.errors import DatabaseUnavailableError

_Params = ParamSpec("_Params")

#: Session key: the text inputs' values kept when a database fault stopped the page (``database_faults_shown``).
_KEPT_INPUTS_KEY = "database_fault_kept_inputs"
#: Session key: an action said the database is not answering; the page, failing too, need not say it again.
_ACTION_FAULT_KEY = "database_fault_in_action"


def say_database_fault(error: DatabaseUnavailableError) -> None:
    """An action's change met a database that is not answering: queue what became of it ("your last change was
    not saved"), shown once by ``database_faults_shown`` when the page, failing too, stops."""
    flash("error", error.unsaved_message)
    st.session_state[_ACTION_FAULT_KEY] = True


def database_faults_shown(run: Callable[_Params, None]) -> Callable[_Params, None]:
    """Wrap the app's whole run, or a fragment (a fragment reruns alone, outside it): a database that stops
    answering (a PostgreSQL restart, a full disk) while the page is read shows one message saying whether the last
    change was saved.

    An action's own message ("your last change was not saved") and the others it queued are drawn here instead,
    once, with a "Try again" button (a click runs the page again). The inputs the page could not draw are gone from
    the browser, so their text is kept and set again before the next run draws them.
    """

    @functools.wraps(run)
    def guarded(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
        for key, value in st.session_state.pop(_KEPT_INPUTS_KEY, {}).items():
            st.session_state[key] = value  # set before its widget is drawn: the browser shows the kept text
        try:
            run(*args, **kwargs)
        except DatabaseUnavailableError as error:
            said = st.session_state.pop(_ACTION_FAULT_KEY, False)  # the action's message is queued: enough
            show_flash_messages([*take_flashes(), *([] if said else [("error", str(error))])])
            st.session_state[_KEPT_INPUTS_KEY] = {
                key: value for key, value in st.session_state.items() if isinstance(value, str) and value
            }
            st.button("Try again", key=f"database_retry|{run.__qualname__}", icon=":material/refresh:")
            st.stop()
        st.session_state.pop(_ACTION_FAULT_KEY, None)

    return guarded
