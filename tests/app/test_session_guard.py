"""Issue 31: one session check for everything a session can reach, and no way around it.

A fragment reruns alone (every few seconds with ``run_every``) and a download button's file made on the click is
made outside any script run: neither passes through the app's log-in gate. So every fragment in the app package is
wrapped in ``guards.guarded`` and every download button's data is ``guards.guarded_file(...)`` — checked here by
reading the source, so a new one cannot bypass it — and the wrapped download refuses an ended session.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from annotator.app.guards import SessionEnded
from annotator.app.session import USER_KEY
from annotator.domain.model import Role
from annotator.project import Project
from annotator.services import accounts
from annotator.services.accounts import Session

APP = Path(__file__).resolve().parents[2] / "annotator" / "app"


def _name(node: ast.expr) -> str:
    """``st.fragment`` / ``guards.guarded`` / ``guarded`` as dotted text (calls by their function)."""
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _modules() -> list[tuple[Path, ast.Module]]:
    paths = sorted(APP.rglob("*.py"))
    assert len(paths) > 15  # the whole app package, pages included
    return [(path, ast.parse(path.read_text(encoding="utf-8"), str(path))) for path in paths]


def test_every_fragment_checks_the_session() -> None:
    fragments, bypasses = [], []
    for path, module in _modules():
        decorators = {
            id(part)
            for node in ast.walk(module)
            if isinstance(node, ast.FunctionDef)
            for d in node.decorator_list
            for part in (d, getattr(d, "func", d))  # ``@st.fragment`` and ``@st.fragment(run_every=…)``
        }
        for node in ast.walk(module):
            if isinstance(node, ast.FunctionDef):
                names = [_name(d) for d in node.decorator_list]
                if "st.fragment" in names:
                    fragments.append(node.name)
                    below = names[names.index("st.fragment") + 1 :]  # applied first: inside the fragment's run
                    if not any(name.split(".")[-1] == "guarded" for name in below):
                        bypasses.append(f"{path.name}: {node.name} is a fragment without guards.guarded")
        bypasses += [
            f"{path.name}:{node.lineno}: st.fragment used other than as a decorator"
            for node in ast.walk(module)
            if isinstance(node, ast.Call | ast.Attribute)
            and _name(node) == "st.fragment"
            and id(node) not in decorators
        ]
    assert {"render_jobs", "render_job_status", "item_area"} <= set(fragments)
    assert bypasses == []


def test_every_download_button_hands_its_file_over_through_the_session_check() -> None:
    buttons, bypasses = 0, []
    for path, module in _modules():
        for node in ast.walk(module):
            if isinstance(node, ast.Call) and _name(node.func).endswith("download_button"):
                buttons += 1
                data = next((k.value for k in node.keywords if k.arg == "data"), None)
                if data is None or _name(data).split(".")[-1] != "guarded_file":
                    bypasses.append(f"{path.name}:{node.lineno}: download_button data not made by guarded_file")
    assert buttons >= 5  # the Dataset page's files, zip and sheet; Review's throughput; Evaluate's report
    assert bypasses == []


def _made_by_guarded_file(lead: bool) -> None:
    import streamlit as st

    from annotator.app import guards

    st.session_state["made"] = guards.guarded_file(lambda: b"the file", lead=lead)


def button_file(session: Session | None, lead: bool = True) -> object:
    """What a download button drawn for ``session`` would hand Streamlit to call on the click."""
    at = AppTest.from_function(_made_by_guarded_file, args=(lead,), default_timeout=30)
    if session is not None:
        at.session_state[USER_KEY] = session
    at.run()
    assert not at.exception, at.exception
    return at.session_state["made"]


@pytest.mark.both_engines
@pytest.mark.parametrize("how", ["disabled", "demoted", "logged out elsewhere", "expired"])
def test_a_download_from_an_ended_session_makes_no_file(app_demo: Path, how: str) -> None:
    project = Project.open(app_demo)
    accounts.add_user(project, "second-lead", Role.LEAD, (), "second-lead-pass")  # the team keeps a lead
    issued = time.time() - (accounts.session_hours() * 3600 + 60 if how == "expired" else 0)
    make = button_file(Session("lead", 0, issued))
    if how != "expired":
        assert callable(make) and make() == b"the file"  # while the session holds: the file
    if how == "disabled":
        accounts.set_disabled(project, "lead", True)
    elif how == "demoted":
        accounts.set_role(project, "lead", Role.TRANSLATOR, ("IT",))
    elif how == "logged out elsewhere":
        accounts.end_sessions(project, "lead")
    assert callable(make)
    with pytest.raises(SessionEnded):
        make()


@pytest.mark.both_engines
def test_a_download_without_a_login_is_refused_once_the_project_has_accounts(app_demo: Path) -> None:
    make = button_file(None)  # drawn for nobody (a bare run): a project with accounts gives nothing
    assert callable(make)
    with pytest.raises(SessionEnded):
        make()
    translator = button_file(Session("translator", 0), lead=False)  # a translator's own download still works
    assert callable(translator) and translator() == b"the file"
