"""Helpers for AppTest flows over the whole app (``annotator/app/main.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streamlit.components.v2.bidi_component.constants import EVENT_DELIM
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, UnknownElement, Widget

from annotator.app import curate_area

MAIN = Path(__file__).resolve().parents[2] / "annotator" / "app" / "main.py"


def logged_in(name: str, password: str) -> AppTest:
    """A fresh browser session of the app, logged in through the login form."""
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    return at


def plain(markdown: str) -> str:
    """What a reader sees of Markdown escaped by ``annotator.app.safe_text.md``: the backslash escapes removed."""
    import re
    import string

    unescaped = re.sub(r"\\([" + re.escape(string.punctuation) + r"])", r"\1", markdown)
    return unescaped.replace("  \n", "\n").replace("\u2060", "")  # the word joiners that stop GFM autolinks


def _component_data(element: UnknownElement) -> dict[str, Any]:
    proto = element.proto
    data: dict[str, Any] = json.loads(proto.bytes or proto.json or proto.mixed.json)  # (the work area: bytes)
    return data


class _ComponentClick(Widget):
    """What a browser sends when the script of a components v2 element sets a trigger value.

    AppTest shows such an element as an ``UnknownElement`` it cannot interact with, so this stands in for it in the
    tree for one run and sends the trigger in the element's own aggregator widget state, exactly as the frontend
    does (``setTriggerValue``): Streamlit then dispatches it to the element's ``on_<event>_change`` callback.
    """

    def __init__(self, element: UnknownElement, event: str, value: object) -> None:  # no Widget.__init__: no proto
        self.proto = element.proto
        self.root = element.root
        self.type = "bidi_component"
        self.key = element.key
        self._value = [{"event": event, "value": value}]

    @property
    def value(self) -> object:
        return self._value

    @property
    def _widget_state(self) -> WidgetState:
        state = WidgetState()
        state.id = f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{self.proto.id}{EVENT_DELIM}events"
        state.json_trigger_value = json.dumps(self._value)
        return state


def _replace(block: Block, old: object, new: object) -> bool:
    for index, child in block.children.items():
        if child is old:
            block.children[index] = new  # type: ignore[assignment]
            return True
        if isinstance(child, Block) and _replace(child, old, new):
            return True
    return False


# --- the Curate work area (``annotator.app.curate_area``): one element, typed events --------------------------------

_seq = [0]


def area(at: AppTest) -> dict[str, Any]:
    """The data the Curate page sent to its work area (the element's whole content: card, lists, actions…)."""
    return _component_data(next(e for e in at.get("bidi_component") if e.key == curate_area.KEY))


def area_rows(at: AppTest, side: str) -> list[dict[str, str]]:
    """One list of the work area as rows: the candidate key, the text shown, its provenance line and its tooltip."""
    rows: list[dict[str, str]] = area(at)["lists"][side]["rows"]
    return rows


def send_area_raw(at: AppTest, value: object) -> AppTest:
    """Send ``value`` as the work area's event and run, whatever the page shows (a stale or forged message)."""
    element = next(e for e in at.get("bidi_component") if e.key == curate_area.KEY)
    assert _replace(element.root, element, _ComponentClick(element, curate_area.EVENT, value))
    at.run()
    assert not at.exception, at.exception
    return at


def send_area(at: AppTest, kind: str, **fields: object) -> AppTest:
    """What the element's script sends for an action of a person: the event with the item, language and version the
    element shows (``version`` in ``fields`` overrides it, as a stale page would send)."""
    data = area(at)
    _seq[0] += 1
    if kind in ("move", "remove") and "side" not in fields:  # the script names the row as it shows it
        for side in ("good", "bad"):
            for row in data["lists"][side]["rows"]:
                if row["key"] == fields.get("key"):
                    fields = {"side": side, "text": row["text"], **fields}
    event = {"type": kind, "protocol": data["protocol"], "item": data["item"], "lang": data["lang"],
             "version": data["version"], "seq": f"test:{_seq[0]}", **fields}  # fmt: skip
    return send_area_raw(at, event)


def row_key(at: AppTest, side: str, text: str) -> str:
    """The key of the candidate shown as ``text`` in list ``side`` ("good" / "bad") of the work area."""
    return next(row["key"] for row in area_rows(at, side) if row["text"] == text)


def feedback(at: AppTest) -> dict[str, Any] | None:
    """The feedback the last event left for the element (kind, text, where it shows, where the focus goes)."""
    value: dict[str, Any] | None = area(at)["feedback"]
    return value
