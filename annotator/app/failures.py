"""Errors in the browser: a person's mistake in words, anything unexpected as one plain message with a reference id.

A traceback shows whoever looks at the page file paths, SQL and stored values; Streamlit's own error
display is off (``client.showErrorDetails`` set by ``annotator serve``), and the app's whole run, each fragment and
each guarded entry point end here instead. The detail goes to the server's log under the same reference id, so a
translator can quote the message and whoever runs the server can find what happened.
"""

from __future__ import annotations

import functools
import logging
import secrets
import sys
from collections.abc import Callable
from typing import ParamSpec

import streamlit as st

from annotator.app.safe_text import md
from annotator.errors import UserError

_Params = ParamSpec("_Params")
#: The logger the detail goes to (the server's standard error unless logging is configured otherwise).
LOGGER = logging.getLogger("annotator.app")
#: What the browser shows instead of a traceback; ``{reference}`` is the id the log line carries too.
MESSAGE = (
    "Something went wrong on the server, and what you were doing may not have finished. Reload the page and try "
    "again; if it happens again, tell whoever runs the server this reference: {reference}."
)


def _log() -> logging.Logger:
    """The app's logger, writing to standard error when nothing else was set up (Streamlit configures only its
    own loggers, and Python's last-resort handler would drop the traceback's header line)."""
    if not LOGGER.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        LOGGER.addHandler(handler)
        LOGGER.setLevel(logging.INFO)
    return LOGGER


def new_reference() -> str:
    """A short id naming one failure: eight characters a person can read out (about four billion values)."""
    return secrets.token_hex(4).upper()


def report(error: BaseException) -> str:
    """Write ``error`` with its traceback to the server log under a new reference id, and return the id."""
    reference = new_reference()
    _log().error("unexpected error, reference %s", reference, exc_info=(type(error), error, error.__traceback__))
    return reference


def show(error: Exception) -> None:
    """Draw ``error`` where the run stopped: a ``UserError``'s own words (they are meant for people), anything else
    as ``MESSAGE`` with a reference id, its detail in the log."""
    if isinstance(error, UserError):
        st.error(md(error), icon=":material/error:")
        return
    st.error(MESSAGE.format(reference=report(error)), icon=":material/error:")


def failures_shown(run: Callable[_Params, None]) -> Callable[_Params, None]:
    """Wrap a run (the app's, a fragment's): an exception it does not handle is drawn by ``show``, never as a
    traceback. Streamlit's ``st.stop``/``st.rerun`` are not ``Exception`` s and pass through untouched."""

    @functools.wraps(run)
    def shown(*args: _Params.args, **kwargs: _Params.kwargs) -> None:
        try:
            run(*args, **kwargs)
        except Exception as error:
            show(error)

    return shown
