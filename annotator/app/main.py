"""The app's entry point (``streamlit run annotator/app/main.py``, or ``annotator serve``).

It opens the project, asks for a login when the project has accounts (none: the local user, a lead), and
builds the navigation for the user's role.

Because ``pages/`` sits next to this file, Streamlit sometimes runs a page file directly (its old
pages-folder convention: the first run of a server process, and every ``AppTest`` run). Page files therefore
end with ``run_page(render)``, which routes such a direct run through ``main()`` and its login gate.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from annotator.app import (
    clear_cache_guard,
    configuration,
    guidelines,
    messages,
    page_run,
    password_forms,
    project_cache,
    session,
)
from annotator.app.failures import failures_shown
from annotator.app.faults import database_faults_shown
from annotator.app.safe_text import md
from annotator.domain.model import User
from annotator.errors import UserError
from annotator.gc_pause import use_server_schedule

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
CURATE_PAGE = PAGES / "curate.py"
#: Puts the cursor in "User name" when the log-in form appears (Streamlit's text inputs take no autofocus), unless
#: the person is already typing somewhere; tried for a second while the form is still being drawn.
FOCUS_USER_NAME = """<script>
(() => {
  let tries = 0;
  const focus = () => {
    const box = document.querySelector('input[aria-label="User name"]');
    const idle = !document.activeElement || document.activeElement === document.body;
    if (box && idle) { box.focus(); return; }
    if (!box && tries++ < 20) setTimeout(focus, 50);
  };
  focus();
})();
</script>"""


#: The container of the frame that sets the session cookie, and how it is kept out of sight and out of the layout.
COOKIE_FRAME = "cookie_frame"
OUT_OF_FLOW = "position: absolute; width: 0; height: 0; overflow: hidden; opacity: 0; pointer-events: none;"


def open_curate() -> None:
    """The root URL opens the Curate page. Curate is not the default page itself because a default page
    answers only on ``/``, and ``/curate?item=…&lang=…`` links (from the Evaluate page) must resolve."""
    st.switch_page(CURATE_PAGE, query_params=st.query_params.to_dict())


def build_pages(user: User | None) -> dict[str, list[st.Page]]:
    """The navigation for this user; with no user every page is registered (hidden) so the URL survives login."""
    start = st.Page(open_curate, title="Start", url_path="start", default=True, visibility="hidden")
    curate = st.Page(CURATE_PAGE, title="Curate", url_path="curate", icon=":material/edit_note:")
    items = st.Page(PAGES / "items.py", title="Items", url_path="items", icon=":material/list:")
    guide = st.Page(guidelines.render, title="Guidelines", url_path="guidelines", icon=":material/menu_book:")
    copies = st.Page(PAGES / "copies.py", title="Double curation", url_path="copies", icon=":material/group:")
    lead_pages = [
        st.Page(PAGES / "review.py", title="Review", url_path="review", icon=":material/rate_review:"),
        st.Page(PAGES / "evaluate.py", title="Evaluate", url_path="evaluate", icon=":material/analytics:"),
        st.Page(PAGES / "project.py", title="Project", url_path="project", icon=":material/settings:"),
        st.Page(PAGES / "agreement.py", title="Agreement", url_path="agreement", icon=":material/compare:"),
        st.Page(PAGES / "people.py", title="People", url_path="people", icon=":material/manage_accounts:"),
        st.Page(PAGES / "dataset.py", title="Dataset", url_path="dataset", icon=":material/dataset:"),
    ]
    pages = {"Curation": [start, curate, copies, items, guide, password_forms.page()]}
    if user is None or user.is_lead:
        pages["Lead"] = lead_pages
    else:  # a translator following a lead's link gets told so, not silently sent to Curate
        pages["Curation"] += [leads_only_page(page) for page in lead_pages]
    return pages


def leads_only_page(page: st.Page) -> st.Page:
    """A hidden page at a lead page's address that says it is for leads only."""
    title = page.title

    def render() -> None:
        st.header(title)
        st.warning(f"{title} is for leads only. Ask a lead if you need something there.", icon=":material/lock:")
        st.page_link(CURATE_PAGE, label="Back to Curate", icon=":material/edit_note:")

    render.__name__ = f"leads_only_{page.url_path}"  # pages made from functions are told apart by name
    return st.Page(render, title=title, url_path=page.url_path, visibility="hidden")


def sso_buttons() -> None:
    """A "Sign in with …" button for each ``[auth]`` provider (Streamlit's ``st.login``: OpenID Connect)."""
    if importlib.util.find_spec("authlib") is None:
        st.error("Single sign-on is configured, but Authlib is not installed: `pip install 'annotator[sso]'`.")
        return
    for provider in configuration.sso_providers():
        key = f"sso_{provider.name or 'default'}"
        if st.button(f"Sign in with {provider.label}", key=key, type="primary", icon=":material/login:", width=420):
            st.login(provider.name)


def sso_refused(refusal: session.SsoRefused) -> None:
    """The whole page for someone the provider knows but this project does not: nothing else of the app."""
    st.title("No access to this project")
    who = md(refusal.email) if refusal.email else "an account without an e-mail address"
    if refusal.verified:
        st.error(
            f"Signed in as **{who}**, but this project has no access for you — ask a lead for access.",
            icon=":material/lock:",
        )
        st.caption("A lead gives access by adding an account with this e-mail address (or re-enabling yours).")
    else:
        st.error(
            f"Signed in as **{who}**, but your sign-in provider has not verified this e-mail address, so this "
            "project cannot give you access — ask a lead for access.",
            icon=":material/lock:",
        )
    if st.button("Sign out", key="sso_sign_out", icon=":material/logout:"):
        st.logout()


def login_form() -> None:
    project = project_cache.get_project()
    settings = project.settings()
    st.title(md(settings.name))  # no project folder here: anonymous visitors see it nowhere (leads: Project page)
    if configuration.sso_providers():
        sso_buttons()
        if not configuration.local_login_allowed():
            ended = st.session_state.get(session.ENDED_KEY)
            if ended:
                st.warning(md(ended))
            return
        st.caption("or with a user name and password:")
    with st.form("login", border=True, width=420):
        st.subheader("Log in")
        name = st.text_input("User name", key="login_name", autocomplete="username")
        password = st.text_input("Password", type="password", key="login_password", autocomplete="current-password")
        submitted = st.form_submit_button("Log in", type="primary")
    st.html(FOCUS_USER_NAME, unsafe_allow_javascript=True)
    ended = st.session_state.get(session.ENDED_KEY)
    if submitted:
        try:
            user = session.login(name or "", password or "")
        except UserError as error:  # too many failures: says how long to wait
            st.error(md(error))
        else:
            if user is not None:
                if st.session_state.pop(session.LOGGED_OUT_KEY, None) not in (None, user.name):
                    st.switch_page(CURATE_PAGE)  # someone else in this tab: their start, not the last one's page
                st.rerun()
            st.error("Wrong user name or password, or the account is disabled.")
    elif ended:
        st.warning(md(ended))
    if settings.name.startswith("annotator demo"):
        from annotator.commands.project import DEMO_USERS
        from annotator.services.accounts import still_logs_in_with

        shown = [
            f"**{name}** / {password}" + (f" ({', '.join(languages)})" if languages else "")
            for name, _role, languages, password, _display in DEMO_USERS
            if still_logs_in_with(project, name, password)
        ]  # a demo password once reset or changed is nobody's business any more
        if shown:
            st.caption("Demo accounts: " + " · ".join(shown) + ".")


def sidebar(user: User) -> None:
    with st.sidebar:
        langs = ", ".join(user.languages) if user.languages else "all languages"
        st.caption(f"Signed in as **{md(user.display_name or user.name)}** · {user.role.value} · {md(langs)}")
        if session.USER_KEY in st.session_state:  # the local user of a project without accounts has no login
            if configuration.sso_identity() is None:  # signed in with a password (the provider keeps the others')
                st.page_link(password_forms.page(), label=password_forms.TITLE, icon=":material/key:")
            st.button("Log out", key="logout", on_click=session.logout)


@failures_shown  # anything unexpected: one plain message and a reference id, the detail in the server log
@database_faults_shown
def main() -> None:
    st.set_page_config(
        page_title="annotator", page_icon="📝", layout="wide"
    )  # a Material icon favicon is fetched from Google
    clear_cache_guard.install()  # once per process: only a signed-in lead's session may empty the caches
    use_server_schedule()
    try:
        project_cache.get_project()
        configuration.check_configuration()  # a weak session_secret or malformed trusted_proxies: say so, run nothing
    except UserError as error:
        st.error(md(error))
        st.stop()
    user = session.current_user()
    identity = configuration.sso_identity() if user is None else None
    refusal: session.SsoRefused | None = None
    if identity is not None:  # back from the provider (or its cookie): match the e-mail address to an account
        try:
            user = session.sso_login(identity)
        except session.SsoRefused as refused:
            refusal = refused
    script = session.cookie_script()
    if script is not None:  # store or clear the session cookie in the browser (a same-origin frame, out of the flow:
        # in it, its one-pixel line showed as a grey dash above the page's title and pushed the page down)
        st.html(f"<style>.st-key-{COOKIE_FRAME} {{ {OUT_OF_FLOW} }}</style>")
        with st.container(key=COOKIE_FRAME):
            st.iframe(script, height=1, width=1)
    if refusal is not None:
        st.navigation(build_pages(None), position="hidden")
        sso_refused(refusal)
        session.cookie_sent()
        return
    if user is None:
        st.navigation(build_pages(None), position="hidden")
        due = session.password_change_due()
        if due is not None:  # logged in with a one-time password: nothing else until it is replaced
            password_forms.forced_change(due.name)
        else:
            login_form()
        session.cookie_sent()
        return
    page = st.navigation(build_pages(user))
    controls = st.sidebar.container()  # the page's own controls (Curate's filters), above the account lines
    sidebar(user)
    messages.show_flashes()
    with page_run.running_page(user, controls):
        page.run()
    session.cookie_sent()  # only now: a run cut short by switch_page or rerun never reached the browser


def run_page(render: Callable[[], None]) -> None:
    """Bottom of every page file: render when ``main`` runs the page, otherwise run the whole app."""
    if page_run.in_page_run():
        render()
    else:
        main()


if __name__ == "__main__":
    main()
