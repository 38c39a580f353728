"""The Curate work area as one element: item card, GOOD/BAD lists, Add boxes, actions, feedback.

One components v2 element whose HTML, CSS and script live in ``assets/`` (``area.html``, ``area.css``, ``area.js``;
Streamlit serves that folder as the element's own, outside the log-in, so it holds nothing else; the script is served
from there as a file, see ``_component``). Streamlit reruns replace a page's elements, taking the focus and the scroll
with them; this element keeps its DOM across runs (it is mounted under one constant key), so it owns where the focus
goes, what the keys do and what stays in view. Everything shown comes from ``area_data`` as JSON and reaches the page
through ``textContent`` only.

The data is one ``protocol.AreaData`` document, which the script checks against the protocol's JSON Schema before
drawing it. The script sends one event at a time as the ``event`` trigger; ``protocol.parse_event`` makes it the
dataclass of its kind or refuses it, saying why (a forged, malformed or other-version event changes nothing).
``annotator.app.work_area`` turns it into one command for the curation service with the version the element was
drawn for, so a stale page is refused by the service's version check. The element serves Curate, Review and Double
curation alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from annotator.app.curate_area import protocol
from annotator.app.curate_area.protocol import AreaData, AreaEvent, EventRefused, parse_event
from annotator.app.safe_text import synset_url, visible_controls

__all__ = ["AreaEvent", "EventRefused", "parse_event"]

#: "<project>.<component>" as the package's manifest (``annotator/pyproject.toml``) declares it: the name under which
#: Streamlit finds the component's asset folder (this one) and serves its files.
COMPONENT_NAME = "annotator.curate_area"
KEY = "cur_area"
#: The trigger the script sets; the page's callback is ``on_event_change``.
EVENT = "event"


def _asset(name: str) -> str:
    return resources.files(__name__).joinpath("assets", name).read_text(encoding="utf-8")


HTML, CSS, JS = _asset("area.html"), _asset("area.css"), _asset("area.js")


def _component() -> Callable[..., Any]:
    """The element, its script served as a file of the asset folder when Streamlit found the package's manifest (an
    installed or editable package, inside a running app): each run's message then carries the data, the HTML and the
    style, not the script as well (the browser loads the script once and keeps it). The style stays inline: as a file
    it arrives after the first drawing on a page load, and the work area then shifts. Without the manifest (the module
    imported outside a running app, e.g. by a test, or a copy without it) the script is inline too."""
    try:
        return st.components.v2.component(COMPONENT_NAME, html=HTML, css=CSS, js="area.js", isolate_styles=False)
    except StreamlitAPIException:
        return st.components.v2.component(COMPONENT_NAME, html=HTML, css=CSS, js=JS, isolate_styles=False)


_mount = _component()


def received() -> AreaEvent | None:
    """In the callback: the event the element sent, None when it sent none; ``EventRefused`` for anything the
    script of this protocol does not send."""
    value = st.session_state.get(KEY)
    sent = value.get(EVENT) if isinstance(value, Mapping) else None
    return None if sent is None else parse_event(sent)


def received_seq() -> str | None:
    """The id of whatever the element sent (checked or not), to acknowledge it: the element waits for it."""
    value = st.session_state.get(KEY)
    event = value.get(EVENT) if isinstance(value, Mapping) else None
    seq = event.get("seq") if isinstance(event, Mapping) else None
    return seq[: protocol.MAX_SEQ] if isinstance(seq, str) else None


def text(value: object) -> str:
    """Text for the element: invisible characters made visible (``safe_text.visible_controls``)."""
    return visible_controls(str(value))


def synset_link(synset: str) -> str | None:
    return synset_url(synset)


def encode(data: AreaData | Mapping[str, Any]) -> bytes:
    """The data as the element receives it: one JSON document, in bytes. Streamlit forwards bytes as they are; a dict
    it would serialise twice (the message and its identity) and probe each of its fields for a data frame first
    (``area.js`` decodes it with ``TextDecoder`` and ``JSON.parse``).
    Text with a lone surrogate (a forged or pasted ``\\ud800`` echoed back, say) has no UTF-8 form: that document
    goes with every non-ASCII character escaped, as JSON allows, instead of failing the page's run."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def render(data: AreaData | Mapping[str, Any], on_event: Callable[[], None]) -> None:
    """Mount the element (one, under the constant ``KEY``); ``on_event`` runs before the next run on an event."""
    _mount(key=KEY, data=encode(data), on_event_change=on_event)
