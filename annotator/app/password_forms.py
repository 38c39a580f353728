"""The password forms: the one a one-time password's session sees instead of the app, and everyone's own change.

A password a lead reset (or that came with a new account) works once: ``main`` then shows nothing but
``forced_change`` until its owner has chosen a new one. ``render_change`` is the "Change password" page, where anyone
logged in changes their own password with the current one. Both act in button callbacks, so the run that follows
already carries the new session (and its cookie) and the app opens at once.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from annotator.app import messages, project_cache, session
from annotator.app.safe_text import md
from annotator.errors import UserError
from annotator.services import accounts

#: Session key of the change page's last outcome (a ``messages.Outcome``).
OUTCOME_KEY = "password_outcome"
PAGE_FILE = Path(__file__).resolve().parent / "pages" / "password.py"
URL_PATH = "password"
TITLE = "Change password"
RULES = f"At least {accounts.MIN_PASSWORD_LENGTH} characters."


def _new_password(new_key: str, repeat_key: str) -> str:
    """The new password typed twice; a ``UserError`` when the two differ (a typo nobody could log in with)."""
    new = st.session_state.get(new_key) or ""
    if new != (st.session_state.get(repeat_key) or ""):
        raise UserError("The two new passwords differ; nothing was changed.")
    return new


def _clear(*keys: str) -> None:
    for key in keys:
        st.session_state[key] = ""


def replace_one_time() -> None:
    """Callback of the forced form: the new password replaces the one-time one, and this browser stays logged in."""
    held = session.login_session()
    try:
        if held is None:
            raise accounts.SessionEnded()
        new = _new_password("forced_new", "forced_repeat")
        session.remember_login(accounts.replace_one_time_password(project_cache.get_project(), held, new))
    except UserError as error:
        st.session_state[OUTCOME_KEY] = messages.Outcome("error", str(error))
        return
    finally:
        _clear("forced_new", "forced_repeat")
    st.session_state.pop(OUTCOME_KEY, None)
    messages.flash("success", "Your new password is saved. Use it from now on.")


def forced_change(user_name: str) -> None:
    """The whole page for a session logged in with a one-time password: choose a new one, or log out."""
    st.title("Choose your password")
    st.info(
        f"You logged in as **{md(user_name)}** with a one-time password. Choose your own password to go on: the "
        "one-time password stops working once you have.",
        icon=":material/key:",
    )
    outcome: messages.Outcome | None = st.session_state.pop(OUTCOME_KEY, None)
    if outcome is not None:
        st.error(md(outcome.message))
    with st.form("forced_password", border=True, width=420):
        st.text_input("New password", type="password", key="forced_new", autocomplete="new-password", help=RULES)
        st.text_input("Repeat new password", type="password", key="forced_repeat", autocomplete="new-password")
        st.form_submit_button("Save password", type="primary", on_click=replace_one_time)
    st.button("Log out", key="forced_logout", on_click=session.logout)


def change_own() -> None:
    """Callback of the change page: current password, new one twice; this browser stays logged in, others end."""
    held = session.login_session()
    try:
        if held is None:
            raise accounts.SessionEnded()
        new = _new_password("own_new", "own_repeat")
        current = st.session_state.get("own_current") or ""
        project = project_cache.get_project()
        session.remember_login(accounts.change_password(project, held, current, new, session.client_address()))
    except UserError as error:
        st.session_state[OUTCOME_KEY] = messages.Outcome("error", str(error))
        return
    finally:
        _clear("own_current", "own_new", "own_repeat")
    st.session_state[OUTCOME_KEY] = messages.Outcome(
        "success",
        "Password changed. Your other sessions (other browsers and devices) have ended.",
    )


def render_change() -> None:
    """The "Change password" page: anyone logged in with a user name and password changes their own."""
    st.header(TITLE)
    outcome: messages.Outcome | None = st.session_state.pop(OUTCOME_KEY, None)
    if outcome is not None:
        (st.error if outcome.kind == "error" else st.success)(md(outcome.message))
    if session.login_session() is None:
        st.info("This project has no accounts yet, so there is no password to change.")
        return
    with st.form("own_password", border=True, width=420):
        st.text_input("Current password", type="password", key="own_current", autocomplete="current-password")
        st.text_input("New password", type="password", key="own_new", autocomplete="new-password", help=RULES)
        st.text_input("Repeat new password", type="password", key="own_repeat", autocomplete="new-password")
        st.form_submit_button(TITLE, type="primary", on_click=change_own)
    st.caption("Your other sessions end when you change it. Forgotten your password? Ask a lead to reset it.")


def page() -> st.Page:
    """The change page for the navigation (hidden: the sidebar links to it under the signed-in line)."""
    return st.Page(PAGE_FILE, title=TITLE, url_path=URL_PATH, icon=":material/key:", visibility="hidden")
