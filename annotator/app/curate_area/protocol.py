"""The protocol between the work area's script (``area.js``) and Python, in one place, with a version number.

``EVENTS`` names every event the script may send and its fields (beyond ``ENVELOPE``: protocol, item, lang, version,
seq); ``DATA`` names every field of the data the script receives, nested as the data is. ``schema()`` is the whole
protocol as JSON-ready data: ``area.js`` carries a copy of it between ``// protocol:begin`` and ``// protocol:end``
(written by ``python -m annotator.app.curate_area.protocol``), and ``tests/test_curate_protocol.py`` fails when the
copy, the names the script reads and sends, or the data ``work_area.area_data`` builds differ from it.
Change a field here, bump ``VERSION``, regenerate the script's copy, and the test shows what else must change.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

VERSION = 4

#: Sent with every event.
ENVELOPE: tuple[str, ...] = ("type", "protocol", "item", "lang", "version", "seq")
#: Each event the script may send -> its own fields (all required unless listed in ``OPTIONAL``).
EVENTS: dict[str, tuple[str, ...]] = {
    "add": ("side", "text"),
    "add_many": ("side", "text"),
    "remove": ("key", "side", "text"),
    "move": ("key", "side", "text"),
    "done": (),
    "discuss": ("text",),
    "discard": ("reason", "text"),
    "reopen": (),
    "undo": (),
    "next": (),
    "previous": (),
    "comment": ("text",),
    "check": ("side", "text"),
    "advance": ("on",),
    "accept": ("side", "text"),
    "dismiss": ("side", "text"),
}
#: Fields an event may leave out (the row's side and shown text only name the candidate in the message).
OPTIONAL: dict[str, tuple[str, ...]] = {"remove": ("side", "text"), "move": ("side", "text")}

_ROW = {"key": "str", "text": "str", "line": "str", "title": "str"}
#: ``empty``: why the list is empty, in a translator's words ("" when it is not, or nothing was recorded).
_LIST = {"heading": "str", "side": "str", "other": "str", "rows": [_ROW], "removed": ["str"], "empty": "str"}
#: A suggestion (issue 33): ``side`` good, bad or move (a BAD candidate proposed for GOOD); ``source`` team, related,
#: mt, said in ``label``; ``reason`` why it is proposed.
_SUGGESTION = {"key": "str", "text": "str", "side": "str", "label": "str", "reason": "str"}
_ACTION = {"shown": "bool", "enabled": "bool", "tip": "str"}
#: The data the element receives, field by field ("str", "int", "bool", "any", a nested object, or [element]).
DATA: dict[str, Any] = {
    "protocol": "int",
    "item": "str",
    "lang": "str",
    "version": "int",
    "editable": "bool",
    "locked": "str",
    "advance": "bool",
    "nav": {"position": "str", "progress": "str", "previous": "bool", "next": "bool"},
    "card": {
        "title": "str",
        "status": "str",
        "status_label": "str",
        "sentence": "str",
        "start": "int",
        "end": "int",
        "sense": [{"text": "str", "link": "any"}],
        "gloss": "str",
        "senses_title": "str",
        "senses": [{"text": "str", "sigma": "bool"}],
        "notices": [{"kind": "str", "text": "str"}],
        "translation": {"label": "str", "text": "str", "start": "int", "end": "int", "outcome": "str"},
        "mt": [{"label": "str", "text": "str"}],
    },
    "actions": {name: _ACTION for name in ("done", "undo", "discuss", "discard", "reopen")},
    "lists": {"good": _LIST, "bad": _LIST},
    "suggestions": {"title": "str", "rows": [_SUGGESTION]},
    "placeholders": {"good": "str", "bad": "str"},
    "reasons": [{"value": "str", "label": "str"}],
    "scope": "str",
    "login": "str",
    "check": {"scope": "str", "side": "str", "text": "str", "kind": "str", "message": "str", "hint": "str"},
    "feedback": {"id": "str", "kind": "str", "text": "str", "where": "str", "focus": "str",
                 "clear": {"field": "str", "text": "str"}, "close": "str", "scope": "str"},
    "ack": "str",
    "comments": {"title": "str", "rows": [{"who": "str", "when": "str", "text": "str"}], "may_post": "bool",
                 "shown": "bool", "open": "bool"},
    "history": {"title": "str", "shown": "bool",
                "rows": [{"when": "str", "who": "str", "action": "str", "detail": "str", "version": "int"}]},
}  # fmt: skip


def schema() -> dict[str, Any]:
    """The whole protocol as JSON-ready data (what the script's copy must equal)."""
    whole = {
        "version": VERSION,
        "envelope": list(ENVELOPE),
        "events": {name: list(fields) for name, fields in EVENTS.items()},
        "optional": {name: list(fields) for name, fields in OPTIONAL.items()},
        "data": DATA,
    }
    copied: dict[str, Any] = json.loads(json.dumps(whole))  # a copy: changing it changes no module constant
    return copied


BEGIN, END = "// protocol:begin", "// protocol:end"


def script_block() -> str:
    """The block ``area.js`` carries: the schema as a constant the script reads its names from."""
    return f"{BEGIN}\nconst PROTOCOL = {json.dumps(schema(), ensure_ascii=False, sort_keys=True)};\n{END}"


def embedded(script: str) -> dict[str, Any]:
    """The schema the script carries (between the markers)."""
    match = re.search(re.escape(BEGIN) + r"\nconst PROTOCOL = (.*);\n" + re.escape(END), script, re.S)
    if match is None:
        raise ValueError("area.js holds no protocol block")
    value: dict[str, Any] = json.loads(match.group(1))
    return value


def write_script_block(path: Path) -> None:
    """Put the current schema into the script (run after changing the protocol)."""
    script = path.read_text(encoding="utf-8")
    start, end = script.index(BEGIN), script.index(END) + len(END)
    path.write_text(script[:start] + script_block() + script[end:], encoding="utf-8")


if __name__ == "__main__":  # python -m annotator.app.curate_area.protocol: regenerate area.js's copy
    write_script_block(Path(__file__).parent / "assets" / "area.js")
    sys.exit(0)
