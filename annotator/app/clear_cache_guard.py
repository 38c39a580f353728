"""Obey Streamlit's "clear cache" message only from a signed-in lead's session.

Why this touches Streamlit internals: Streamlit 1.67 answers a websocket ``BackMsg(clear_cache=True)`` from *any*
browser session, signed in or not, by emptying every ``st.cache_data`` and ``st.cache_resource`` of the server
(``streamlit/runtime/app_session.py``: ``AppSession.handle_backmsg`` → ``_handle_clear_cache_request``), and it has
no setting or hook to refuse it (``client.toolbarMode = "viewer"`` only hides the menu item). Nothing the app must
keep lives in those caches any more (drafts: ``drafts.py``; open projects: ``project_cache.py``), but an anonymous
visitor should not be able to throw away every page's caches at will either. This module is the only place that
relies on Streamlit's internals: it wraps that one method of ``AppSession``. **Pin it:** check it on every Streamlit
upgrade; ``tests/e2e/test_e2e_session_attacks.py`` (a forged anonymous message over a real websocket) and
``tests/app/test_app_session_lifetime.py`` fail if the method is gone or the message is obeyed again. No supported way
to refuse the message exists, so this is a security fix, not speed code.
"""

from __future__ import annotations

import logging
from typing import Any

from annotator.app import project_cache
from annotator.app.session import USER_KEY
from annotator.services import accounts

LOG = logging.getLogger("annotator.app.clear_cache_guard")
_GUARDED = "_annotator_lead_only"


def may_clear_cache(session_state: Any) -> bool:
    """True when the Streamlit session holding ``session_state`` belongs to a signed-in lead (checked against the
    database: a valid, unexpired session of an enabled lead), or the project has no accounts (everyone is the
    local lead)."""
    try:
        session = session_state[USER_KEY]
    except KeyError:  # no login in this session
        session = None
    try:
        project = project_cache.get_project()
        if not isinstance(session, accounts.Session):
            return not accounts.has_users(project)
        user = accounts.session_user(project, session)
    except Exception:  # broad on purpose: a security check fails closed on any fault (no project, database down)
        LOG.exception("could not check who asked to clear the caches; refused")
        return False
    return user is not None and user.is_lead


def install() -> bool:
    """Wrap ``AppSession._handle_clear_cache_request`` once per process; False when Streamlit no longer has it."""
    from streamlit.runtime.app_session import AppSession

    original = getattr(AppSession, "_handle_clear_cache_request", None)
    if original is None:
        LOG.error("Streamlit has no AppSession._handle_clear_cache_request: the clear-cache guard is not installed")
        return False
    if getattr(original, _GUARDED, False):
        return True

    def lead_only(self: AppSession) -> None:
        if may_clear_cache(self._session_state):
            original(self)
        else:
            LOG.warning("ignored a clear_cache message from a session that is not a signed-in lead")

    setattr(lead_only, _GUARDED, True)
    AppSession._handle_clear_cache_request = lead_only  # type: ignore[method-assign]
    return True
