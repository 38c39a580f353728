"""The work area's JSON Schema, generated from the protocol's types (``protocol``).

Committed as ``schema.json`` and carried by ``area.js`` between ``// protocol:begin`` and ``// protocol:end``, where
the script's small validator reads it: so the script checks what Python sends against the types Python declares,
and one test compares both copies with ``json_schema()``. Regenerate both after changing a type:
``python -m annotator.app.curate_area.schema``.
"""

import dataclasses
import enum
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin

from annotator.app.curate_area.protocol import EVENTS, VERSION, AreaData, AreaEvent
from annotator.atomic_files import write_text_atomic

SCHEMA_FILE = Path(__file__).with_name("schema.json")
SCRIPT_FILE = Path(__file__).parent / "assets" / "area.js"
BEGIN, END = "// protocol:begin", "// protocol:end"


def is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _type_schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of one Python type: str, int, bool, None, a Literal or Enum of strings, list[...], ``X | None``,
    a TypedDict (named, under ``$defs``) or an event dataclass."""
    if hint is str:
        return {"type": "string"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is type(None):
        return {"type": "null"}
    if get_origin(hint) is Literal:
        return {"enum": list(get_args(hint))}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    if get_origin(hint) is list:
        return {"type": "array", "items": _type_schema(get_args(hint)[0], defs)}
    if is_union(hint):
        return {"anyOf": [_type_schema(option, defs) for option in get_args(hint)]}
    if typing.is_typeddict(hint):
        name = hint.__name__
        if name not in defs:
            defs[name] = {}  # (reserved first: a type met again while its own schema is built)
            hints = typing.get_type_hints(hint)
            defs[name] = _object(
                {key: _type_schema(_required_inner(value), defs) for key, value in hints.items()},
                sorted(hint.__required_keys__),
                _own_doc(hint),
            )
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {hint!r}: use str, int, bool, None, Literal, list, a union or a TypedDict")


def _required_inner(hint: Any) -> Any:
    """``NotRequired[X]`` → ``X`` (``get_type_hints`` keeps the marker only with ``include_extras``)."""
    return get_args(hint)[0] if get_origin(hint) is NotRequired else hint


def _own_doc(cls: type) -> str | None:
    """The class's own docstring on one line (None for a dataclass's generated signature)."""
    doc = cls.__doc__
    if not doc or doc.startswith(f"{cls.__name__}("):
        return None
    return " ".join(doc.split())


def _object(properties: dict[str, Any], required: list[str], doc: str | None) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if doc:
        schema["description"] = doc
    schema.update({"type": "object", "properties": properties, "required": required, "additionalProperties": False})
    return schema


def _event_schema(cls: type[AreaEvent], defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    properties: dict[str, Any] = {"type": {"const": cls.KIND}, "protocol": {"const": VERSION}}
    properties.update({f.name: _type_schema(hints[f.name], defs) for f in fields})
    required = ["type", "protocol", *(f.name for f in fields if f.default is dataclasses.MISSING)]
    return _object(properties, required, _own_doc(cls))


def json_schema() -> dict[str, Any]:
    """The protocol as a JSON Schema (draft 2020-12): the document is ``AreaData``; each event kind is under
    ``$defs`` (``AddEvent`` …) and ``Event`` is any one of them. Uses only what ``area.js``'s validator knows:
    type, enum, const, properties, required, additionalProperties, items, anyOf, oneOf and local ``$ref``."""
    defs: dict[str, Any] = {}
    root = _type_schema(AreaData, defs)
    defs["AreaData"]["properties"]["protocol"] = {"const": VERSION}
    for cls in EVENTS.values():
        defs[cls.__name__] = _event_schema(cls, defs)
    defs["Event"] = {"oneOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in EVENTS.values()]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:annotator:work-area:{VERSION}",
        "title": "The work area's protocol: the data Python sends, and the events the script sends back",
        "version": VERSION,
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """The schema as committed in ``schema.json``."""
    return json.dumps(json_schema(), ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def script_block() -> str:
    """The block ``area.js`` carries: the schema as the constant its validator reads."""
    return f"{BEGIN}\nconst SCHEMA = {json.dumps(json_schema(), ensure_ascii=False)};\n{END}"


def embedded(script: str) -> dict[str, Any]:
    """The schema the script carries (between the markers); ValueError when it carries none."""
    start, end = script.find(BEGIN + "\nconst SCHEMA = "), script.find(";\n" + END)
    if start < 0 or end < 0:
        raise ValueError("area.js holds no schema block")
    value: dict[str, Any] = json.loads(script[start + len(BEGIN) + len("\nconst SCHEMA = ") : end])
    return value


def write_generated() -> None:
    """Write the schema to ``schema.json`` and into the script (run after changing a type here)."""
    write_text_atomic(SCHEMA_FILE, schema_text())
    script = SCRIPT_FILE.read_text(encoding="utf-8")
    start, end = script.index(BEGIN), script.index(END) + len(END)
    write_text_atomic(SCRIPT_FILE, script[:start] + script_block() + script[end:])


if __name__ == "__main__":  # python -m annotator.app.curate_area.schema
    write_generated()
    sys.exit(0)
